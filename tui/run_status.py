"""What the chapter's status line says about its run: progress while it goes, how it ended afterwards.

Folded from the engine's events, without any Textual in it, so the wording is tested on its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.cost import Prices, cost_of
from engine.events import (
    BatchCommitted,
    ChunkStarted,
    EngineEvent,
    ModelRequest,
    ModelResponse,
    RunFinished,
    RunStarted,
)
from tui.usage_text import usage_text


@dataclass
class RunStatus:
    """The run of one chapter as the status line shows it."""

    what: str = ""  # "translate", "polish chunk 3", "translate [12] e58ed763"
    running: bool = False
    ended: str | None = None  # how the last run ended: "complete", "cancelled", "failed" ...
    chunk: str | None = None  # the chunk in progress: "3", or "3.1" for a half
    chunks: int = 0
    turn: int = 0
    total: int = 0
    done: set[str] = field(default_factory=set)
    cancelling: bool = False
    usage: Counter[str] = field(default_factory=Counter)  # tokens of every response so far
    prices: Prices | None = None

    def start(self, what: str) -> None:
        """A run of ``what`` was asked for (its first event is still to come)."""
        self.what, self.running, self.ended, self.cancelling = what, True, None, False
        self.chunk, self.chunks, self.turn, self.total = None, 0, 0, 0
        self.done, self.usage, self.prices = set(), Counter(), None

    def finish(self, status: str) -> None:
        """The run ended with ``status`` (also when its worker was cancelled or failed)."""
        self.running, self.ended, self.cancelling = False, status, False

    def update(self, event: EngineEvent) -> None:
        """Fold one event of the run in."""
        fold = _FOLDS.get(type(event))
        if fold is not None:
            fold(self, event)

    def _run_started(self, event: RunStarted) -> None:
        self.chunks, self.total = event.chunk_count, event.paragraph_count
        self.prices = Prices.from_json(event.prices)

    def _response(self, event: ModelResponse) -> None:
        if event.usage:
            self.usage.update(event.usage)

    def _chunk_started(self, event: ChunkStarted) -> None:
        self.chunk, self.turn = event.part or str(event.chunk), 0

    def _request(self, event: ModelRequest) -> None:
        self.turn = event.turn

    def _committed(self, event: BatchCommitted) -> None:
        self.done.update(event.paragraph_ids)
        self.done.update(event.unchanged)

    def _run_finished(self, event: RunFinished) -> None:
        self.finish(event.status)

    def spent(self) -> str | None:
        """``12.3k tok · 38% cached · $0.0123`` once the run has used tokens, else None."""
        if not self.usage["total_tokens"]:
            return None
        return usage_text(self.usage, cost_of(self.usage, self.prices), short=True)

    def cost_words(self) -> tuple[str, ...]:
        """What the run has cost, longest first (``12.3k tok · 38% cached · $0.0123``, then ``$0.0123``, or
        ``12.3k tok`` without prices); () before the first tokens."""
        spent = self.spent()
        if spent is None:
            return ()
        return (spent, spent.rsplit(" · ", 1)[-1] if self.prices is not None else spent.split(" · ", 1)[0])

    def state_words(self) -> tuple[str, ...]:
        """The run's state, longest first: ``running translate · chunk 3/12 · turn 2 · 45/300 paragraphs``, then
        ``translate · chunk 3/12 · 45/300``, then ``translate 45/300``; ``last run: complete``; () before any run."""
        if not self.running:
            return (f"last run: {self.ended}",) if self.ended else ()
        if self.cancelling:
            return (f"{self.what}: cancelling…",)
        chunk = f"chunk {self.chunk}/{self.chunks}" if self.chunk is not None else None
        turn = f"turn {self.turn}" if self.turn else None
        noun = "paragraph" if self.total == 1 else "paragraphs"
        done = f"{len(self.done)}/{self.total}" if self.total else None
        full = [f"running {self.what}", chunk, turn, f"{done} {noun}" if done else None]
        short = [self.what, chunk, done]
        return (_joined(full), _joined(short), _joined([self.what, done], " "))

    def text(self) -> str | None:
        """``running translate · chunk 3/12 · turn 2 · 45/300 paragraphs · 12.3k tok · $0.01``, ``last run:
        complete``, or None."""
        words = [forms[0] for forms in (self.state_words(), self.cost_words()) if forms]
        return " · ".join(words) if words else None


def _joined(parts: list[str | None], separator: str = " · ") -> str:
    return separator.join(p for p in parts if p)


# What each kind of event changes in the status (the others change nothing it shows).
_FOLDS: dict[type[EngineEvent], Callable[[RunStatus, Any], None]] = {
    RunStarted: RunStatus._run_started,
    ModelResponse: RunStatus._response,
    ChunkStarted: RunStatus._chunk_started,
    ModelRequest: RunStatus._request,
    BatchCommitted: RunStatus._committed,
    RunFinished: RunStatus._run_finished,
}
