"""Bounded history: what a chunk's later requests resend of its earlier turns.

A chunk starts as ``[system, user(chunk message)]`` and every turn adds the model's answer and one message per tool
call. Resent in full, a model that keeps failing sends a history growing with the square of its turns. So each
request sends the latest turn as it is and shrinks what the model has already answered:

- a tool result becomes one line (``success``; a failure's ``error_code`` and ``error``; a success's lists of IDs,
  such as a batch's ``accepted`` and ``remaining``, and the sizes of its other lists): the model read it in full
  once;
- a submission keeps each item's ``paragraph_id`` only: its texts are saved, or were refused and must be sent
  again anyway (an item copied without its text is refused as ``MISSING_TEXT``, never saved);
- other calls' arguments longer than ``MAX_KEPT_ARGUMENT_CHARS`` become ``{}``; an answer's text is cut to
  ``MAX_KEPT_TEXT_CHARS``.

The system message and the chunk message never change, and a message once shrunk is shrunk the same way in every
later request, so a provider's prefix cache hits on everything before the latest turn. Reasoning fields and
provider extras are echoed unchanged (DeepSeek refuses a tool-call turn without its ``reasoning_content``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

PREFIX = 2  # the system message and the chunk message
BATCH_TOOL = "add_translation_batch"
MAX_KEPT_TEXT_CHARS = 300
MAX_KEPT_ARGUMENT_CHARS = 500
MAX_KEPT_ERROR_CHARS = 200
CUT_MARK = " […]"
EARLIER = "earlier result, shortened"

Submits = Callable[[str], bool]
Message = dict[str, Any]


def bounded(history: list[Message], answered: int, submits: Submits) -> list[Message]:
    """The messages to send: the prefix and the messages from ``answered`` on as they are, those between shrunk.

    ``answered``: how many messages the previous request sent (the model has answered them); ``submits`` tells the
    submitting tool by name.
    """
    settled = max(PREFIX, answered)
    return [*history[:PREFIX], *(shrunk(m, submits) for m in history[PREFIX:settled]), *history[settled:]]


def sent_history(history: list[Message], answered: int) -> list[Message]:
    """What a request sent, from the chunk's whole history and how many messages the previous request sent (the
    trace inspector's view of a bounded request; ``add_translation_batch`` is the submitting tool)."""
    return bounded(history, answered, _is_batch)


def _is_batch(name: str) -> bool:
    return name == BATCH_TOOL


def shrunk(message: Message, submits: Submits) -> Message:
    """One message of an answered turn as later requests send it."""
    role = message.get("role")
    if role == "tool":
        return _shrunk_result(message)
    if role == "assistant":
        return _shrunk_answer(message, submits)
    return message  # reminders and notes are one or two lines


def _shrunk_result(message: Message) -> Message:
    content = str(message.get("content"))
    result = _json_object(content)
    line = json.dumps(result_line(result), ensure_ascii=False)
    return {**message, "content": line} if result and len(line) < len(content) else message


def result_line(result: dict[str, Any]) -> dict[str, Any]:
    """A tool result in one line: what failed, or what a success held (its ID lists, how many of anything else)."""
    if not result.get("success"):
        error = _cut(str(result.get("error") or ""), MAX_KEPT_ERROR_CHARS)
        return {"success": False, "error_code": result.get("error_code"), "error": error, "note": EARLIER}
    ids = {key: value for key, value in result.items() if _strings(value)}  # accepted, remaining, ...: short
    return {"success": True, **ids, "note": EARLIER + _sizes(result, ids)}


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _sizes(result: dict[str, Any], kept: dict[str, Any]) -> str:
    """How many items each list not kept held (paragraphs, entries, warnings)."""
    sizes = [f"{key}: {len(value)}" for key, value in result.items() if isinstance(value, list) and key not in kept]
    return f" ({', '.join(sizes)})" if sizes else ""


def _shrunk_answer(message: Message, submits: Submits) -> Message:
    out = dict(message)
    content = message.get("content")
    if isinstance(content, str):
        out["content"] = _cut(content, MAX_KEPT_TEXT_CHARS)
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        out["tool_calls"] = [_shrunk_call(call, submits) for call in calls]
    return out


def _shrunk_call(call: dict[str, Any], submits: Submits) -> dict[str, Any]:
    function = call["function"]  # as ``ToolCall.message_dict`` wrote it: a name and a JSON string
    kept = _kept_arguments(function["name"], function["arguments"], submits)
    return {**call, "function": {**function, "arguments": kept}}


def _kept_arguments(name: str, arguments: str, submits: Submits) -> str:
    kept = _ids_only(arguments) if submits(name) else None
    if kept is not None:
        return kept
    return arguments if len(arguments) <= MAX_KEPT_ARGUMENT_CHARS else "{}"


def _ids_only(arguments: str) -> str | None:
    """A submission's arguments with each item's ``paragraph_id`` only (None: not a batch of items)."""
    items = _json_object(arguments).get("paragraphs")
    if not isinstance(items, list):
        return None
    ids = [{"paragraph_id": item.get("paragraph_id")} for item in items if isinstance(item, dict)]
    return json.dumps({"paragraphs": ids}, ensure_ascii=False)


def _json_object(text: str) -> dict[str, Any]:
    """``text`` decoded when it is a JSON object, else empty."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + CUT_MARK
