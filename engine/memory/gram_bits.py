"""Which memory sources could share enough of a query's characters or bigrams: a count filter on big-int bitsets.

For each gram (a character, or a bigram's hash bucket), the positions of the sources holding it are one Python
int used as a bitset, so combining the grams of a query costs a few big-int operations per gram (C speed), not
one Python step per source. A query's grams are added into a bit-sliced counter per position; a position whose
count reaches the needed number is a candidate. A source can only be counted as holding more than it does (a
bucket shared by two bigrams, a rare gram assumed shared), never less, so no true match is ever dropped.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence

_NONZERO = re.compile(rb"[^\x00]")
COUNT_BITS = 6
COUNT_TO = 1 << COUNT_BITS  # the filter asks for at most this many shared grams (enough to be selective)

Grams = Callable[[str], Iterable[Hashable]]


class GramBits:
    """For each gram, the bitset of the positions of ``keys`` holding it, and how many do."""

    def __init__(self, keys: Sequence[str], grams: Grams) -> None:
        self.grams = grams
        places: dict[Hashable, list[int]] = defaultdict(list)
        for i, key in enumerate(keys):
            for gram in set(grams(key)):
                places[gram].append(i)
        size = (len(keys) + 7) // 8
        self.bits: dict[Hashable, int] = {gram: _bitset(where, size) for gram, where in places.items()}
        self.frequency: dict[Hashable, int] = {gram: len(where) for gram, where in places.items()}

    def reaching(self, key: str, needed: int, lo: int, hi: int) -> int:
        """The positions ``lo``..``hi`` (a bitset from ``lo``) whose grams could cover ``needed`` of ``key``'s: a
        gram ``key`` holds ``n`` times counts ``n`` where the source holds it. Only the rarest grams are counted;
        the others are assumed shared, which keeps the count an upper bound."""
        band = (1 << (hi - lo)) - 1
        counts = Counter(self.grams(key))
        rest = sum(counts.values())
        chosen: list[tuple[Hashable, int]] = []
        for gram, n in sorted(counts.items(), key=lambda item: self.frequency.get(item[0], 0)):
            if needed - rest >= COUNT_TO:
                break
            chosen.append((gram, n))
            rest -= n
        short = min(needed - rest, COUNT_TO)  # how many of the chosen grams' occurrences a candidate must hold
        if short <= 0:
            return band
        # A bit-sliced counter per position, started at 2**K − short: its carry out of the top bit is "≥ short".
        start = (1 << COUNT_BITS) - short
        sliced = [band if start >> level & 1 else 0 for level in range(COUNT_BITS)]
        reached = 0
        for gram, n in chosen:
            if present := self.bits.get(gram, 0) >> lo & band:
                reached |= _add(sliced, present, n)
        return reached


def _bitset(positions: list[int], size: int) -> int:
    raw = bytearray(size)
    for i in positions:
        raw[i >> 3] |= 1 << (i & 7)
    return int.from_bytes(raw, "little")


def _add(sliced: list[int], present: int, weight: int) -> int:
    """Add ``weight`` at the positions set in ``present`` to the bit-sliced counter; returns the carries out."""
    out = present if weight >> COUNT_BITS else 0
    for level in range(COUNT_BITS):
        if weight >> level & 1:
            out |= _ripple(sliced, present, level)
    return out


def _ripple(sliced: list[int], carry: int, level: int) -> int:
    for bit in range(level, COUNT_BITS):
        sliced[bit], carry = sliced[bit] ^ carry, sliced[bit] & carry
        if not carry:
            break
    return carry


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


BIGRAM_BUCKETS = 4096


def bigram_buckets(key: str) -> list[int]:
    """The hash buckets of ``key``'s bigrams (a bucket per bigram would cost a bitset per distinct bigram)."""
    return [hash(key[i : i + 2]) & (BIGRAM_BUCKETS - 1) for i in range(len(key) - 1)]


def characters(key: str) -> str:
    """The characters of ``key`` (unigrams)."""
    return key
