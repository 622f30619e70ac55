"""The engine's event stream: what happened during a run, as typed, JSON-serialisable records.

The TUI log pane, the headless CLI and the JSONL trace are three consumers of this one stream.
Each event has a ``kind`` string fixed by the design (``tool_called``, ``batch_committed``, ...).

Events are frozen, keyword-only msgspec structs used like dataclasses (fields, defaults, equality, repr): defining
the thirteen of them costs ~1 ms at import where frozen dataclasses cost ~15-20 ms (each generates and ``exec``s
its methods), and making one is several times cheaper.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from msgspec import Struct, field
from msgspec.structs import asdict


def _now() -> float:
    return time.time()


class EngineEvent(Struct, frozen=True, kw_only=True):
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
        return {"kind": self.kind, **asdict(self)}


class RunStarted(EngineEvent, frozen=True, kw_only=True):
    """A run began: which chapter, task, model, and how the work was cut into chunks."""

    kind: ClassVar[str] = "run_started"
    chapter_path: str
    chapter_id: str
    task: str
    model: str
    base_url: str
    chunk_count: int
    paragraph_count: int
    prices: dict[str, Any] | None = None  # the profile's prices per million tokens (engine.cost), when set


class ChunkStarted(EngineEvent, frozen=True, kw_only=True):
    """The loop starts on a chunk; its paragraph IDs are the tools' boundaries."""

    kind: ClassVar[str] = "chunk_started"
    paragraph_ids: tuple[str, ...]
    first_paragraph_id: str
    last_paragraph_id: str
    chunk_count: int
    part: str | None = None  # "3.1", "3.2": a half of chunk 3, after it did not fit the model's context


class ModelRequest(EngineEvent, frozen=True, kw_only=True):
    """One chat-completion request is about to be sent.

    ``messages`` holds only the messages this request adds to the chunk's history, from ``first_message`` on: the
    request sends ``message_count`` messages, and the earlier ones were in the chunk's earlier requests (a trace
    stores each message once, not the whole history every turn).
    """

    kind: ClassVar[str] = "model_request"
    turn: int
    message_count: int
    tool_names: tuple[str, ...]
    messages: tuple[dict[str, Any], ...] = ()
    first_message: int = 0


class ModelDelta(EngineEvent, frozen=True, kw_only=True):
    """Streaming progress: text, reasoning, or tool-argument characters (not persisted in traces)."""

    kind: ClassVar[str] = "model_delta"
    turn: int
    channel: str  # "text" | "reasoning" | "tool_arguments"
    text: str = ""
    tool_name: str | None = None
    chars: int = 0


class ModelResponse(EngineEvent, frozen=True, kw_only=True):
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


class ToolCalled(EngineEvent, frozen=True, kw_only=True):
    """The model called a tool: its parsed arguments, or the raw text when they could not be read (then the
    call does not run, and its ``tool_result`` says why)."""

    kind: ClassVar[str] = "tool_called"
    turn: int
    call_id: str
    name: str
    arguments: Any


class ToolResult(EngineEvent, frozen=True, kw_only=True):
    """What a tool answered (the exact JSON object the model receives)."""

    kind: ClassVar[str] = "tool_result"
    turn: int
    call_id: str
    name: str
    success: bool
    error_code: str | None
    result: dict[str, Any]


class BatchCommitted(EngineEvent, frozen=True, kw_only=True):
    """Translations reached the disk durably."""

    kind: ClassVar[str] = "batch_committed"
    paragraph_ids: tuple[str, ...]
    file: str
    unchanged: tuple[str, ...] = ()
    kept_selection: tuple[str, ...] = ()


class Reminder(EngineEvent, frozen=True, kw_only=True):
    """The model answered without finishing; it is reminded of the missing paragraph IDs."""

    kind: ClassVar[str] = "reminder"
    turn: int
    missing: tuple[str, ...]
    number: int


class Retry(EngineEvent, frozen=True, kw_only=True):
    """A request is retried after a transient failure."""

    kind: ClassVar[str] = "retry"
    attempt: int
    reason: str
    delay: float


class ErrorEvent(EngineEvent, frozen=True, kw_only=True):
    """Something went wrong; ``fatal`` ends the run."""

    kind: ClassVar[str] = "error"
    message: str
    code: str | None = None
    fatal: bool = False
    error: dict[str, Any] | None = None  # the structured model failure, when a request failed


class ChunkFinished(EngineEvent, frozen=True, kw_only=True):
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
    cost: dict[str, Any] | None = None  # engine.cost.cost_of(usage), when the profile sets prices


class RunFinished(EngineEvent, frozen=True, kw_only=True):
    """A run ended; ``summary`` holds per-chunk results, totals, tokens (``usage``), ``cost`` and timings."""

    kind: ClassVar[str] = "run_finished"
    status: str  # "complete" | "incomplete" | "failed" | "cancelled"
    summary: dict[str, Any]


EVENT_TYPES: dict[str, type[EngineEvent]] = {
    cls.kind: cls
    for cls in (
        RunStarted,
        ChunkStarted,
        ModelRequest,
        ModelDelta,
        ModelResponse,
        ToolCalled,
        ToolResult,
        BatchCommitted,
        Reminder,
        Retry,
        ErrorEvent,
        ChunkFinished,
        RunFinished,
    )
}
