"""What ``ModelClient.stream`` yields: deltas as they arrive, retries, and the final assembled response."""

from __future__ import annotations

from dataclasses import dataclass

from engine.client.response import AssembledResponse


@dataclass(frozen=True, slots=True)
class TextDelta:
    """Visible answer text (``<think>`` spans excluded)."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """Reasoning text: ``reasoning_content``/``reasoning`` fields or the inside of ``<think>`` spans."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallProgress:
    """Arguments of tool call ``index`` (0-based, in arrival order) have grown to ``chars`` characters."""

    index: int
    name: str
    chars: int


@dataclass(frozen=True, slots=True)
class RetryScheduled:
    """The request failed before any output; attempt ``attempt`` (1 = first retry) follows after ``delay_s``."""

    attempt: int
    reason: str
    delay_s: float


@dataclass(frozen=True, slots=True)
class Completed:
    """The stream ended (normally, by an in-stream error, or truncated); always the last event."""

    response: AssembledResponse


StreamEvent = TextDelta | ReasoningDelta | ToolCallProgress | RetryScheduled | Completed
