"""Where tools read the chapter from and commit batches to: the store of a run, or a read-only chapter in memory."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from store.model import Chapter, Origin

if TYPE_CHECKING:
    from store.commit import CommitResult
    from store.merge import BatchItem


class ChapterSource(Protocol):
    """What a tool call reads and commits through (``store.commit.ChapterStore``, or :class:`StaticChapter`)."""

    @property
    def path(self) -> Path | None:
        """The chapter file, if there is one (events name it)."""
        ...

    def load(self) -> Chapter:
        """The chapter as it is on disk now (cheap when unchanged)."""
        ...

    def commit_batch(
        self, items: Sequence[BatchItem], *, origin: Origin, model: str | None, apply: bool = True
    ) -> CommitResult:
        """Merge and durably write ``items``; the result names what was accepted, suggested, unchanged or kept."""
        ...


class ReadOnlyChapterError(Exception):
    """A commit was attempted on a chapter that has no file behind it."""


class StaticChapter:
    """A read-only :class:`ChapterSource` over an in-memory chapter (tool console, previews, estimates)."""

    path: Path | None = None

    def __init__(self, chapter: Chapter) -> None:
        self.chapter = chapter

    def load(self) -> Chapter:
        """The chapter given at construction."""
        return self.chapter

    def commit_batch(
        self, items: Sequence[BatchItem], *, origin: Origin, model: str | None, apply: bool = True
    ) -> CommitResult:
        """Always refused: there is no file to write to."""
        raise ReadOnlyChapterError("this chapter is open read-only, so nothing can be committed")
