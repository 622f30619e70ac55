"""One workspace's translation memory, rebuilt when a chapter's reviewed pairs or a TMX file change.

A ``MemorySource`` holds the latest ``MemorySnapshot``: the entries and their index, built together in the thread
that read the files and never changed afterwards (a new snapshot object exactly when the entries changed).
Reading ``snapshot`` does no I/O, so an event loop may read it at any time; ``refresh`` lists the workspace,
stats its files, re-reads only the chapters and TMX files whose (mtime, size) changed, and rebuilds the index only
when the entries differ — it belongs in a worker thread or a headless run. The workstation's views and its runs
share one source per workspace, so a change is read once, whoever notices it first.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from engine.memory.entries import MemoryEntry, chapter_entries
from engine.memory.index import MemoryIndex
from store.errors import StoreError
from store.loader import load_chapter
from store.model import Chapter
from store.workspace import Workspace

MEMORY_DIR = "memory"  # <workspace>/memory/*.tmx
Stamp = tuple[int, int]  # (mtime_ns, size)


@dataclass(frozen=True, eq=False)
class MemorySnapshot:
    """The memory as read at one moment: its entries (chapters in file-name order, then TMX files) and index."""

    entries: tuple[MemoryEntry, ...] = ()
    index: MemoryIndex = field(default_factory=lambda: MemoryIndex(()))

    def __len__(self) -> int:
        return len(self.entries)


@dataclass
class _Read:
    """What one file gave at the stamp it was read at."""

    stamp: Stamp
    entries: tuple[MemoryEntry, ...]


class MemorySource:
    """The memory of one workspace: the latest snapshot, and the files it comes from."""

    def __init__(
        self, workspace: Workspace, *, source_language: str | None = None, target_language: str | None = None
    ) -> None:
        self.workspace = workspace
        self.source_language = source_language  # None: the first chapter's (the TMX files' pairs are picked by it)
        self.target_language = target_language
        self.snapshot = MemorySnapshot()
        self.problems: dict[Path, str] = {}  # files left out, and why (one sentence each)
        self._read: dict[Path, _Read] = {}
        self._lock = threading.Lock()

    @property
    def tmx_dir(self) -> Path:
        """Where the workspace's TMX files are."""
        return self.workspace.root / MEMORY_DIR

    def refresh(self, held: Mapping[Path, Chapter] | None = None) -> MemorySnapshot:
        """Look at the files again (blocking: a worker thread or a headless run) and return the snapshot in use:
        the same object when no chapter's reviewed pairs and no TMX file changed. ``held`` are chapters the
        caller holds as they are on disk (a run's own chapter after its commits): used instead of reading them."""
        with self._lock:
            held = held or {}
            chapters = [(p, self._chapter(p, held.get(p))) for p in self.workspace.chapter_paths()]
            tmx = [(p, self._tmx(p)) for p in self._tmx_paths()]
            now = {p: read for p, read in (*chapters, *tmx) if read is not None}
            before, self._read = self._read, now
            if _changed(now, before):
                entries = tuple(e for read in now.values() for e in read.entries)
                self.snapshot = MemorySnapshot(entries, MemoryIndex(entries))
            return self.snapshot

    def _tmx_paths(self) -> list[Path]:
        try:
            return sorted(p for p in self.tmx_dir.iterdir() if p.suffix.lower() == ".tmx" and p.is_file())
        except OSError:
            return []

    def _chapter(self, path: Path, held: Chapter | None) -> _Read | None:
        def read() -> tuple[MemoryEntry, ...]:
            chapter = held or load_chapter(path)
            self.source_language = self.source_language or chapter.source_language
            self.target_language = self.target_language or chapter.target_language
            return chapter_entries(chapter)

        return self._again(path, read)

    def _tmx(self, path: Path) -> _Read | None:
        if not (self.source_language and self.target_language):
            self.problems[path] = f"{path}: left out: the workspace's chapters name no source and target language"
            return None
        source, target = self.source_language, self.target_language
        from store.tmx import read_tmx  # lxml: only a workspace with TMX files pays for it

        return self._again(path, lambda: tuple(MemoryEntry(s, t) for s, t in read_tmx(path, source, target)))

    def _again(self, path: Path, read: Callable[[], tuple[MemoryEntry, ...]]) -> _Read | None:
        """The file's entries: the last ones while its stamp is unchanged, else read now (None: unreadable)."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        known = self._read.get(path)
        if known is not None and known.stamp == stamp:
            return known
        try:
            entries = read()
        except StoreError as exc:
            self.problems[path] = str(exc)
            return None
        self.problems.pop(path, None)
        return _Read(stamp, entries)


def _changed(now: dict[Path, _Read], before: dict[Path, _Read]) -> bool:
    """Whether the files or the entries of one of them differ (an unchanged file keeps its ``_Read``)."""
    if list(now) != list(before):
        return True
    return any(read is not before[p] and read.entries != before[p].entries for p, read in now.items())
