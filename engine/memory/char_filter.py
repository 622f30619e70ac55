"""Which memory sources could be similar enough to a query: a count filter on the characters they share.

Similarity is ``2·LCS / (la + lb)``, and a common subsequence uses each character at most as often as both texts
hold it, so the LCS is at most the size of the two texts' common multiset of characters. A text's characters are
indexed as occurrences — the k-th ``の`` is the feature ``(の, k)`` — so the common multiset is exactly the number
of features both hold (only the first ``MAX_OCCURRENCE`` of a character are indexed; the query's others are
counted as shared). On real text this bound alone rejects nearly every source below a 0.75 ratio.

Each feature's positions (sources sorted by length) are one big-int bitset. A source of length ``lb`` needs at
least ``t·(la + lb)/2`` shared, so it may miss only so many of the query's features (its allowance, 0 for the
longest sources of the band). The misses are counted for all positions at once (``bit_counter``), the rarest
features first, and a position dies on its first miss too many, so the count usually ends long before the
query's last feature: when no more than ``ENOUGH`` positions are left, they are handed to the scorer as they are.
A source is only ever counted as sharing more than it does, never less, so no true match is dropped.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from operator import itemgetter

from engine.memory.bit_counter import start_slices, surviving

MAX_OCCURRENCE = 15  # a feature is (character, occurrence ≤ 15): four bits of the int that names it
ENOUGH = 24  # once this few positions are left, scoring them costs less than counting on
LENGTH_STEP = 1.06  # sources within 6% of the same length share one allowance (that of the shortest)

_NONZERO = re.compile(rb"[^\x00]")
_UP_TO = [range(1, n + 1) for n in range(MAX_OCCURRENCE + 1)]


def occurrences(key: str) -> list[int]:
    """The features of ``key``: ``ord(c) << 4 | k`` for the k-th occurrence of each character ``c``."""
    return [ord(c) << 4 | k for c, n in Counter(key).items() for k in _UP_TO[min(n, MAX_OCCURRENCE)]]


@dataclass(frozen=True, slots=True)
class Query:
    """A query: the bitsets of its features that some source holds, rarest first (a feature no source holds is
    missed by every one: it only leaves the others less allowance); how many of its characters are not features
    (past ``MAX_OCCURRENCE``, counted as shared); the ratio asked."""

    length: int
    held: list[int]
    unindexed: int
    threshold: float

    def needed(self, length: int) -> int:
        """How many shared characters a source of ``length`` needs at least (one below, for float rounding)."""
        return math.ceil(self.threshold * (self.length + length) / 2) - 1 - self.unindexed


class CharacterFilter:
    """For each occurrence feature, the bitset of the positions of ``keys`` (sorted by length) holding it."""

    def __init__(self, keys: Sequence[str]) -> None:
        self.lengths = [len(key) for key in keys]
        bitsets = _bitsets(keys)
        self.table = {feature: (bits.bit_count(), bits) for feature, bits in bitsets.items()}

    def query(self, key: str, threshold: float) -> Query:
        features = occurrences(key)
        held = [known for feature in features if (known := self.table.get(feature))]
        held.sort(key=itemgetter(0))
        return Query(len(key), [bits for _, bits in held], len(key) - len(features), threshold)

    def reaching(self, query: Query, lo: int, hi: int) -> int:
        """The positions ``lo``..``hi`` (a bitset of absolute positions) that could share enough with the query.
        Counted in positions from ``lo``: the band's bitsets are a fraction of the whole's for a long query."""
        groups = [
            (start - lo, end - lo, len(query.held) - query.needed(self.lengths[start]))
            for start, end in self._length_groups(lo, hi)
        ]
        plan = Plan.of(groups, len(query.held))
        found = plan.free
        if plan.alive:  # the counter masks each feature with the living positions, all within the band
            held = (bits >> lo for bits in query.held)  # shifted only when counted: most never are
            found |= surviving(held, plan.alive, start_slices(plan.steps, hi - lo, plan.width), ENOUGH)
        return found << lo

    def _length_groups(self, lo: int, hi: int) -> Iterator[tuple[int, int]]:
        """Runs of positions whose lengths are within ``LENGTH_STEP`` of the run's shortest."""
        start = lo
        while start < hi:
            shortest = self.lengths[start]
            end = bisect_left(self.lengths, max(shortest + 1, math.ceil(shortest * LENGTH_STEP)), start, hi)
            yield start, end
            start = end


@dataclass(slots=True)
class Plan:
    """The count for one query: the counter's start value from each position on (``2**width`` less the allowance
    and one), the positions to count, and those that pass whatever they miss (allowed to miss every feature)."""

    width: int
    steps: list[tuple[int, int]] = field(default_factory=list)
    alive: int = 0
    free: int = 0

    @classmethod
    def of(cls, groups: list[tuple[int, int, int]], features: int) -> Plan:
        """From ``(start, end, allowance)`` runs of positions and how many features the query holds. The allowance
        never grows with the length, so the free, the counted and the hopeless positions are one run each."""
        counted = [(start, end, allowance) for start, end, allowance in groups if 0 <= allowance < features]
        width = max(1, max((allowance for _, _, allowance in counted), default=0).bit_length())
        steps = [
            (start, (1 << width) - allowance - 1 if 0 <= allowance < features else 0) for start, _, allowance in groups
        ]
        free = [(start, end, allowance) for start, end, allowance in groups if allowance >= features]
        return cls(width, steps, _covering(counted), _covering(free))


def _covering(runs: list[tuple[int, int, int]]) -> int:
    """The bitset of consecutive runs of positions, from the first's start to the last's end."""
    return _span(runs[0][0], runs[-1][1]) if runs else 0


def _bitsets(keys: Sequence[str]) -> dict[int, int]:
    """For each feature, the bitset of the positions of ``keys`` holding it (built a byte array each: one pass)."""
    size = (len(keys) + 7) // 8
    raws: dict[int, bytearray] = {}
    for position, key in enumerate(keys):
        byte, bit = position >> 3, 1 << (position & 7)
        for feature in occurrences(key):
            if (raw := raws.get(feature)) is None:
                raw = raws[feature] = bytearray(size)
            raw[byte] |= bit
    return {feature: int.from_bytes(raw, "little") for feature, raw in raws.items()}


def _span(lo: int, hi: int) -> int:
    """The bitset of positions ``lo``..``hi - 1``."""
    return ((1 << hi) - 1) ^ ((1 << lo) - 1)


def set_bits(value: int) -> list[int]:
    """The positions of the set bits of ``value`` (its bytes scanned in C, then only the non-zero ones)."""
    if not value:
        return []
    raw = value.to_bytes((value.bit_length() + 7) // 8, "little")
    found: list[int] = []
    for match in _NONZERO.finditer(raw):
        byte, base = raw[match.start()], match.start() << 3
        found.extend(base + b for b in range(8) if byte >> b & 1)
    return found
