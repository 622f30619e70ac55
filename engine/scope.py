"""``ChunkScope``: the one object a chunk's tool calls carry, from the task service to the tool handler.

The task service builds one scope per chunk (``engine/services.py``); the run hands the chunk's loop config to the
loop (``engine/run.py`` -> ``engine/loop.py``), the loop passes ``config.scope`` with every call
(``ToolRegistry.call(name, arguments, scope)``), and the registry gives it to the handler inside its
:class:`~engine.context.ToolContext`, where ``engine/tools/boundaries.py`` enforces ``scope.boundaries``. Nothing
else about the chunk travels beside it. Standalone use (the tool console, an assistant, tests) builds a scope with
:meth:`ChunkScope.standalone`: no chunk, and no boundaries unless paragraph IDs are given.

Boundaries are paragraph-ID based: ``allowed_paragraph_ids`` for O(1) membership, ``first_paragraph_id`` /
``last_paragraph_id`` for error messages, and the chunk's own order so that neighbour tools walk the chunk's
paragraphs without ever scanning the chapter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.chapter_source import ChapterSource, StaticChapter
from engine.chunks import Chunk
from engine.settings import DEFAULT_MAX_BATCH
from engine.submissions import SubmissionTracker
from engine.tasks import TASK_RULES, TaskType
from store.model import Chapter, Origin


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


@dataclass(frozen=True, slots=True)
class ChunkScope:
    """What every tool call of one chunk shares: where the chapter is read and committed, the chunk with its
    boundaries and submissions, the origin and model its versions get, and the batch limit.

    Without a chunk (``standalone``) nothing is bounded unless paragraph IDs were given.
    """

    source: ChapterSource
    task: TaskType | None = None
    chunk: Chunk | None = None
    boundaries: ChunkBoundaries | None = None
    submissions: SubmissionTracker | None = None  # the chunk's submissions in this run
    origin: Origin = "manual"
    model: str | None = None  # recorded on every version this scope's commits create
    max_batch: int = DEFAULT_MAX_BATCH
    apply: bool = True  # select new texts of unprotected paragraphs; False: every submission is a suggestion

    @classmethod
    def for_chunk(
        cls,
        chunk: Chunk,
        source: ChapterSource,
        *,
        origin: Origin | None = None,
        model: str | None = None,
        max_batch: int = DEFAULT_MAX_BATCH,
        apply: bool = True,
    ) -> ChunkScope:
        """The scope of ``chunk`` in a run: its boundaries and a fresh tracker with the bases it was built from;
        ``origin`` defaults to the task's."""
        return cls(
            source=source,
            task=chunk.task,
            chunk=chunk,
            boundaries=ChunkBoundaries.from_paragraph_ids(chunk.paragraph_ids),
            submissions=SubmissionTracker.for_chunk(chunk),
            origin=origin or TASK_RULES[chunk.task].origin,
            model=model,
            max_batch=max_batch,
            apply=apply,
        )

    @classmethod
    def standalone(
        cls,
        source: ChapterSource | Chapter,
        *,
        task: TaskType | None = None,
        paragraph_ids: Sequence[str] | None = None,
        origin: Origin | None = None,
        model: str | None = None,
        max_batch: int = DEFAULT_MAX_BATCH,
    ) -> ChunkScope:
        """A scope outside a run: bounded by ``paragraph_ids`` when given (a tracker without bases: results merge
        onto the chapter as read at the call), else unbounded. ``origin`` defaults to the task's, or ``manual``."""
        return cls(
            source=StaticChapter(source) if isinstance(source, Chapter) else source,
            task=task,
            boundaries=ChunkBoundaries.from_paragraph_ids(paragraph_ids) if paragraph_ids is not None else None,
            submissions=SubmissionTracker(paragraph_ids, {}) if paragraph_ids is not None else None,
            origin=origin or (TASK_RULES[task].origin if task else "manual"),
            model=model,
            max_batch=max_batch,
        )
