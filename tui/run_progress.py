"""Progress of headless runs on stderr: a live bar on a terminal, plain lines otherwise, and a summary."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from engine.cost import Cost, Prices, cost_of
from engine.events import BatchCommitted, EngineEvent, ModelResponse, RunStarted, ToolResult
from engine.summaries import ChunkSummary, RunSummary
from tui.event_text import describer
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
        self.changed(state, event)

    def changed(self, state: _RunState, event: EngineEvent) -> None:
        """Chunk results, retries, reminders and errors as lines."""
        line = describer(event).progress(event, state)
        if line is not None:
            self._say(f"{state.name}: {line[1]}")


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
        line = describer(event).progress(event, state)
        if line is not None and line[0] == "error":  # the bar says the rest
            self._progress.console.print(
                visible(f"{state.name}: {line[1]}", newlines=False), markup=False, highlight=False
            )


NOT_RUN = frozenset({"bad_input", "busy"})  # refused before any work: bad input, or another run holds the chapter


def summary_lines(summaries: list[RunSummary]) -> list[str]:
    """The final report: one block per chapter, every line escaped for the terminal (see ``visible``)."""
    lines: list[str] = []
    for summary in summaries:
        lines += _refusal(summary) if summary.status in NOT_RUN else _report(summary)
    ran = [s for s in summaries if s.status not in NOT_RUN]
    if len(ran) > 1:
        lines.append(f"all {len(ran)} chapters: {total_text(ran)}")
    return [visible(line, newlines=False) for line in lines]


def _refusal(summary: RunSummary) -> list[str]:
    """A run refused before any work: its one sentence is the whole story."""
    name, error = Path(summary.chapter).name, str(summary.error)
    return [error if name in error else f"{name}: {error}"]


def _report(summary: RunSummary) -> list[str]:
    """A run that ran: how it ended, its unfinished chunks, tool errors, advice and trace."""
    s = summary
    lines = [
        f"{Path(s.chapter).name}: {s.status} · {paragraphs_text(s)} · "
        f"{s.chunks_complete}/{len(s.chunks)} chunks complete · {usage_text(s.usage, s.cost)} · "
        f"{s.wall_ms / 1000:.1f} s"
    ]
    lines += [_unfinished(chunk) for chunk in s.chunks if chunk.status != "complete"]
    if s.tool_errors:
        lines.append("  tool errors: " + ", ".join(f"{code} ×{n}" for code, n in sorted(s.tool_errors.items())))
    if s.error:
        lines.append(f"  error: {s.error}")
    lines += [f"  what to do: {advice}" for advice in s.advice]
    if s.trace:
        lines.append(f"  trace: {s.trace}")
    return lines


def paragraphs_text(s: RunSummary) -> str:
    """``5/6 paragraphs`` for a translation; for a polish or proofread what the model really did: ``6/6 paragraphs
    reviewed: 2 submitted, 1 changed`` (a paragraph is reviewed when submitted, or declared unchanged)."""
    if s.task not in ("polish", "proofread"):
        return f"{s.paragraphs_done}/{s.paragraphs_total} paragraphs"
    return (
        f"{s.paragraphs_done}/{s.paragraphs_total} paragraphs reviewed: {s.paragraphs_submitted} submitted, "
        f"{s.paragraphs_changed} changed"
    )


def _unfinished(chunk: ChunkSummary) -> str:
    why = f" {chunk.end_code}" if chunk.end_code else ""
    return f"  chunk {chunk.part or chunk.index}: {chunk.status}{why} (missing: {', '.join(chunk.missing) or '-'})"


def total_text(summaries: list[RunSummary]) -> str:
    """Tokens and cost of several runs together (a cost only when every run had prices in one currency)."""
    usage: Counter[str] = Counter()
    for s in summaries:
        usage.update(s.usage)
    costs = [s.cost for s in summaries]
    currencies = {c["currency"] for c in costs if c is not None}
    cost: Cost | None = None
    if None not in costs and len(currencies) == 1:
        cost = {"currency": currencies.pop(), "total": round(sum(float(c["total"]) for c in costs if c), 6)}
    return usage_text(usage, cost)
