"""Messages that cross screens and controllers: engine events from the run worker, workspace changes from the
watcher, the glossary read again, and the one redraw of the chapter view."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from textual.message import Message

from engine.events import EngineEvent


class EngineEventReceived(Message):
    """One event of the run in progress, posted by the run worker (the log pane queues it)."""

    def __init__(self, event: EngineEvent, chapter_path: Path) -> None:
        super().__init__()
        self.event = event
        self.chapter_path = chapter_path


class GlossaryChanged(Message, bubble=False):
    """The workspace glossary was read again, or edited here (``GlossaryView``): views showing its entries redraw
    (sent to each screen by the app)."""


class MemoryChanged(Message, bubble=False):
    """The workspace's translation memory changed (``MemoryView``): the detail pane redraws its memory line (sent to
    each screen by the app)."""


class GlossaryEdited(Message):
    """A screen changed the glossary file (the glossary screen's edits): the app tells every screen."""


class WorkspaceChanged(Message):
    """The watcher changed what we know of a chapter (``path`` None: the first scan of the workspace finished).

    ``notice`` is a line for the log pane; ``error`` marks it as a problem (an invalid or deleted file).
    """

    def __init__(self, path: Path | None, notice: str | None = None, *, error: bool = False) -> None:
        super().__init__()
        self.path = path
        self.notice = notice
        self.error = error


class RunProgressed(Message, bubble=False):
    """A run started, committed a batch or ended on the chapter at ``path``: posted to the app, which tells every
    screen (the chapter list recounts and marks it running, that chapter's view redraws)."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path


Redrawn = Literal["status", "view", "rows"]
"""What a chapter view redraws, each one more than the one before: the status line only; the view (the rows of a
new chapter state, the marks, the detail pane and the status line); the rows even for the same chapter state."""

_REDRAWN_ORDER: dict[Redrawn, int] = {"status": 0, "view": 1, "rows": 2}


class ChapterStateChanged(Message):
    """Something the chapter view shows changed (the chapter, its marks, its run, its warnings, the filter): the
    view redraws ``what`` from its session once, however many of these came in a row."""

    def __init__(self, what: Redrawn = "view") -> None:
        super().__init__()
        self.what: Redrawn = what

    def can_replace(self, message: Message) -> bool:
        # Redraws in a row are one redraw, unless the next one would draw less than this one.
        return isinstance(message, ChapterStateChanged) and _REDRAWN_ORDER[message.what] >= _REDRAWN_ORDER[self.what]
