"""The engine's event stream: what happened during a run, as typed, JSON-serialisable dataclasses.

The TUI log pane, the headless CLI and the JSONL trace are three consumers of this one stream.
Each event has a ``kind`` string fixed by the design (``tool_called``, ``batch_committed``, ...).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, ClassVar


def _now() -> float:
    return time.time()


@dataclass(frozen=True, kw_only=True)
class EngineEvent:
    """Base of every event: when it happened, which run, which chunk (1-based) where relevant."""

    kind: ClassVar[str] = "event"
    run_id: str
    chunk: int | None = None
    ts: float = field(default_factory=_now)

    def to_json(self) -> dict[str, Any]:
        """The event as a mapping for ``json.dumps``: ``{"kind": ..., "run_id": ..., "ts": ..., ...fields}``.

        Field values are JSON data already (tuples dump as lists), so no conversion pass is needed; this
        runs for every event of every run (trace, ``--json``).
        """
        return {"kind": self.kind, **self.__dict__}


@dataclass(frozen=True, kw_only=True)
class RunStarted(EngineEvent):
    """A run began: which chapter, task, model, and how the work was cut into chunks."""

    kind: ClassVar[str] = "run_started"
    chapter_path: str
    chapter_id: str
    task: str
    model: str
    base_url: str
    chunk_count: int
    paragraph_count: int


@dataclass(frozen=True, kw_only=True)
class ChunkStarted(EngineEvent):
    """The loop starts on a chunk; its paragraph IDs are the tools' boundaries."""

    kind: ClassVar[str] = "chunk_started"
    paragraph_ids: tuple[str, ...]
    first_paragraph_id: str
    last_paragraph_id: str
    chunk_count: int
    part: str | None = None  # "3.1", "3.2": a half of chunk 3, after it did not fit the model's context


@dataclass(frozen=True, kw_only=True)
class ModelRequest(EngineEvent):
    """One chat-completion request is about to be sent (``messages`` only in traces, once per turn)."""

    kind: ClassVar[str] = "model_request"
    turn: int
    message_count: int
    tool_names: tuple[str, ...]
    messages: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, kw_only=True)
class ModelDelta(EngineEvent):
    """Streaming progress: text, reasoning, or tool-argument characters (not persisted in traces)."""

    kind: ClassVar[str] = "model_delta"
    turn: int
    channel: str  # "text" | "reasoning" | "tool_arguments"
    text: str = ""
    tool_name: str | None = None
    chars: int = 0


@dataclass(frozen=True, kw_only=True)
class ModelResponse(EngineEvent):
    """A whole model response, assembled."""

    kind: ClassVar[str] = "model_response"
    turn: int
    content: str
    reasoning: str
    tool_calls: tuple[dict[str, Any], ...]
    finish_reason: str
    usage: dict[str, int] | None
    latency_ms: float
    error: str | None = None
    finish_reason_raw: str | None = None
    failure: dict[str, Any] | None = None  # {message, type, code, retryable, retry_after_s} when it ended in error
    attempts: int = 1  # requests made for this response (retries included)
    expanded_tool_calls: tuple[dict[str, Any], ...] = ()  # the calls run in place of a multi_tool_use.parallel


@dataclass(frozen=True, kw_only=True)
class ToolCalled(EngineEvent):
    """The model called a tool: its parsed arguments, or the raw text when they could not be read (then the
    call does not run, and its ``tool_result`` says why)."""

    kind: ClassVar[str] = "tool_called"
    turn: int
    call_id: str
    name: str
    arguments: Any


@dataclass(frozen=True, kw_only=True)
class ToolResult(EngineEvent):
    """What a tool answered (the exact JSON object the model receives)."""

    kind: ClassVar[str] = "tool_result"
    turn: int
    call_id: str
    name: str
    success: bool
    error_code: str | None
    result: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class BatchCommitted(EngineEvent):
    """Translations reached the disk durably."""

    kind: ClassVar[str] = "batch_committed"
    paragraph_ids: tuple[str, ...]
    file: str
    unchanged: tuple[str, ...] = ()
    kept_selection: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Reminder(EngineEvent):
    """The model answered without finishing; it is reminded of the missing paragraph IDs."""

    kind: ClassVar[str] = "reminder"
    turn: int
    missing: tuple[str, ...]
    number: int


@dataclass(frozen=True, kw_only=True)
class Retry(EngineEvent):
    """A request is retried after a transient failure."""

    kind: ClassVar[str] = "retry"
    attempt: int
    reason: str
    delay: float


@dataclass(frozen=True, kw_only=True)
class ErrorEvent(EngineEvent):
    """Something went wrong; ``fatal`` ends the run."""

    kind: ClassVar[str] = "error"
    message: str
    code: str | None = None
    fatal: bool = False
    error: dict[str, Any] | None = None  # the structured model failure, when a request failed


@dataclass(frozen=True, kw_only=True)
class ChunkFinished(EngineEvent):
    """A chunk ended: ``complete``, ``incomplete`` (with the missing IDs), ``failed``, ``cancelled``, or ``split``
    (it did not fit the model's context; its two halves follow as parts)."""

    kind: ClassVar[str] = "chunk_finished"
    status: str
    missing: tuple[str, ...]
    turns: int
    tool_calls: int
    tool_errors: dict[str, int]
    usage: dict[str, int]
    wall_ms: float
    end_code: str | None = None  # why an unfinished chunk ended: CONTEXT_OVERFLOW, OUTPUT_LIMIT, NO_PROGRESS, ...
    part: str | None = None
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class RunFinished(EngineEvent):
    """A run ended; ``summary`` holds per-chunk results, totals, tokens and timings."""

    kind: ClassVar[str] = "run_finished"
    status: str  # "complete" | "incomplete" | "failed" | "cancelled"
    summary: dict[str, Any]


EVENT_TYPES: dict[str, type[EngineEvent]] = {
    cls.kind: cls
    for cls in (RunStarted, ChunkStarted, ModelRequest, ModelDelta, ModelResponse, ToolCalled, ToolResult,
                BatchCommitted, Reminder, Retry, ErrorEvent, ChunkFinished, RunFinished)
}
