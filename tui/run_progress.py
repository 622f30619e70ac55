"""Progress of headless runs on stderr: a live bar on a terminal, plain lines otherwise, and a summary."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from engine.cost import Prices, cost_of
from engine.counted import counted
from engine.events import (
    BatchCommitted,
    ChunkFinished,
    EngineEvent,
    ErrorEvent,
    ModelResponse,
    Reminder,
    Retry,
    RunStarted,
    ToolResult,
)
from tui.terminal_text import visible
from tui.usage_text import usage_text


@dataclass
class _RunState:
    name: str
    total: int = 0
    done: set[str] = field(default_factory=set)
    usage: Counter[str] = field(default_factory=Counter)  # every response's tokens so far (retries included)
    prices: Prices | None = None
    errors: int = 0
    chunks: int = 0

    @property
    def tokens(self) -> int:
        """Tokens used so far."""
        return self.usage["total_tokens"]

    def spent(self, short: bool = True) -> str:
        """Tokens, cache share and cost so far, in words."""
        return usage_text(self.usage, cost_of(self.usage, self.prices), short=short)


class ProgressView:
    """Tracks paragraphs done / total, tokens and errors per run; subclasses decide how to show them."""

    def __init__(self) -> None:
        self.runs: dict[str, _RunState] = {}

    def __enter__(self) -> ProgressView:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, event: EngineEvent) -> None:
        """Fold one event into the counters and show what changed."""
        state = self.runs.get(event.run_id)
        if isinstance(event, RunStarted):
            state = self.runs[event.run_id] = _RunState(
                Path(event.chapter_path).name,
                event.paragraph_count,
                chunks=event.chunk_count,
                prices=Prices.from_json(event.prices),
            )
            self.started(state, event)
            return
        if state is None:
            return
        if isinstance(event, BatchCommitted):
            state.done.update(event.paragraph_ids)
            state.done.update(event.unchanged)
        elif isinstance(event, ToolResult) and not event.success:
            state.errors += 1
        elif isinstance(event, ModelResponse) and event.usage:
            state.usage.update({k: v for k, v in event.usage.items() if isinstance(v, int)})
        self.changed(state, event)

    def started(self, state: _RunState, event: RunStarted) -> None:
        """A run began."""

    def changed(self, state: _RunState, event: EngineEvent) -> None:
        """Counters changed after ``event``."""


class PlainProgress(ProgressView):
    """One line per notable event, for logs and pipes."""

    def __init__(self, stream: IO[str]) -> None:
        super().__init__()
        self.stream = stream

    def _say(self, text: str) -> None:
        # File names, paragraph IDs and provider messages may carry control characters: one line, escaped.
        self.stream.write(visible(text, newlines=False) + "\n")
        self.stream.flush()

    def started(self, state: _RunState, event: RunStarted) -> None:
        """Name the run and its size."""
        self._say(
            f"{state.name}: {event.task} with {event.model}: {counted(event.paragraph_count, 'paragraph')} in "
            f"{counted(event.chunk_count, 'chunk')}"
        )

    def changed(self, state: _RunState, event: EngineEvent) -> None:
        """Chunk results, retries, reminders and errors as lines."""
        if isinstance(event, ChunkFinished):
            missing = f" · missing {', '.join(event.missing)}" if event.missing else ""
            self._say(
                f"{state.name}: chunk {event.part or event.chunk}/{state.chunks} {event.status} · "
                f"{len(state.done)}/{state.total} paragraphs · {state.spent()} · "
                f"{state.errors} tool errors{missing}"
            )
        elif isinstance(event, Retry):
            self._say(f"{state.name}: retry {event.attempt} in {event.delay:.1f} s ({event.reason})")
        elif isinstance(event, Reminder):
            self._say(
                f"{state.name}: chunk {event.chunk}: reminded the model of "
                f"{counted(len(event.missing), 'missing paragraph')}"
            )
        elif isinstance(event, ErrorEvent):
            self._say(f"{state.name}: error: {event.message}")


class RichProgress(ProgressView):
    """A live progress bar per chapter on stderr (only when stderr is a terminal)."""

    def __init__(self) -> None:
        # rich costs ~55 ms to import; a run whose stderr is not a terminal never needs it.
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        super().__init__()
        self._progress = Progress(
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[spent]} · {task.fields[errors]} err", markup=False),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self._tasks: dict[str, Any] = {}  # run id -> rich TaskID

    def __enter__(self) -> RichProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def started(self, state: _RunState, event: RunStarted) -> None:
        """Add a bar for the run."""
        self._tasks[event.run_id] = self._progress.add_task(
            visible(state.name, newlines=False), total=max(state.total, 1), spent=state.spent(), errors=0
        )

    def changed(self, state: _RunState, event: EngineEvent) -> None:
        """Move the bar; print errors above it."""
        task = self._tasks.get(event.run_id)
        if task is None:
            return
        self._progress.update(task, completed=len(state.done), spent=state.spent(), errors=state.errors)
        if isinstance(event, ErrorEvent):
            self._progress.console.print(
                visible(f"{state.name}: error: {event.message}", newlines=False), markup=False, highlight=False
            )


NOT_RUN = frozenset({"bad_input", "busy"})  # refused before any work: bad input, or another run holds the chapter


def summary_lines(summaries: list[dict[str, Any]]) -> list[str]:
    """The final report: one block per chapter, every line escaped for the terminal (see ``visible``)."""
    lines: list[str] = []
    for s in summaries:
        name = Path(str(s.get("chapter", "?"))).name
        if s.get("status") in NOT_RUN:  # nothing ran: the one sentence is the whole story
            error = str(s.get("error"))
            lines.append(error if name in error else f"{name}: {error}")
            continue
        lines.append(
            f"{name}: {s.get('status')} · {s.get('paragraphs_done', 0)}/{s.get('paragraphs_total', 0)} "
            f"paragraphs · {s.get('chunks_complete', 0)}/{len(s.get('chunks', []))} chunks complete · "
            f"{usage_text(s.get('usage') or {}, s.get('cost'))} · {s.get('wall_ms', 0) / 1000:.1f} s"
        )
        for chunk in s.get("chunks", []):
            if chunk.get("status") != "complete":
                missing = ", ".join(chunk.get("missing", [])) or "-"
                why = f" {chunk['end_code']}" if chunk.get("end_code") else ""
                lines.append(
                    f"  chunk {chunk.get('part') or chunk.get('index')}: {chunk.get('status')}{why} "
                    f"(missing: {missing})"
                )
        errors = s.get("tool_errors") or {}
        if errors:
            lines.append("  tool errors: " + ", ".join(f"{code} ×{n}" for code, n in sorted(errors.items())))
        if s.get("error"):
            lines.append(f"  error: {s['error']}")
        lines.extend(f"  what to do: {advice}" for advice in s.get("advice") or ())
        if s.get("trace"):
            lines.append(f"  trace: {s['trace']}")
    ran = [s for s in summaries if s.get("status") not in NOT_RUN]
    if len(ran) > 1:
        lines.append(f"all {len(ran)} chapters: {total_text(ran)}")
    return [visible(line, newlines=False) for line in lines]


def total_text(summaries: list[dict[str, Any]]) -> str:
    """Tokens and cost of several runs together (a cost only when every run had prices in one currency)."""
    usage: Counter[str] = Counter()
    for s in summaries:
        usage.update({k: v for k, v in (s.get("usage") or {}).items() if isinstance(v, int)})
    costs = [s.get("cost") for s in summaries]
    currencies = {c.get("currency") for c in costs if isinstance(c, dict)}
    cost = None
    if all(isinstance(c, dict) for c in costs) and len(currencies) == 1:
        cost = {"currency": currencies.pop(), "total": round(sum(float(c["total"]) for c in costs), 6)}
    return usage_text(usage, cost)
