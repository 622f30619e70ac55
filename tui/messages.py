"""Messages that cross screens and controllers: engine events from the run worker, workspace changes from the
watcher, and the one redraw of the chapter view."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message

from engine.events import EngineEvent


class EngineEventReceived(Message):
    """One event of the run in progress, posted by the run worker (the log pane queues it)."""

    def __init__(self, event: EngineEvent, chapter_path: Path) -> None:
        super().__init__()
        self.event = event
        self.chapter_path = chapter_path


class WorkspaceChanged(Message):
    """The watcher changed what we know of a chapter (``path`` None: the first scan of the workspace finished).

    ``notice`` is a line for the log pane; ``error`` marks it as a problem (an invalid or deleted file).
    """

    def __init__(self, path: Path | None, notice: str | None = None, *, error: bool = False) -> None:
        super().__init__()
        self.path = path
        self.notice = notice
        self.error = error


class ChapterStateChanged(Message):
    """Something the chapter view shows changed (the chapter, its marks, its run, its warnings, the filter): the
    view redraws once from its session, however many of these came in a row. ``rows``: the chunk separators
    changed too, so the rows are rebuilt even for the same chapter state."""

    def __init__(self, *, rows: bool = False) -> None:
        super().__init__()
        self.rows = rows

    def can_replace(self, message: Message) -> bool:
        # Two redraws in a row are one redraw (the same kind: one that rebuilds the rows is never dropped).
        return isinstance(message, ChapterStateChanged) and message.rows == self.rows
