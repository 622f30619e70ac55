"""Which memory sources could be similar enough to a query: a count filter on the characters they share.

Similarity is ``2·LCS / (la + lb)``, and a common subsequence uses each character at most as often as both texts
hold it, so the LCS is at most the size of the two texts' common multiset of characters. A text's characters are
indexed as occurrences — the k-th ``の`` is the feature ``(の, k)`` — so the common multiset is exactly the number
of features both hold (only the first ``MAX_OCCURRENCE`` of a character are indexed; the query's others are
counted as shared). On real text this bound alone rejects nearly every source below a 0.75 ratio.

The positions missing each feature (sources sorted by length, longest first) are one big-int bitset. A source of
length ``lb`` needs at least ``t·(la + lb)/2`` shared, so it may miss only so many of the query's features (its
allowance, 0 for the longest sources of the band). The misses are counted for all positions at once
(``bit_counter``, sixteen features at a time), the rarest features first, and a position dies with the block that
brings its first miss too many, so the count usually ends long before the query's last feature: when no more than
``ENOUGH`` positions are left, they are handed to the scorer as they are.
A source is only ever counted as sharing more than it does, never less, so no true match is dropped.

Why longest first: an operation on a shard's bitset costs from its bit 0 up to the band's last position, so the
positions below the band are paid for too. The longest paragraphs count the most features (their allowance grows
with their length) and their bands are narrow (few sources are that long): longest first, their bands start at
bit 0 of the first shard (28% fewer bits counted over the benchmark's chunks than shortest first).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate, groupby

from engine.memory.bit_counter import MIN_WIDTH, positions_below, start_slices, surviving

OCCURRENCE_BITS = 6  # a feature is (character, occurrence): the occurrence takes the low bits of the int naming it
MAX_OCCURRENCE = (1 << OCCURRENCE_BITS) - 1  # 63: a character's later occurrences are not indexed
ENOUGH = 24  # once this few positions are left, scoring them costs less than counting on
SHARD = 32768  # positions per bitset (a multiple of 8): a band's shards are counted one by one
SHARD_ENOUGH = 8  # a shard stops at its share of ENOUGH, but never below this many positions left
LENGTH_STEP = 1.06  # sources within 6% of the same length share one allowance (that of the shortest)
CUT = 0.4  # counted positions ending below this share of their shard: each feature is cut to them first (an
# operation costs up to its widest operand; one AND at their width saves five at the shard's)

_NONZERO = re.compile(rb"[^\x00]")
_UP_TO = [range(1, n + 1) for n in range(MAX_OCCURRENCE + 1)]


def occurrences(key: str) -> list[int]:
    """The features of ``key``: ``ord(c) << OCCURRENCE_BITS | k`` for the k-th occurrence of each character ``c``."""
    return [ord(c) << OCCURRENCE_BITS | k for c, n in Counter(key).items() for k in _UP_TO[min(n, MAX_OCCURRENCE)]]


@dataclass(frozen=True, slots=True)
class Query:
    """A query: the ranks of its features some source holds, rarest first (a feature no source holds is missed
    by every one: it only leaves the others less allowance); how many of its characters are not features (past
    ``MAX_OCCURRENCE``, counted as shared); the ratio asked."""

    length: int
    ranks: list[int]
    unindexed: int
    threshold: float

    def allowance(self, length: int) -> int:
        """How many of the query's features a source of ``length`` may miss: all but the shared characters it
        needs at least (one below, for float rounding)."""
        return len(self.ranks) + 1 + self.unindexed - math.ceil(self.threshold * (self.length + length) / 2)


class CharacterFilter:
    """For each occurrence feature, the positions of ``keys`` (longest first) missing it: one bitset per shard of
    ``SHARD`` positions, so a query counts only the shards its length band covers, each from bit 0 (no feature is
    ever shifted), and a feature no position of a shard holds shares that shard's one all-missing bitset."""

    def __init__(self, keys: Sequence[str]) -> None:
        self.lengths = [len(key) for key in keys]
        self.negated = [-length for length in self.lengths]  # ascending, for bisect
        self.classes = _length_classes(self.lengths, self.negated)
        self.shard = SHARD
        self.table, self.missing = _by_character(keys, self.shard)  # missing[shard][rank]: a bitset
        self.below = _below_runs(self.lengths, self.shard)

    def query(self, key: str, threshold: float) -> Query:
        """The query's features some source holds, rarest first. Per character: a source holding its k-th
        occurrence holds the ones before, so the held features of ``c`` seen ``n`` times are the first ``n`` of
        the character's ranks (one look-up per character, not per occurrence)."""
        counts = Counter(key)
        ranks: list[int] = []
        held = self.table.get
        for character, count in counts.items():
            ranks += held(character, ())[:count]
        ranks.sort()
        unindexed = sum(count - MAX_OCCURRENCE for count in counts.values() if count > MAX_OCCURRENCE)
        return Query(len(key), ranks, unindexed, threshold)

    def reaching(self, query: Query, lo: int, hi: int) -> list[int]:
        """The positions ``lo``..``hi`` that could share enough with the query, counted shard by shard. Each shard
        stops at its share of ``ENOUGH`` (at least ``SHARD_ENOUGH``), so few positions are left unsettled in all."""
        shards = range(lo // self.shard, (hi - 1) // self.shard + 1)
        enough = max(SHARD_ENOUGH, ENOUGH // len(shards))
        found: list[int] = []
        for shard in shards:
            start = shard * self.shard
            within = self._reaching_in(query, shard, max(lo, start), min(hi, start + self.shard), enough)
            found += [start + position for position in within]
        return found

    def _reaching_in(self, query: Query, shard: int, lo: int, hi: int, enough: int) -> list[int]:
        """The positions ``lo``..``hi`` of one shard (counted from the shard's start) that could share enough."""
        start = shard * self.shard
        ends = [*self.classes[bisect_right(self.classes, lo) : bisect_left(self.classes, hi)], hi]
        allowances = [query.allowance(self.lengths[end - 1]) for end in ends]
        bounds = [lo - start, *(end - start for end in ends)]
        plan = Plan.of(bounds, allowances, len(query.ranks), self.below)
        found = plan.free
        if plan.alive:
            missing = map(self.missing[shard].__getitem__, query.ranks)
            if plan.end < CUT * self.shard:
                missing = map(plan.alive.__and__, missing)
            slices = start_slices(plan.steps, plan.end, plan.width, self.below)
            found |= surviving(missing, plan.alive, slices, enough)
        return set_bits(found)


@dataclass(frozen=True, slots=True)
class Plan:
    """The count for one piece of a band: the counter's start value from each position on (``2**width`` less the
    allowance and one) up to ``end``, the positions to count, and those that pass whatever they miss (allowed to
    miss every feature)."""

    width: int
    steps: list[tuple[int, int]]
    end: int
    alive: int
    free: int

    @classmethod
    def of(cls, bounds: list[int], allowances: list[int], features: int, below: Mapping[int, int]) -> Plan:
        """From the length classes' runs of positions (``bounds[i]``..``bounds[i + 1]``), each run's allowance and
        how many features the query holds. The allowance never falls along the positions (the longest sources come
        first), so the hopeless (allowance < 0), the counted and the free runs are one stretch each."""
        first, last = bisect_left(allowances, 0), bisect_left(allowances, features)
        width = max(MIN_WIDTH, allowances[last - 1].bit_length() if last > first else 0)
        top = (1 << width) - 1
        steps = [(bounds[run], top - allowances[run]) for run in range(first, last)]
        alive = _span(bounds[first], bounds[last], below)
        return cls(width, steps, bounds[last], alive, _span(bounds[last], bounds[-1], below))


def _span(lo: int, hi: int, below: Mapping[int, int]) -> int:
    """The bitset of positions ``lo``..``hi - 1``."""
    return positions_below(hi, below) ^ positions_below(lo, below)


def _holders(keys: Sequence[str]) -> dict[int, bytearray]:
    """For each feature, the positions of ``keys`` holding it as a little-endian bit array (one pass)."""
    size = (len(keys) + 7) // 8
    raws: dict[int, bytearray] = {}
    for position, key in enumerate(keys):
        byte, bit = position >> 3, 1 << (position & 7)
        for feature in occurrences(key):
            if (raw := raws.get(feature)) is None:
                raw = raws[feature] = bytearray(size)
            raw[byte] |= bit
    return raws


def _length_classes(lengths: Sequence[int], negated: Sequence[int]) -> list[int]:
    """Where each run of positions whose lengths are within ``LENGTH_STEP`` of the run's longest (its first) starts."""
    starts: list[int] = []
    start = 0
    while start < len(lengths):
        starts.append(start)
        longest = lengths[start]
        start = bisect_right(negated, -min(longest, math.floor(longest / LENGTH_STEP) + 1), start)
    return starts


def _below_runs(lengths: Sequence[int], shard: int) -> dict[int, int]:
    """For each place within a shard where a run of equal lengths starts or ends (every place a band, a length
    class or a shard piece starts or ends), the bitset of the shard's positions below it."""
    ends = accumulate(len(list(run)) for _, run in groupby(lengths))
    return {at: (1 << at) - 1 for at in sorted({0, shard, *(end % shard for end in ends)})}


def _by_character(keys: Sequence[str], shard: int) -> tuple[dict[str, list[int]], list[list[int]]]:
    """Each character's held occurrences in order, by rank (the fewer positions hold a feature, the lower its
    rank), and for each shard, each rank's bitset of the positions missing it. The bit arrays are made one shard at
    a time: only one shard's are alive at once."""
    everyone = (1 << shard) - 1
    shards = range(0, len(keys), shard)
    missing: dict[int, list[int]] = {}  # feature -> the positions missing it, per shard
    holders: Counter[int] = Counter()
    for at, first in enumerate(shards):
        for feature, raw in _holders(keys[first : first + shard]).items():
            bits = int.from_bytes(raw, "little")
            holders[feature] += bits.bit_count()
            missing.setdefault(feature, [everyone] * len(shards))[at] = everyone ^ bits
    held = sorted(holders, key=lambda feature: (holders[feature], feature))
    rank = {feature: at for at, feature in enumerate(held)}
    table: dict[str, list[int]] = {}
    for feature in sorted(rank):  # a character's occurrences in order: (の, 1), (の, 2), …
        table.setdefault(chr(feature >> OCCURRENCE_BITS), []).append(rank[feature])
    return table, [[missing[feature][at] for feature in held] for at in range(len(shards))]


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
