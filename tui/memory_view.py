"""The workspace's translation memory as the workstation shows it, never read on the event loop.

One ``MemoryView`` per workspace (``WorkspaceSession.memory``), over the ``MemorySource`` that the workstation's
runs share. The app's thread worker (``reload_memory``, started at start-up and every few seconds) lists the
workspace, stats its files and re-reads what changed, taking the chapters it holds from the sessions instead of
reading back its own writes; when the snapshot changes the screens are told (``MemoryChanged``). A look
(``looker``) gives a function that searches the last snapshot, which the detail pane calls in a thread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from engine.config import RunDefaults
from engine.memory.index import MemoryMatch
from engine.memory.source import MemorySnapshot, MemorySource
from store.model import Chapter, Paragraph
from store.workspace import Workspace


class MemoryView:
    """The memory of one workspace: the last snapshot, and how the detail pane asks it."""

    def __init__(self, workspace: Workspace, run: RunDefaults) -> None:
        self.source = MemorySource(workspace, source_language=run.source_language, target_language=run.target_language)
        self.threshold = run.memory_threshold
        self.limit = run.memory_max

    @property
    def snapshot(self) -> MemorySnapshot:
        """The memory in use (no I/O: safe from any thread)."""
        return self.source.snapshot

    def reload(self, held: Mapping[Path, Chapter] | None = None) -> MemorySnapshot:
        """Look at the files again (blocking: the app's worker); ``held`` are the sessions' chapters."""
        if self.limit <= 0:
            return self.source.snapshot
        return self.source.refresh(held)

    def looker(self, chapter_id: str, para: Paragraph) -> Callable[[], MemoryMatch | None] | None:
        """A function giving the best earlier translation of ``para`` (to call in a thread), or None when there
        is nothing to search (memory off or empty, an empty paragraph)."""
        snapshot = self.source.snapshot
        if self.limit <= 0 or not snapshot.entries or not para.text.strip():
            return None
        threshold, text, pid = self.threshold, para.text, para.id
        return lambda: snapshot.index.best(text, threshold, chapter_id, pid)
