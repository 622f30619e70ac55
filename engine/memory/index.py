"""Finding the best earlier translation of a source text: exact sources by a dict, similar ones by rapidfuzz.

Similarity is ``rapidfuzz.fuzz.ratio`` (normalised Indel: ``2·LCS / (la + lb)``) of the two sources with every
whitespace removed. Scoring 100,000 sources one by one costs ~100 ms per paragraph, so candidates are narrowed
first by two bounds that never drop a source that could reach the threshold ``t``:

- **Length**: ``ratio ≥ t`` needs ``lb`` within ``[la·t/(2−t), la·(2−t)/t]``. Sources are kept sorted by length,
  longest first, so the band is one range of positions (why longest first: ``char_filter``).
- **Characters** (``char_filter``): the LCS is at most the characters the two share, counted with repeats.

What is left is scored by ``rapidfuzz.process.extractOne`` with the threshold as its ``score_cutoff``.
"""

from __future__ import annotations

import bisect
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.memory.char_filter import CharacterFilter
from engine.memory.entries import MemoryEntry, squeeze

MEMORY_HEADING = "Memory (earlier translations of similar text):"


@dataclass(frozen=True, slots=True)
class MemoryMatch:
    """The memory's answer for one paragraph: the entry and its similarity (0–100; 100 only when equal)."""

    entry: MemoryEntry
    score: float
    exact: bool

    @property
    def percent(self) -> int:
        """The similarity as shown: floored, 100 only for an exact match."""
        return 100 if self.exact else min(99, math.floor(self.score))

    def line(self, index: int) -> str:
        """``[12] ≈ 87%: earlier source → earlier translation`` (``=`` for an exact match)."""
        sign = "=" if self.exact else "≈"
        return f"[{index}] {sign} {self.percent}%: {_one_line(self.entry.source)} → {_one_line(self.entry.target)}"


Query = tuple[int, str, str, str]  # (index in the chapter, chapter ID, paragraph ID, source text)


def _ranked(found: list[tuple[int, MemoryMatch]]) -> list[tuple[int, MemoryMatch]]:
    return sorted(found, key=lambda item: (-item[1].score, item[0]))


def memory_section(found: Sequence[tuple[int, MemoryMatch]]) -> str:
    """The chunk message's memory lines under their heading, or "" when there are none."""
    if not found:
        return ""
    return f"{MEMORY_HEADING}\n" + "\n".join(match.line(index) for index, match in found)


def _one_line(text: str) -> str:
    return " ".join(text.split())


class MemoryIndex:
    """Immutable: the entries by squeezed source, sorted by length (longest first), with the character filter of
    the sources."""

    def __init__(self, entries: Iterable[MemoryEntry]) -> None:
        by_key: dict[str, list[MemoryEntry]] = defaultdict(list)
        for entry in entries:
            if key := squeeze(entry.source):
                by_key[key].append(entry)
        self.keys: list[str] = sorted(by_key, key=len, reverse=True)
        self.exact: dict[str, tuple[MemoryEntry, ...]] = {k: tuple(by_key[k]) for k in self.keys}
        self.position: dict[str, int] = {k: i for i, k in enumerate(self.keys)}
        self.owners: dict[tuple[str, str], int] = {
            (e.chapter_id, e.paragraph_id): i
            for i, k in enumerate(self.keys)
            for e in self.exact[k]
            if e.chapter_id is not None and e.paragraph_id is not None
        }
        self.filter = CharacterFilter(self.keys)

    def __len__(self) -> int:
        return len(self.keys)

    def best(self, text: str, threshold: float, chapter_id: str, paragraph_id: str) -> MemoryMatch | None:
        """The best entry for source ``text`` at least ``threshold`` similar, not that paragraph's own, or None."""
        key = squeeze(text)
        if not key:
            return None
        return self._exact(key, chapter_id, paragraph_id) or self._similar(key, threshold, chapter_id, paragraph_id)

    def _exact(self, key: str, chapter_id: str, paragraph_id: str) -> MemoryMatch | None:
        """An entry with this very (squeezed) source, not that paragraph's own."""
        for entry in self.exact.get(key, ()):
            if not entry.owned_by(chapter_id, paragraph_id):
                return MemoryMatch(entry, 100.0, True)
        return None

    def matches(self, paragraphs: Sequence[Query], threshold: float, limit: int) -> list[tuple[int, MemoryMatch]]:
        """For ``(index, chapter ID, paragraph ID, text)`` of a chunk's paragraphs: the ``limit`` best matches as
        ``(index, match)``, highest similarity first (then in chunk order). Once ``limit`` matches are found, a
        later paragraph must reach the weakest of them, so the search narrows as it goes: the shortest paragraphs
        are searched first (the cheapest), so the long ones, whose search costs the most, get the highest floor."""
        if limit <= 0 or not self.keys:
            return []
        found, similar = self._exact_first(paragraphs)
        found = _ranked(found)[:limit]
        for index, chapter_id, paragraph_id, key in sorted(similar, key=lambda query: len(query[3])):
            floor = threshold if len(found) < limit else max(threshold, found[-1][1].score / 100)
            match = self._similar(key, floor, chapter_id, paragraph_id)
            if match is not None:
                found = _ranked([*found, (index, match)])[:limit]
        return found

    def _exact_first(self, paragraphs: Sequence[Query]) -> tuple[list[tuple[int, MemoryMatch]], list[Query]]:
        """The exact matches (the cheapest, and the best), and the paragraphs left to search, squeezed."""
        found: list[tuple[int, MemoryMatch]] = []
        similar: list[Query] = []
        for index, chapter_id, paragraph_id, text in paragraphs:
            if not (key := squeeze(text)):
                continue
            if match := self._exact(key, chapter_id, paragraph_id):
                found.append((index, match))
            else:
                similar.append((index, chapter_id, paragraph_id, key))
        return found, similar

    def _similar(self, key: str, threshold: float, chapter_id: str, paragraph_id: str) -> MemoryMatch | None:
        """The most similar other source (``key`` itself and the paragraph's own entry left out), or None."""
        candidates = self._candidates(key, threshold, self._own(chapter_id, paragraph_id))
        if not candidates:
            return None
        # Imported here: ~45 modules, ~8 ms; a run whose memory holds no similar source never needs them.
        from rapidfuzz import fuzz, process

        found = process.extractOne(key, candidates, scorer=fuzz.ratio, processor=None, score_cutoff=threshold * 100)
        if found is None:
            return None
        entry = next(e for e in self.exact[found[0]] if not e.owned_by(chapter_id, paragraph_id))
        return MemoryMatch(entry, found[1], False)

    def _own(self, chapter_id: str, paragraph_id: str) -> int | None:
        """The position of the source whose only entry is that paragraph's own (an older text of it), if any."""
        own = self.owners.get((chapter_id, paragraph_id))
        if own is None or len(self.exact[self.keys[own]]) > 1:
            return None
        return own

    def _candidates(self, key: str, threshold: float, own: int | None) -> list[str]:
        """Every source that could be ``threshold`` similar to ``key`` (never ``key`` itself)."""
        lo, hi = self._band(len(key), threshold)
        if lo >= hi:
            return []
        left_out = (self.position.get(key), own)
        return [
            self.keys[i] for i in self.filter.reaching(self.filter.query(key, threshold), lo, hi) if i not in left_out
        ]

    def _band(self, la: int, threshold: float) -> tuple[int, int]:
        """The positions of the sources whose length could reach ``threshold`` (lengths descend: the longest first)."""
        longest = math.ceil(la * (2 - threshold) / threshold)
        shortest = math.floor(la * threshold / (2 - threshold))
        negated = self.filter.negated
        lo = bisect.bisect_left(negated, -longest)
        return lo, bisect.bisect_right(negated, -shortest, lo)
