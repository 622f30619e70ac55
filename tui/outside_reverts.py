"""An outside edit that undoes a run's commits, seen as it happens (no Textual here).

The workstation's watcher reloads a chapter that changed on disk; if the change took away versions the last run
wrote (a stale editor buffer saved over the file), the editor is told at once, those rows lose their "changed by
the run" mark, and the run's texts are recorded in the conflicts (``store.reverts``), where ``c`` restores them.
Each undone version is reported once.
"""

from __future__ import annotations

from pathlib import Path

from engine.events import BatchCommitted
from engine.run_writes import RunWrites
from store.model import Chapter
from store.reverts import record_reverted, reverted
from store.workspace import Workspace


class OutsideReverts:
    """The versions the last run wrote, and which of them an outside edit has undone since."""

    def __init__(self) -> None:
        self.writes = RunWrites()
        self._reported: set[tuple[str, str]] = set()

    def restart(self) -> None:
        """A new run starts: forget the last one's versions."""
        self.writes = RunWrites()
        self._reported.clear()

    def remember(self, chapter: Chapter | None, event: BatchCommitted) -> None:
        """Note the versions a commit of the run wrote (``chapter`` is the chapter as written)."""
        self.writes.remember(chapter, event)

    def newly_reverted(self, chapter: Chapter) -> list[str]:
        """The paragraphs whose version from the run ``chapter`` no longer holds, not reported before."""
        written = self.writes.written
        gone = [pid for pid in reverted(chapter, written) if (pid, written[pid].version_id) not in self._reported]
        self._reported.update((pid, written[pid].version_id) for pid in gone)
        return gone

    def record(
        self, workspace: Workspace, path: Path, chapter: Chapter, gone: list[str], origin: str, model: str | None
    ) -> None:
        """Record the run's texts of ``gone`` in the conflicts (blocking: a durable write)."""
        record_reverted(workspace, path, chapter, self.writes.written, gone, origin=origin, model=model)
