"""Normalising ``finish_reason``: the five values the engine reasons about, from whatever a server sends.

Compatible servers and proxies pass through native values (Anthropic ``end_turn``, Gemini ``MAX_TOKENS``/``SAFETY``,
Together ``eos``, watsonx ``eos_token``, DeepSeek ``insufficient_system_resource`` ...). The mapping below follows
litellm's ``_FINISH_REASON_MAP`` plus the wire guide's table.
"""

from __future__ import annotations

from typing import Literal

FinishReason = Literal["stop", "tool_calls", "length", "content_filter", "error"]

_MAP: dict[str, FinishReason] = {}
for _reason, _names in {
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
}.items():
    for _name in _names:
        _MAP[_name] = _reason  # type: ignore[assignment]


def normalise_finish_reason(raw: str | None, *, has_tool_calls: bool) -> FinishReason:
    """The engine's finish reason for a server's ``raw`` value.

    ``stop`` with tool calls means tool calls (Gemini's compat layer, old Ollama); ``length`` stays ``length`` even
    with tool calls, because their arguments may be cut. A missing value is ``error`` (the stream was truncated).
    An unknown value is taken as a normal end (``stop`` or ``tool_calls``): the raw value is kept for the trace.
    """
    if raw is None:
        return "error"
    reason = _MAP.get(raw.strip().lower())
    if reason is None:
        reason = "stop"
    if reason == "stop" and has_tool_calls:
        return "tool_calls"
    if reason == "tool_calls" and not has_tool_calls:
        return "stop"
    return reason
