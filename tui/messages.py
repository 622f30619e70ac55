"""Messages that cross screens: engine events from the run worker, workspace changes from the watcher, and the
glossary read again."""

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


class GlossaryChanged(Message):
    """The workspace glossary was read again (``GlossaryView``): views showing its entries redraw."""


class WorkspaceChanged(Message):
    """The watcher changed what we know of a chapter (``path`` None: the first scan of the workspace finished).

    ``notice`` is a line for the log pane; ``error`` marks it as a problem (an invalid or deleted file).
    """

    def __init__(self, path: Path | None, notice: str | None = None, *, error: bool = False) -> None:
        super().__init__()
        self.path = path
        self.notice = notice
        self.error = error
