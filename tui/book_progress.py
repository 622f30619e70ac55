"""What the chapter list's status line says about a run of the whole book (pure: no Textual).

A book run is one chapter run after the other, in book order; each chapter's progress is a
:class:`tui.run_status.RunStatus`, the book's is which chapter of how many, and how the chapters ended.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from engine.events import EngineEvent
from tui.run_status import RunStatus
from tui.status_fit import Part

# How a chapter of the book run ended, besides a run's own statuses ("complete", "incomplete", "failed" ...).
SKIPPED = "skipped"


@dataclass
class BookProgress:
    """A run of the book: its task, the chapter in progress, how the others ended."""

    task: str = ""
    chapters: int = 0
    at: int = 0  # 1-based: the chapter in progress
    name: str = ""  # its file name
    run: RunStatus = field(default_factory=RunStatus)
    ended: dict[str, str] = field(default_factory=dict)  # file name -> how its run ended (or SKIPPED)
    running: bool = False
    stopped: str | None = None  # how the book run ended: "complete", "cancelled", "failed"

    def start(self, task: str, chapters: int) -> None:
        """A run of ``task`` over ``chapters`` chapters begins."""
        self.task, self.chapters, self.at, self.name = task, chapters, 0, ""
        self.run, self.ended, self.running, self.stopped = RunStatus(), {}, True, None

    def chapter(self, at: int, name: str) -> None:
        """The ``at``-th chapter (``name``) starts."""
        self.at, self.name = at, name
        self.run.start(name)  # "running ch002.json · chunk 1/3 · 12/40 paragraphs"

    def update(self, event: EngineEvent) -> None:
        """Fold one event of the chapter in progress in."""
        self.run.update(event)
        if not self.run.running and self.run.ended:
            self.ended[self.name] = self.run.ended

    def skip(self, name: str) -> None:
        """A chapter had nothing to do, or could not be run."""
        self.ended[name] = SKIPPED

    def finish(self, how: str) -> None:
        """The book run ended (``complete``, ``cancelled``, ``failed``)."""
        self.running, self.stopped = False, how
        if self.run.running:
            self.run.finish(how)
            self.ended[self.name] = how

    def tally(self) -> str:
        """``3 complete, 1 skipped`` (in the order the chapters ended)."""
        counts = Counter(self.ended.values())
        return ", ".join(f"{n} {status}" for status, n in counts.items()) or "no chapter run"

    def parts(self) -> list[Part]:
        """The status line's parts, in priority order (see ``tui.status_fit``); none before the first run."""
        if self.running:
            head = Part.of(f"book {self.task}: chapter {self.at}/{self.chapters}", f"book {self.at}/{self.chapters}")
            words = [Part(forms) for forms in (self.run.state_words(), self.run.cost_words()) if forms]
            return [head, *words, Part.of("x cancels", droppable=True)]
        if self.stopped is None:
            return []
        return [Part.of(f"book {self.task} {self.stopped}: {self.tally()}", f"book {self.task} {self.stopped}")]
