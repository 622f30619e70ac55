"""The assembled result of one streamed chat completion, and the assistant message to send back."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from engine.client.failure import ModelFailure
from engine.client.finish import FinishReason


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one request, normalised by ``engine.client.usage`` (``total_tokens`` computed when the server
    left it out).

    ``completion_tokens`` counts every billed output token, reasoning included. ``cached_tokens`` (prompt tokens
    served from the provider's prompt cache) and ``reasoning_tokens`` are None when the provider does not report them.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cached_tokens: int | None = None
    reasoning_tokens: int | None = None

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.total_tokens + other.total_tokens,
            _plus(self.cached_tokens, other.cached_tokens),
            _plus(self.reasoning_tokens, other.reasoning_tokens),
        )

    def to_json(self) -> dict[str, int]:
        """The counts as a mapping; ``cached_tokens`` and ``reasoning_tokens`` only when reported."""
        data = {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
        }
        if self.cached_tokens is not None:
            data["cached_tokens"] = self.cached_tokens
        if self.reasoning_tokens is not None:
            data["reasoning_tokens"] = self.reasoning_tokens
        return data


def _plus(a: int | None, b: int | None) -> int | None:
    return None if a is None and b is None else (a or 0) + (b or 0)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call as the model made it.

    ``arguments`` is the parsed JSON object, or None when it could not be used; then ``error`` says why and
    ``error_code`` is what the model is answered with (``ARGUMENTS_TRUNCATED`` for text that was cut off,
    ``INVALID_ARGUMENTS`` otherwise). ``repaired`` means ``arguments`` came from the safe repair of malformed JSON
    (the loop adds a warning to the tool result).
    """

    id: str
    name: str
    arguments_raw: str
    arguments: dict[str, Any] | None
    error: str | None = None
    repaired: bool = False
    extra_content: dict[str, Any] | None = None  # provider metadata (Gemini thought_signature) to echo back
    error_code: str | None = None

    @property
    def executable(self) -> bool:
        """True when the call may be run: it has a name, usable arguments and no error."""
        return self.error is None and self.arguments is not None and bool(self.name)

    def message_dict(self) -> dict[str, Any]:
        """The call as an entry of the assistant message's ``tool_calls`` (arguments as a JSON string)."""
        entry: dict[str, Any] = {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self._arguments_text()},
        }
        if self.extra_content:
            entry["extra_content"] = self.extra_content
        return entry

    def _arguments_text(self) -> str:
        if self.arguments is None:
            # Several providers parse the arguments of past calls; invalid JSON there fails the whole request.
            return "{}"
        if self.repaired or not _is_json(self.arguments_raw):
            return json.dumps(self.arguments, ensure_ascii=False)
        return self.arguments_raw


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


@dataclass(frozen=True, slots=True)
class AssembledResponse:
    """Everything one streamed response said, normalised.

    ``finish_reason`` is one of stop | tool_calls | length | content_filter | error (``finish_reason_raw`` is what
    the server sent); ``failure`` classifies an in-stream error or a truncated stream. ``tool_calls`` are the calls
    to run; when a ``multi_tool_use.parallel`` wrapper was unpacked, ``received_calls`` are the calls as made.
    ``message_fields`` are provider fields echoed back on the assistant message (``reasoning_content``,
    ``reasoning``, ``extra_content``).
    """

    content: str
    reasoning: str
    tool_calls: tuple[ToolCall, ...]
    finish_reason: FinishReason
    finish_reason_raw: str | None
    usage: Usage | None
    failure: ModelFailure | None
    latency_ms: float
    attempts: int = 1
    message_fields: dict[str, Any] = field(default_factory=dict)
    received_calls: tuple[ToolCall, ...] = ()  # the calls as the model made them, when a wrapper was expanded
    first_byte_ms: float | None = None
    lifted_from_content: bool = False  # the calls were written as JSON in the content (engine.client.text_calls)

    @property
    def calls_as_made(self) -> tuple[ToolCall, ...]:
        """The tool calls as the model made them (a wrapper in place of its inner calls)."""
        return self.received_calls or self.tool_calls

    @property
    def error(self) -> str | None:
        """The failure's sentence, if the response ended in error."""
        return None if self.failure is None else self.failure.message

    @property
    def ok(self) -> bool:
        """True unless the response ended in error or was cut off by the token limit."""
        return self.finish_reason not in ("error", "length")

    def assistant_message(self) -> dict[str, Any]:
        """The dict to append to the history: role, content, tool_calls, and provider fields to echo back.

        DeepSeek answers 400 on a tool-call turn whose ``reasoning_content`` is missing; Gemini 3 needs its
        ``extra_content`` thought signatures back. Reasoning found in ``<think>`` spans is not echoed (it was never
        a field).
        """
        message: dict[str, Any] = {"role": "assistant"}
        if self.tool_calls:
            message["content"] = self.content or None
            message["tool_calls"] = [call.message_dict() for call in self.tool_calls]
        else:
            message["content"] = self.content
        message.update(self.message_fields)
        return message
