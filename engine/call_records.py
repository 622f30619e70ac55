"""What the events of a turn record of a response and its calls, and when a call repeats an earlier one."""

from __future__ import annotations

import json
from typing import Any

from engine.client.response import AssembledResponse, ToolCall
from engine.cut_batch import TRUNCATED


def call_key(call: ToolCall) -> str:
    """The call's name and arguments as one text: two calls with the same key repeat each other."""
    return call.name + json.dumps(call.arguments, sort_keys=True, ensure_ascii=False)


def shown_arguments(call: ToolCall) -> Any:
    """A call's arguments as ``tool_called`` shows them: parsed, or the text as sent when they could not be used
    or were cut off."""
    return call.arguments_raw if call.arguments is None or call.error_code == TRUNCATED else call.arguments


def call_record(call: ToolCall) -> dict[str, Any]:
    """One call of ``model_response``: its text as sent, and why it cannot run when it cannot."""
    record: dict[str, Any] = {
        "id": call.id,
        "name": call.name,
        "arguments": call.arguments_raw,
        "error": call.error,
        "repaired": call.repaired,
    }
    if call.error_code:
        record["error_code"] = call.error_code
    return record


def response_fields(response: AssembledResponse) -> dict[str, Any]:
    """The fields of ``model_response`` for ``response``, but its turn and usage."""
    return {
        "content": response.content,
        "reasoning": response.reasoning,
        "tool_calls": tuple(call_record(c) for c in response.calls_as_made),
        "expanded_tool_calls": tuple(call_record(c) for c in response.tool_calls) if response.received_calls else (),
        "finish_reason": response.finish_reason,
        "finish_reason_raw": response.finish_reason_raw,
        "latency_ms": round(response.latency_ms, 1),
        "error": response.error,
        "failure": None if response.failure is None else response.failure.to_json(),
        "attempts": response.attempts,
        "lifted_from_content": response.lifted_from_content,
    }
