"""What each engine event says to a person: one describer per event kind, for every place that shows events.

A describer gives the words and a style name (a :data:`Level`, never a Rich style) of its kind for the log pane
(:meth:`Describer.log`: the one line, the whole text, the copy), the trace inspector (:meth:`Describer.step`: the
step's title and group) and the headless CLI's progress (:meth:`Describer.progress`). A new kind of event is a
member of ``engine.events.EngineEventT`` and a describer here, registered in :data:`DESCRIBERS`; the log pane, the
inspector and the CLI need nothing more (``tests/tui/test_event_text.py`` checks every kind has one).

Pure and light: no Textual, no Rich, so ``proofdesk run`` words its progress without importing either. The words
are the text as it is; whoever draws them escapes control characters (``tui.terminal_text.visible``).
"""

from __future__ import annotations

from collections.abc import Set
from typing import Any, Generic, Literal, Protocol, TypeVar

from msgspec import Struct

from engine.counted import counted
from engine.events import (
    BatchCommitted,
    ChunkFinished,
    ChunkStarted,
    EngineEvent,
    ErrorEvent,
    ModelDelta,
    ModelRequest,
    ModelResponse,
    Reminder,
    Retry,
    RunFinished,
    RunStarted,
    SessionFinished,
    SessionStarted,
    TextSubmission,
    ToolCalled,
    ToolResult,
)
from tui.event_words import already, commit_summary, first_line, ids_line, pretty, short_arguments, spent, when

Level = Literal["info", "muted", "ok", "accent", "warning", "error"]
LEVELS: tuple[Level, ...] = ("info", "muted", "ok", "accent", "warning", "error")

# How a chunk or a run that ended reads: a cancel, a split or a chapter busy with another run is not a failure, so
# not in the errors-only view.
_END_LEVELS: dict[str, Level] = {"complete": "ok", "cancelled": "warning", "split": "warning", "busy": "warning"}

StepKind = Literal[
    "run", "chunk", "turn", "text_answer", "tool", "commit", "reminder", "retry", "error", "chunk_end", "run_end"
]


class Words(Struct, frozen=True):
    """An event in the log pane: its style, its one line, its whole text, and the copy when it is not the event's
    JSON."""

    level: Level
    line: str
    detail: str
    copy: str | None = None


class StepWords(Struct, frozen=True):
    """An event as a step of the trace inspector: its group, title, and whether ``n``/``N`` stop at it."""

    kind: StepKind
    title: str
    is_error: bool = False
    error_code: str | None = None
    tool: str | None = None


class RunTally(Protocol):
    """What the CLI's progress knows of a run besides the event: its counters so far."""

    chunks: int
    total: int
    errors: int

    @property
    def done(self) -> Set[str]: ...

    def spent(self, short: bool = True) -> str: ...


E = TypeVar("E", bound=EngineEvent, contravariant=True)


class Describer(Generic[E]):
    """The words of one kind of event."""

    # A plain base rather than an ABC, and msgspec structs for the words (a dataclass generates and compiles its
    # methods): this module is imported by every run.

    def log(self, event: E) -> Words | None:
        """The event's entry in the log pane, or None when it is none."""
        raise NotImplementedError

    def step(self, event: E) -> StepWords | None:
        """The event as a step of the trace inspector, or None when it is none."""
        raise NotImplementedError

    def progress(self, event: E, run: RunTally) -> tuple[Level, str] | None:
        """A line of the CLI's progress (after the chapter's name) and its style, or None (most kinds)."""
        return None


# -- one describer per kind -------------------------------------------------------------------------------------


_SUGGEST_ONLY = " · suggestions only"


class _RunStarted(Describer[RunStarted]):
    def log(self, event: RunStarted) -> Words:
        line = (
            f"▶ {event.task} {event.chapter_id} · model {event.model} · {counted(event.chunk_count, 'chunk')} · "
            f"{counted(event.paragraph_count, 'paragraph')}"
            + when(not event.apply, _SUGGEST_ONLY)
            + when(event.nothing_to_do, f" · nothing to {event.task}: {event.nothing_to_do}")
        )
        return Words("accent", line, f"{line}\nfile: {event.chapter_path}\nserver: {event.base_url}")

    def step(self, event: RunStarted) -> StepWords:
        return StepWords(
            "run",
            f"run {event.task} · {event.model} · {counted(event.chunk_count, 'chunk')}"
            + when(not event.apply, _SUGGEST_ONLY),
        )

    def progress(self, event: RunStarted, run: RunTally) -> tuple[Level, str]:
        if event.nothing_to_do:
            return "warning", f"{event.task} with {event.model}: nothing to {event.task}: {event.nothing_to_do}"
        return "accent", (
            f"{event.task} with {event.model}: {counted(event.paragraph_count, 'paragraph')} in "
            f"{counted(event.chunk_count, 'chunk')}" + when(not event.apply, _SUGGEST_ONLY)
        )


class _ChunkStarted(Describer[ChunkStarted]):
    def log(self, event: ChunkStarted) -> Words:
        line = (
            f"── chunk {event.part or event.chunk}/{event.chunk_count} · "
            f"{counted(len(event.paragraph_ids), 'paragraph')} · "
            f"{event.first_paragraph_id}…{event.last_paragraph_id}"
        )
        return Words("accent", line, line + ids_line("paragraphs", event.paragraph_ids))

    def step(self, event: ChunkStarted) -> StepWords:
        size = counted(len(event.paragraph_ids), "paragraph")
        return StepWords("chunk", f"chunk {event.chunk}/{event.chunk_count} · {size}")


class _ModelRequest(Describer[ModelRequest]):
    def log(self, event: ModelRequest) -> Words:
        line = f"→ turn {event.turn} · {counted(event.message_count, 'message')}"
        return Words("muted", line, line + ids_line("tools", event.tool_names))

    def step(self, event: ModelRequest) -> StepWords:
        return StepWords("turn", f"turn {event.turn} · no answer")


class _ModelDelta(Describer[ModelDelta]):
    """Deltas are no entry and no step: the log pane folds them into its one current-output line."""

    def log(self, event: ModelDelta) -> None:
        return None

    def step(self, event: ModelDelta) -> None:
        return None


class _ModelResponse(Describer[ModelResponse]):
    def log(self, event: ModelResponse) -> Words | None:
        tokens = event.usage.get("total_tokens") if event.usage else None
        facts = f"\nfinish: {event.finish_reason} · {event.latency_ms:.0f} ms" + when(
            tokens is not None, f" · {tokens} tokens"
        )
        if event.error:
            return Words("error", f"✗ model error: {first_line(event.error)}", f"✗ model error: {event.error}{facts}")
        if not event.content.strip():
            return None  # its calls and their results are entries of their own
        thinking = when(event.reasoning.strip(), f"\nthinking: {event.reasoning}")
        return Words(
            "info", f"model: {first_line(event.content)}", f"model: {event.content}{thinking}{facts}", event.content
        )

    def step(self, event: ModelResponse) -> StepWords:
        return StepWords("turn", f"turn {event.turn} · {self._answer(event)}", is_error=bool(event.error))

    @staticmethod
    def _answer(event: ModelResponse) -> str:
        calls = event.tool_calls
        if event.error:
            return "model error"
        if not calls:
            return "text answer"
        names = ", ".join(str(c.get("name", "?")) for c in calls[:2]) + when(len(calls) > 2, " …")
        return f"{counted(len(calls), 'call')}{when(event.lifted_from_content, ' written as text')}: {names}"


class _TextSubmission(Describer[TextSubmission]):
    def log(self, event: TextSubmission) -> Words:
        ids = event.paragraph_ids
        line = (
            f"✎ text answer: {counted(len(ids), 'paragraph')} submitted as add_translation_batch: "
            f"{', '.join(ids[:4])}{when(len(ids) > 4, ' …')}"
        )
        return Words("accent", line, line + ids_line("paragraphs", ids))

    def step(self, event: TextSubmission) -> StepWords:
        return StepWords("text_answer", f"text answer: {counted(len(event.paragraph_ids), 'paragraph')} submitted")


class _ToolCalled(Describer[ToolCalled]):
    def log(self, event: ToolCalled) -> Words:
        line = f"⚙ {event.name}({short_arguments(event.name, event.arguments)})"
        arguments = event.arguments if isinstance(event.arguments, str) else pretty(event.arguments)
        return Words("info", line, f"⚙ {event.name}\n{arguments}")

    def step(self, event: ToolCalled) -> StepWords:
        return StepWords("tool", f"{event.name}({short_arguments(event.name, event.arguments)})", tool=event.name)


class _ToolResult(Describer[ToolResult]):
    def log(self, event: ToolResult) -> Words:
        return self._success(event) if event.success else self._failure(event)

    @staticmethod
    def _success(event: ToolResult) -> Words:
        extra = f" · {_batch_result(event.result)}" if event.name == "add_translation_batch" else ""
        line = f"  ✓ {event.name}{extra}"
        return Words("ok", line, f"{line.strip()}\n{pretty(event.result)}")

    @staticmethod
    def _failure(event: ToolResult) -> Words:
        result = event.result
        message = str(result.get("error", ""))
        head = f"  ✗ {event.error_code or 'ERROR'} {event.name}: "
        rest = {k: v for k, v in result.items() if k not in ("success", "error", "error_code", "hint")}
        hint = when(result.get("hint"), f"\nhint: {result.get('hint')}")
        detail = head.strip() + " " + message + hint + when(rest, f"\n{pretty(rest)}")
        return Words("error", head + first_line(message), detail)

    def step(self, event: ToolResult) -> StepWords:
        """A result without its call (the call's step takes :meth:`mark` in front of its title instead)."""
        return StepWords("tool", self.mark(event) + event.name, not event.success, self.code(event), event.name)

    @staticmethod
    def code(event: ToolResult) -> str | None:
        """The error code a failed call shows (``ERROR`` when it gave none)."""
        return None if event.success else event.error_code or "ERROR"

    def mark(self, event: ToolResult) -> str:
        """``✓ `` or ``✗ CODE · ``, put in front of the call's title."""
        return "✓ " if event.success else f"✗ {self.code(event)} · "


def _batch_result(result: dict[str, Any]) -> str:
    """The tool result of ``add_translation_batch`` in words (the model's submissions that were accepted and
    those identical to the text already there)."""
    accepted, unchanged = result.get("accepted"), result.get("unchanged")
    accepted = accepted if isinstance(accepted, list) else []
    unchanged = unchanged if isinstance(unchanged, list) else []
    if not accepted:
        return commit_summary((), unchanged)
    suggested = result.get("suggested")
    as_suggestions = f" · {len(suggested)} as suggestions" if isinstance(suggested, list) and suggested else ""
    return f"{counted(len(accepted), 'paragraph')} accepted" + as_suggestions + already(unchanged)


def _suggestions(event: BatchCommitted) -> str:
    """`` · 2 as suggestions (1 the editor's text)``: how many new versions wait for the editor, and how many of
    them because the paragraph is a person's (reviewed or hand-written)."""
    if not event.suggested:
        return ""
    mine = f" ({len(event.protected)} the editor's text)" if event.protected else ""
    return f" · {len(event.suggested)} as suggestions{mine}"


def _suggest_modeids_line(event: BatchCommitted) -> tuple[str, ...]:
    """The suggestions made only because the run applies nothing (not a person's paragraph, no kept selection)."""
    other = set(event.protected) | set(event.kept_selection)
    return tuple(pid for pid in event.suggested if pid not in other)


class _BatchCommitted(Describer[BatchCommitted]):
    def log(self, event: BatchCommitted) -> Words:
        line = (
            self._line(event)
            + _suggestions(event)
            + when(event.kept_selection, f" · your selection kept for {len(event.kept_selection)}")
        )
        detail = (
            line
            + ids_line("committed", event.paragraph_ids)
            + ids_line("already had this text", event.unchanged)
            + ids_line("suggestions, as the paragraph is reviewed or written by hand", event.protected)
            + ids_line("suggestions, as the run applies nothing", _suggest_modeids_line(event))
            + ids_line("your selection kept (the new text is a suggestion)", event.kept_selection)
            + f"\nfile: {event.file}"
        )
        return Words("ok" if event.paragraph_ids else "muted", line, detail)

    @staticmethod
    def _line(event: BatchCommitted) -> str:
        if not event.paragraph_ids:  # nothing reached the file (older engines reported such batches too)
            return "○ " + commit_summary((), event.unchanged)
        name = event.file.rsplit("/", 1)[-1]
        return f"✔ committed {counted(len(event.paragraph_ids), 'paragraph')} to {name}" + already(event.unchanged)

    def step(self, event: BatchCommitted) -> StepWords:
        return StepWords("commit", commit_summary(event.paragraph_ids, event.unchanged) + _suggestions(event))


class _Reminder(Describer[Reminder]):
    def log(self, event: Reminder) -> Words:
        line = (
            f"! reminder {event.number}: {counted(len(event.missing), 'paragraph')} missing: "
            f"{', '.join(event.missing[:4])}{when(len(event.missing) > 4, ' …')}"
        )
        return Words("warning", line, line + ids_line("missing", event.missing))

    def step(self, event: Reminder) -> StepWords:
        return StepWords("reminder", f"reminder {event.number}: {len(event.missing)} missing")

    def progress(self, event: Reminder, run: RunTally) -> tuple[Level, str]:
        return (
            "warning",
            f"chunk {event.chunk}: reminded the model of {counted(len(event.missing), 'missing paragraph')}",
        )


class _Retry(Describer[Retry]):
    def log(self, event: Retry) -> Words:
        head = f"↻ retry {event.attempt} in {event.delay:.1f} s: "
        return Words("warning", head + first_line(event.reason), head + event.reason)

    def step(self, event: Retry) -> StepWords:
        return StepWords("retry", f"retry {event.attempt}: {event.reason}")

    def progress(self, event: Retry, run: RunTally) -> tuple[Level, str]:
        return "warning", f"retry {event.attempt} in {event.delay:.1f} s ({event.reason})"


class _Error(Describer[ErrorEvent]):
    def log(self, event: ErrorEvent) -> Words:
        head = f"✗ {event.code} " if event.code else "✗ "
        detail = head + event.message + when(event.error, f"\n{pretty(event.error)}")
        return Words("error", head + first_line(event.message), detail)

    def step(self, event: ErrorEvent) -> StepWords:
        title = f"✗ {event.code or 'error'}: {event.message}"
        return StepWords("error", title, is_error=True, error_code=event.code)

    def progress(self, event: ErrorEvent, run: RunTally) -> tuple[Level, str]:
        return "error", f"error: {event.message}"


class _ChunkFinished(Describer[ChunkFinished]):
    def log(self, event: ChunkFinished) -> Words:
        errors = ", ".join(f"{code}×{n}" for code, n in sorted(event.tool_errors.items()))
        line = (
            f"■ chunk {event.part or event.chunk} {event.status} · {counted(event.turns, 'turn')} · "
            f"{counted(event.tool_calls, 'tool call')}"
            + when(errors, f" · errors {errors}")
            + when(event.missing, f" · missing {len(event.missing)}")
        )
        detail = (
            line
            + when(event.end_code, f"\nwhy: {event.end_code}")
            + when(event.error, f"\nerror: {event.error}")
            + ids_line("missing", event.missing)
            + when(event.usage, f"\ntokens: {pretty(event.usage)}")
        )
        return Words(_END_LEVELS.get(event.status, "error"), line, detail)

    def step(self, event: ChunkFinished) -> StepWords:
        title = f"chunk {event.chunk} {event.status}{spent(event.usage, event.cost)}"
        return StepWords("chunk_end", title, is_error=event.status != "complete")

    def progress(self, event: ChunkFinished, run: RunTally) -> tuple[Level, str]:
        missing = when(event.missing, f" · missing {', '.join(event.missing)}")
        return "info", (
            f"chunk {event.part or event.chunk}/{run.chunks} {event.status} · "
            f"{len(run.done)}/{run.total} paragraphs · {run.spent()} · {run.errors} tool errors{missing}"
        )


class _RunFinished(Describer[RunFinished]):
    def log(self, event: RunFinished) -> Words:
        line = f"■ run {event.status}"
        return Words(_END_LEVELS.get(event.status, "error"), line, f"{line}\n{pretty(event.summary.to_json())}")

    def step(self, event: RunFinished) -> StepWords:
        title = f"run {event.status}{spent(event.summary.usage, event.summary.cost)}"
        return StepWords("run_end", title, is_error=event.status != "complete")


class _SessionStarted(Describer[SessionStarted]):
    def log(self, event: SessionStarted) -> Words:
        line = f"▶ MCP session · client {event.client}" + when(event.client_version, f" {event.client_version}")
        return Words("accent", line, f"{line}\nworkspace: {event.workspace}")

    def step(self, event: SessionStarted) -> StepWords:
        return StepWords("run", f"MCP session · {event.client}")


class _SessionFinished(Describer[SessionFinished]):
    def log(self, event: SessionFinished) -> Words:
        errors = ", ".join(f"{code}×{n}" for code, n in sorted(event.tool_errors.items()))
        line = f"■ MCP session ended · {counted(event.tool_calls, 'tool call')}" + when(errors, f" · errors {errors}")
        return Words("ok", line, line)

    def step(self, event: SessionFinished) -> StepWords:
        return StepWords("run_end", f"MCP session ended · {counted(event.tool_calls, 'tool call')}")


# The inspector completes a step with a later event: a turn's title with its answer, a call's with its result.
MODEL_RESPONSE = _ModelResponse()
TOOL_RESULT = _ToolResult()

DESCRIBERS: dict[type[EngineEvent], Describer[Any]] = {
    RunStarted: _RunStarted(),
    ChunkStarted: _ChunkStarted(),
    ModelRequest: _ModelRequest(),
    ModelDelta: _ModelDelta(),
    ModelResponse: MODEL_RESPONSE,
    TextSubmission: _TextSubmission(),
    ToolCalled: _ToolCalled(),
    ToolResult: TOOL_RESULT,
    BatchCommitted: _BatchCommitted(),
    Reminder: _Reminder(),
    Retry: _Retry(),
    ErrorEvent: _Error(),
    ChunkFinished: _ChunkFinished(),
    RunFinished: _RunFinished(),
    SessionStarted: _SessionStarted(),
    SessionFinished: _SessionFinished(),
}
"""The describer of every kind of event (``engine.events.EngineEventT``), by its type."""


def describer(event: EngineEvent) -> Describer[Any]:
    """The describer of ``event``'s kind."""
    return DESCRIBERS[type(event)]
