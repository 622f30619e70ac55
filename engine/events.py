"""The engine's event stream: what happened during a run, as typed, JSON-serialisable records.

The TUI log pane, the headless CLI and the JSONL trace are three consumers of this one stream.
Each event has a ``kind`` string fixed by the design (``tool_called``, ``batch_committed``, ...).

Events are frozen, keyword-only msgspec structs used like dataclasses (fields, defaults, equality, repr): defining
the sixteen of them costs ~1 ms at import where frozen dataclasses cost ~15-20 ms (each generates and ``exec``s
its methods), and making one is several times cheaper.

They are one union tagged on ``kind`` (:data:`EngineEventT`): a trace line or a ``--json`` line decodes back into
the very types a run emits (:func:`decode_event`, :func:`event_from_json`). Adding a kind: a struct here with its
``tag``, a member of :data:`EngineEventT`, and its describer in ``tui/event_text.py``.
"""

from __future__ import annotations

import time
from functools import cache
from typing import Any, ClassVar, Literal, get_args

from msgspec import Struct, convert, field, to_builtins
from msgspec.json import Decoder
from msgspec.structs import asdict

from engine.cost import Cost
from engine.summaries import ChunkStatus, EndCode, RunStatus, RunSummary


def _now() -> float:
    return time.time()


class EngineEvent(Struct, frozen=True, kw_only=True, tag_field="kind"):
    """Base of every event: when it happened, which run, which chunk (1-based) where relevant."""

    kind: ClassVar[str] = "event"  # each event's ``tag`` (set below the union)
    run_id: str
    chunk: int | None = None
    ts: float = field(default_factory=_now)

    def to_json(self) -> dict[str, Any]:
        """The event as a mapping for ``json.dumps``: ``{"kind": ..., "run_id": ..., "ts": ..., ...fields}``.

        Field values are JSON data already (tuples dump as lists), so no conversion pass is needed; this
        runs for every event of every run (trace, ``--json``).
        """
        return {"kind": self.kind, **asdict(self)}


class RunStarted(EngineEvent, frozen=True, kw_only=True, tag="run_started"):
    """A run began: which chapter, task, model, and how the work was cut into chunks."""

    chapter_path: str
    chapter_id: str
    task: str
    model: str
    base_url: str
    chunk_count: int
    paragraph_count: int
    prices: dict[str, Any] | None = None  # the profile's prices per million tokens (engine.cost), when set
    apply: bool = True  # False: every submission of the run is stored as a suggestion (--suggest)
    nothing_to_do: str = ""  # why the work set is empty, when it is ("no paragraph has a translation yet")


class ChunkStarted(EngineEvent, frozen=True, kw_only=True, tag="chunk_started"):
    """The loop starts on a chunk; its paragraph IDs are the tools' boundaries."""

    paragraph_ids: tuple[str, ...]
    first_paragraph_id: str
    last_paragraph_id: str
    chunk_count: int
    part: str | None = None  # "3.1", "3.2": a half of chunk 3, after it did not fit the model's context


class ModelRequest(EngineEvent, frozen=True, kw_only=True, tag="model_request"):
    """One chat-completion request is about to be sent.

    ``messages`` holds only the messages this request adds to the chunk's history, from ``first_message`` on: the
    request sends ``message_count`` messages, and the earlier ones were in the chunk's earlier requests (a trace
    stores each message once, not the whole history every turn). With ``bounded`` (every request since the history
    was bounded; False in older traces) the messages before ``first_message`` were sent as
    ``engine.history.sent_history`` shrinks them; the trace keeps them whole.
    """

    turn: int
    message_count: int
    tool_names: tuple[str, ...]
    messages: tuple[dict[str, Any], ...] = ()
    first_message: int = 0
    bounded: bool = False


class ModelDelta(EngineEvent, frozen=True, kw_only=True, tag="model_delta"):
    """Streaming progress: text, reasoning, or tool-argument characters (not persisted in traces)."""

    turn: int
    channel: Literal["text", "reasoning", "tool_arguments"]
    text: str = ""
    tool_name: str | None = None
    chars: int = 0


class ModelResponse(EngineEvent, frozen=True, kw_only=True, tag="model_response"):
    """A whole model response, assembled."""

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
    lifted_from_content: bool = False  # the model wrote its calls as JSON in its text; they were run as calls


class TextSubmission(EngineEvent, frozen=True, kw_only=True, tag="text_submission"):
    """The model answered with ``[ID: …] text`` lines instead of a call: they are submitted, in order, as
    ``add_translation_batch`` (its ``tool_called``/``tool_result``/``batch_committed`` follow)."""

    turn: int
    paragraph_ids: tuple[str, ...]


class ToolCalled(EngineEvent, frozen=True, kw_only=True, tag="tool_called"):
    """The model called a tool: its parsed arguments, or the raw text when they could not be read (then the
    call does not run, and its ``tool_result`` says why)."""

    turn: int
    call_id: str
    name: str
    arguments: Any


class ToolResult(EngineEvent, frozen=True, kw_only=True, tag="tool_result"):
    """What a tool answered (the exact JSON object the model receives)."""

    turn: int
    call_id: str
    name: str
    success: bool
    error_code: str | None
    result: dict[str, Any]


class BatchCommitted(EngineEvent, frozen=True, kw_only=True, tag="batch_committed"):
    """Translations reached the disk durably. ``paragraph_ids`` got a new version each; of them, ``suggested``
    were stored as suggestions for the editor: ``protected`` because the paragraph is a person's (reviewed or
    hand-written), ``kept_selection`` because a person chose another version during the run, the rest because the
    run applies nothing (``--suggest``, a proofread by default)."""

    paragraph_ids: tuple[str, ...]
    file: str = ""  # always given; the default reads a hand-written or damaged trace line without it
    unchanged: tuple[str, ...] = ()
    kept_selection: tuple[str, ...] = ()
    suggested: tuple[str, ...] = ()
    protected: tuple[str, ...] = ()


class Reminder(EngineEvent, frozen=True, kw_only=True, tag="reminder"):
    """The model answered without finishing; it is reminded of the missing paragraph IDs."""

    turn: int
    missing: tuple[str, ...]
    number: int


class Retry(EngineEvent, frozen=True, kw_only=True, tag="retry"):
    """A request is retried after a transient failure."""

    attempt: int
    reason: str
    delay: float


class ErrorEvent(EngineEvent, frozen=True, kw_only=True, tag="error"):
    """Something went wrong; ``fatal`` ends the run."""

    message: str
    code: str | None = None
    fatal: bool = False
    error: dict[str, Any] | None = None  # the structured model failure, when a request failed


class ChunkFinished(EngineEvent, frozen=True, kw_only=True, tag="chunk_finished"):
    """A chunk ended: ``complete``, ``incomplete`` (with the missing IDs), ``failed``, ``cancelled``, or ``split``
    (it did not fit the model's context, or two turns were cut off: two halves of what it left without a submission
    follow as parts)."""

    status: ChunkStatus
    missing: tuple[str, ...]
    turns: int
    tool_calls: int
    tool_errors: dict[str, int]
    usage: dict[str, int]
    wall_ms: float
    end_code: EndCode | None = None  # why an unfinished chunk ended: CONTEXT_OVERFLOW, OUTPUT_LIMIT, NO_PROGRESS, ...
    part: str | None = None
    error: str | None = None
    cost: Cost | None = None  # engine.cost.cost_of(usage), when the profile sets prices


class SessionStarted(EngineEvent, frozen=True, kw_only=True, tag="session_started"):
    """An MCP client began a session (``proofdesk mcp``): who it is (``clientInfo``) and the workspace it works
    on. Its tool calls follow as ``tool_called``/``tool_result`` (``turn`` numbers the calls, ``chunk`` is the open
    chunk's index), then ``session_finished``; ``run_id`` names the session."""

    client: str
    client_version: str | None = None
    workspace: str = ""


class SessionFinished(EngineEvent, frozen=True, kw_only=True, tag="session_finished"):
    """An MCP session ended (the client closed the connection): its calls and their error codes, counted."""

    tool_calls: int
    tool_errors: dict[str, int] = field(default_factory=dict)


class RunFinished(EngineEvent, frozen=True, kw_only=True, tag="run_finished"):
    """A run ended; ``summary`` holds per-chunk results, totals, tokens (``usage``), ``cost`` and timings."""

    status: RunStatus
    summary: RunSummary

    def to_json(self) -> dict[str, Any]:
        """The event as a mapping for ``json.dumps``, the summary as a JSON object."""
        return {"kind": self.kind, **asdict(self), "summary": to_builtins(self.summary)}


EngineEventT = (
    RunStarted
    | ChunkStarted
    | ModelRequest
    | ModelDelta
    | ModelResponse
    | TextSubmission
    | ToolCalled
    | ToolResult
    | BatchCommitted
    | Reminder
    | Retry
    | ErrorEvent
    | ChunkFinished
    | RunFinished
    | SessionStarted
    | SessionFinished
)
"""Every event a run emits, one union tagged on ``kind``."""

EVENT_TYPES: dict[str, type[EngineEvent]] = {}
for _type in get_args(EngineEventT):
    _type.kind = _type.__struct_config__.tag  # the tag is the kind: written once, in the class statement
    EVENT_TYPES[_type.kind] = _type


@cache
def _decoder() -> Decoder[EngineEventT]:
    return Decoder(EngineEventT)


def decode_event(line: bytes | str) -> EngineEventT:
    """The event of one JSON line (a trace's, ``run --json``'s); raises ``msgspec.DecodeError`` (or its subclass
    ``ValidationError``) when the line is not JSON or not an event of a known kind with fields of their types."""
    return _decoder().decode(line)


def event_from_json(data: object) -> EngineEventT:
    """The event of a JSON object already parsed; raises ``msgspec.ValidationError`` like :func:`decode_event`."""
    return convert(data, EngineEventT)
