"""What ``ModelClient.stream`` yields: deltas as they arrive, retries, and the final assembled response.

Immutable msgspec structs: one is made for nearly every streamed chunk, and a struct costs a tenth of a frozen
dataclass to make (and to define, at import).
"""

from __future__ import annotations

from msgspec import Struct

from engine.client.response import AssembledResponse


class TextDelta(Struct, frozen=True, gc=False):
    """Visible answer text (``<think>`` spans excluded)."""

    text: str


class ReasoningDelta(Struct, frozen=True, gc=False):
    """Reasoning text: ``reasoning_content``/``reasoning`` fields or the inside of ``<think>`` spans."""

    text: str


class ToolCallProgress(Struct, frozen=True, gc=False):
    """Arguments of tool call ``index`` (0-based, in arrival order) have grown to ``chars`` characters."""

    index: int
    name: str
    chars: int


class RetryScheduled(Struct, frozen=True, gc=False):
    """The request failed before any output; attempt ``attempt`` (1 = first retry) follows after ``delay_s``."""

    attempt: int
    reason: str
    delay_s: float


class Completed(Struct, frozen=True, gc=False):
    """The stream ended (normally, by an in-stream error, or truncated); always the last event."""

    response: AssembledResponse


StreamEvent = TextDelta | ReasoningDelta | ToolCallProgress | RetryScheduled | Completed
