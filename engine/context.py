"""What a tool handler sees: the chapter, the task and, during a task run, the chunk's boundaries.

Boundaries are paragraph-ID based: ``allowed_paragraph_ids`` for O(1) membership,
``first_paragraph_id`` / ``last_paragraph_id`` for error messages, and the chunk's own order so that
neighbour tools walk the chunk's paragraphs without ever scanning the chapter. The IDs flow
service -> :class:`engine.loop_config.ToolCallLoopConfig` -> ``ToolRegistry.handle_tool_call`` ->
the handler's :class:`ToolContext`. Standalone use passes none, and nothing is restricted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from engine.checks.glossary import GlossaryTerm
from engine.settings import DEFAULT_MAX_BATCH
from store.model import Chapter, Origin

if TYPE_CHECKING:
    from engine.chunks import TaskType
    from engine.tools.submissions import SubmissionTracker
    from store.merge import BatchItem


@dataclass(frozen=True, slots=True)
class ChunkBoundaries:
    """The paragraphs a tool may reach while a chunk is being worked on."""

    allowed_paragraph_ids: frozenset[str]
    first_paragraph_id: str
    last_paragraph_id: str
    # The chunk's IDs in chapter order and each ID's place among them (precomputed once per chunk).
    order: tuple[str, ...] = field(repr=False, compare=False)
    rank: Mapping[str, int] = field(repr=False, compare=False)

    @classmethod
    def from_paragraph_ids(cls, paragraph_ids: Sequence[str]) -> ChunkBoundaries:
        """Boundaries of the chunk holding ``paragraph_ids`` (chapter order, at least one, no repeats)."""
        order = tuple(paragraph_ids)
        if not order:
            raise ValueError("a chunk holds at least one paragraph ID")
        rank = {pid: i for i, pid in enumerate(order)}
        if len(rank) != len(order):
            raise ValueError("a chunk's paragraph IDs must be unique")
        return cls(frozenset(order), order[0], order[-1], order, rank)

    def __contains__(self, paragraph_id: object) -> bool:
        return paragraph_id in self.allowed_paragraph_ids

    def __len__(self) -> int:
        return len(self.order)

    def chunk_range(self) -> dict[str, str]:
        """``{"first_paragraph_id", "last_paragraph_id"}`` as boundary errors carry it."""
        return {"first_paragraph_id": self.first_paragraph_id, "last_paragraph_id": self.last_paragraph_id}


class ChapterSource(Protocol):
    """Where tools read the chapter from and commit batches to (``store.commit.ChapterStore``)."""

    def load(self) -> Chapter:
        """The chapter as it is on disk now (cheap when unchanged)."""
        ...

    def commit_batch(self, items: Sequence[BatchItem], *, origin: Origin, model: str | None) -> Any:
        """Merge and durably write ``items``; returns a result with ``chapter``, ``accepted``, ``unchanged``."""
        ...


class ReadOnlyChapterError(Exception):
    """A commit was attempted on a chapter that has no file behind it."""


class StaticChapter:
    """A read-only :class:`ChapterSource` over an in-memory chapter (tool console, previews)."""

    def __init__(self, chapter: Chapter) -> None:
        self.chapter = chapter

    def load(self) -> Chapter:
        """The chapter given at construction."""
        return self.chapter

    def commit_batch(self, items: Sequence[BatchItem], *, origin: Origin, model: str | None) -> Any:
        """Always refused: there is no file to write to."""
        raise ReadOnlyChapterError("this chapter is open read-only, so nothing can be committed")


@dataclass(frozen=True, slots=True)
class ToolContext:
    """Everything one tool call may use. Built by the registry for every call."""

    chapter: Chapter
    task: TaskType | None = None
    chunk_boundaries: ChunkBoundaries | None = None
    source: ChapterSource | None = None  # None: read-only, a batch cannot be committed
    submissions: SubmissionTracker | None = None  # the chunk's submissions in this run, if any
    origin: Origin = "manual"
    model: str | None = None
    max_batch: int = DEFAULT_MAX_BATCH
    glossary: tuple[GlossaryTerm, ...] = ()  # the approved glossary entries: the batch's warnings use them
