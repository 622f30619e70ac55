"""Per-chapter-version lookup tables so neighbour and position tools never scan the chapter.

A :class:`Chapter` is frozen, so tables derived from one object stay valid for its lifetime. They are
kept in a small cache keyed by object identity (with a weak reference, so a dropped chapter version
frees its tables). A new version that only gained translation versions — what every commit produces —
shares the previous version's paragraph texts, so its emptiness table is reused instead of rebuilt.
"""

from __future__ import annotations

import threading
import weakref
from array import array
from collections import OrderedDict

from store.model import Chapter, is_empty_text

_CACHE_SIZE = 8


class ChapterIndex:
    """Which paragraphs are non-empty, and for each position how many non-empty ones precede it."""

    __slots__ = ("_folded_sources", "nonempty", "rank_before", "texts")

    def __init__(self, texts: tuple[str, ...], nonempty: array, rank_before: array) -> None:
        self.texts = texts  # the source texts this index was computed from (identity-compared for reuse)
        self.nonempty = nonempty  # 0-based positions of non-empty paragraphs, ascending
        self.rank_before = rank_before  # rank_before[p] = number of non-empty positions < p (len n + 1)
        self._folded_sources: list[str] | None = None

    @classmethod
    def build(cls, chapter: Chapter, previous: ChapterIndex | None = None) -> ChapterIndex:
        """Compute the tables for ``chapter``, reusing ``previous`` when the source texts are the same objects."""
        texts = tuple(p.text for p in chapter.paragraphs)
        if previous is not None and previous._same_texts(texts):
            reused = cls(texts, previous.nonempty, previous.rank_before)
            reused._folded_sources = previous._folded_sources
            return reused
        return cls(texts, *_tables(texts))

    def _same_texts(self, texts: tuple[str, ...]) -> bool:
        """Whether ``texts`` are the very objects this index was computed from (so nothing needs computing)."""
        return len(self.texts) == len(texts) and all(a is b for a, b in zip(self.texts, texts, strict=True))

    def is_nonempty(self, position: int) -> bool:
        """Whether the paragraph at 0-based ``position`` is non-empty."""
        return self.rank_before[position + 1] > self.rank_before[position]

    def previous_positions(self, position: int, count: int) -> list[int]:
        """Up to ``count`` non-empty positions before ``position``, nearest first."""
        rank = self.rank_before[position]
        return list(reversed(self.nonempty[max(0, rank - count) : rank]))

    def next_positions(self, position: int, count: int) -> list[int]:
        """Up to ``count`` non-empty positions after ``position``, in chapter order."""
        start = self.rank_before[position + 1]
        return list(self.nonempty[start : start + count])

    def folded_sources(self) -> list[str]:
        """Case-folded source texts for keyword search (computed on first use)."""
        if self._folded_sources is None:
            self._folded_sources = [t.casefold() for t in self.texts]
        return self._folded_sources


def _tables(texts: tuple[str, ...]) -> tuple[array, array]:
    """The non-empty positions, and for each position how many non-empty ones precede it."""
    nonempty = array("l")
    rank_before = array("l", [0]) * (len(texts) + 1)
    count = 0
    for pos, text in enumerate(texts):
        rank_before[pos] = count
        stripped = text.strip()  # no copy when nothing is stripped
        # Same rule as store.model.is_empty_text, without its allocation for the common case.
        if stripped and ("\ufeff" not in stripped or not is_empty_text(stripped)):
            nonempty.append(pos)
            count += 1
    rank_before[len(texts)] = count
    return nonempty, rank_before


_lock = threading.Lock()
_cache: OrderedDict[int, tuple[weakref.ref[Chapter], ChapterIndex]] = OrderedDict()


def chapter_index(chapter: Chapter) -> ChapterIndex:
    """The lookup tables of ``chapter``, built at most once per chapter object.

    Kept on the chapter itself (``Chapter.with_paragraphs`` hands them on to a version whose source texts are
    unchanged, so a commit costs nothing here), and in a small cache for chapters loaded from disk.
    """
    carried = chapter.cached("by_source")
    if isinstance(carried, ChapterIndex):
        return carried
    key = id(chapter)
    with _lock:
        hit = _cache.get(key)
        if hit is not None and hit[0]() is chapter:
            _cache.move_to_end(key)
            chapter.cache("by_source", hit[1])
            return hit[1]
        newest = next(reversed(_cache.values()))[1] if _cache else None
    index = ChapterIndex.build(chapter, newest)
    chapter.cache("by_source", index)
    with _lock:
        _cache[key] = (weakref.ref(chapter), index)
        _cache.move_to_end(key)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return index


def clear_index_cache() -> None:
    """Forget every cached table (benchmarks use it to time a cold start)."""
    with _lock:
        _cache.clear()
