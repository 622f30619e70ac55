"""The memory as a run sees it: looked at again before every chunk (a paragraph the editor reviewed meanwhile is
in the next chunk's message), and the chunk message's ``Memory`` section."""

from __future__ import annotations

from engine.chunks import Chunk
from engine.memory.index import MemoryMatch, memory_section
from engine.memory.source import MemorySource
from engine.settings import DEFAULT_MEMORY_MAX, DEFAULT_MEMORY_THRESHOLD
from store.commit import ChapterStore


class RunMemory:
    """One run's view of the workspace memory (a ``MemorySource``, shared with the workstation's views when the
    run is the workstation's). ``limit`` 0 turns memory off: nothing is read."""

    def __init__(
        self,
        source: MemorySource | None,
        *,
        threshold: float = DEFAULT_MEMORY_THRESHOLD,
        limit: int = DEFAULT_MEMORY_MAX,
        store: ChapterStore | None = None,
    ) -> None:
        self.source = source if limit > 0 else None
        self.threshold = threshold
        self.limit = limit
        self.store = store  # the run's own chapter, as it is on disk after the run's commits: never read back

    def reload(self) -> None:
        """Look at the workspace's chapters and TMX files again (blocking: a thread when a UI shares the loop)."""
        if self.source is not None:
            held = self.store.chapter if self.store is not None else None
            self.source.refresh({self.store.path: held} if self.store is not None and held is not None else None)

    def matches(self, chunk: Chunk) -> list[tuple[int, MemoryMatch]]:
        """The chunk's memory matches as ``(index, match)``, best first, at most ``limit``."""
        if self.source is None or not self.source.snapshot.entries:
            return []
        chapter = chunk.chapter
        queries = [
            (index, chapter.id, pid, para.text)
            for pid, index in zip(chunk.paragraph_ids, chunk.paragraph_indexes, strict=True)
            if (para := chapter.paragraph(pid)) is not None
        ]
        return self.source.snapshot.index.matches(queries, self.threshold, self.limit)

    def section(self, chunk: Chunk) -> str:
        """The chunk message's memory lines under their heading, or "" (no memory, or nothing similar)."""
        return memory_section(self.matches(chunk))
