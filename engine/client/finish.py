"""Normalising ``finish_reason``: the five values the engine reasons about, from whatever a server sends.

Compatible servers and proxies pass through native values (Anthropic ``end_turn``, Gemini ``MAX_TOKENS``/``SAFETY``,
Together ``eos``, watsonx ``eos_token``, DeepSeek ``insufficient_system_resource`` ...). The mapping below follows
litellm's ``_FINISH_REASON_MAP`` plus the wire guide's table.
"""

from __future__ import annotations

from typing import Literal

FinishReason = Literal["stop", "tool_calls", "length", "content_filter", "error"]

_NAMES: dict[FinishReason, tuple[str, ...]] = {
    "stop": (
        "stop",
        "eos",
        "eos_token",
        "end_turn",
        "stop_sequence",
        "end",
        "complete",
        "completed",
        "finished",
        "end_of_turn",
        "finish_reason_stop",
        "stopped",
    ),
    "tool_calls": ("tool_calls", "tool_call", "function_call", "tool_use", "tools", "function_calls"),
    "length": (
        "length",
        "max_tokens",
        "max_output_tokens",
        "model_length",
        "token_limit",
        "max_length",
        "context_length_exceeded",
        "model_context_window_exceeded",
        "max_new_tokens",
    ),
    "content_filter": (
        "content_filter",
        "content_filtered",
        "safety",
        "recitation",
        "blocklist",
        "prohibited_content",
        "spii",
        "image_safety",
        "sensitive",
        "refusal",
        "guardrail_intervened",
        "language",
    ),
    "error": (
        "error",
        "malformed_function_call",
        "unexpected_tool_call",
        "insufficient_system_resource",
        "abort",
        "aborted",
        "cancelled",
        "canceled",
        "network_error",
        "other",
        "finish_reason_unspecified",
        "timeout",
        "failed",
    ),
}
_MAP = {name: reason for reason, names in _NAMES.items() for name in names}
# What a reason becomes when the response has tool calls, and when it has none.
_WITH_CALLS: dict[FinishReason, FinishReason] = {"stop": "tool_calls"}
_WITHOUT_CALLS: dict[FinishReason, FinishReason] = {"tool_calls": "stop"}


def normalise_finish_reason(raw: str | None, *, has_tool_calls: bool) -> FinishReason:
    """The engine's finish reason for a server's ``raw`` value.

    ``stop`` with tool calls means tool calls (Gemini's compat layer, old Ollama); ``length`` stays ``length`` even
    with tool calls, because their arguments may be cut. A missing value is ``error`` (the stream was truncated).
    An unknown value is taken as a normal end (``stop`` or ``tool_calls``): the raw value is kept for the trace.
    """
    if raw is None:
        return "error"
    return agreeing_with_calls(_MAP.get(raw.strip().lower(), "stop"), has_tool_calls=has_tool_calls)


def agreeing_with_calls(reason: FinishReason, *, has_tool_calls: bool) -> FinishReason:
    """``reason`` made to agree with the calls: ``stop`` with tool calls is ``tool_calls``, and the reverse."""
    return (_WITH_CALLS if has_tool_calls else _WITHOUT_CALLS).get(reason, reason)
