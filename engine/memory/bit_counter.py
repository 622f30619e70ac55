"""Counting, for every position at once, how many features each position misses: a carry-save (Harley–Seal)
counter on big-int bitsets.

A bitset is a Python int; the counter is given, for each feature, the positions that miss it (bit ``p`` set:
position ``p`` does not hold the feature), so a miss is one operation whatever the number of positions. The
counter keeps each position's count in bit slices (``slices[k]`` holds bit ``k`` of every position's count).
Features are added sixteen at a time by a tree of carry-save adders (a full adder per bit slice: five operations
turn three bitsets into a sum and a carry), the counter's own slices taking part at each weight: ~5.2 operations
per feature, the fewest a carry-save count needs, in straight-line code (an operation on 32,768 bits costs
~150 ns, ~70 of them fixed, so the interpreter's share of a loop would show).

Each position starts at ``2**n − allowance − 1`` (``slices``): it overflows — dies — on its ``allowance + 1``-th
miss. A block adds at most 16, so with ``n ≥ MIN_WIDTH`` a position overflows at most once per block, and the
overflow out of the top slice is exactly the positions that died in it. A dead position's count runs on (it may
wrap); it is simply no longer among the living.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import islice

BLOCK = 16  # features added at once (the adder tree below is written for 16)
MIN_WIDTH = 4  # slices a counter needs at least: 2**4 > 16 − 1, so a block overflows a position at most once
NOBODY = 0  # a feature missed by no position: pads the last block


def surviving(missing: Iterable[int], alive: int, slices: list[int], enough: int) -> int:
    """The positions of ``alive`` that miss no more than their allowance of the features (``missing``: for each,
    the bitset of the positions missing it; best rarest first, so misses come early). Stops once ``enough`` or fewer
    positions are left and returns them (a superset of the answer, for the caller to check). Uses up ``slices``
    (at least ``MIN_WIDTH`` of them)."""
    features = iter(missing)
    while block := list(islice(features, BLOCK)):
        block += [NOBODY] * (BLOCK - len(block))
        dead = _add_sixteen(slices, block) & alive
        if dead:
            alive ^= dead
            if alive.bit_count() <= enough:
                break
    return alive


def _add_sixteen(slices: list[int], block: list[int]) -> int:
    """Add 16 bitsets (weight 1 each) to the counter; returns the positions that overflowed its top slice. Each
    line is a full adder: a slice and two inputs of its weight give the slice and a carry of the next weight
    (``u`` is the first two's sum: five operations)."""
    x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15 = block
    total, twos, fours, eights, *upper = slices
    total, c0 = (u := total ^ x0) ^ x1, (total & x0) | (u & x1)
    total, c1 = (u := total ^ x2) ^ x3, (total & x2) | (u & x3)
    total, c2 = (u := total ^ x4) ^ x5, (total & x4) | (u & x5)
    total, c3 = (u := total ^ x6) ^ x7, (total & x6) | (u & x7)
    total, c4 = (u := total ^ x8) ^ x9, (total & x8) | (u & x9)
    total, c5 = (u := total ^ x10) ^ x11, (total & x10) | (u & x11)
    total, c6 = (u := total ^ x12) ^ x13, (total & x12) | (u & x13)
    total, c7 = (u := total ^ x14) ^ x15, (total & x14) | (u & x15)
    twos, d0 = (u := twos ^ c0) ^ c1, (twos & c0) | (u & c1)
    twos, d1 = (u := twos ^ c2) ^ c3, (twos & c2) | (u & c3)
    twos, d2 = (u := twos ^ c4) ^ c5, (twos & c4) | (u & c5)
    twos, d3 = (u := twos ^ c6) ^ c7, (twos & c6) | (u & c7)
    fours, e0 = (u := fours ^ d0) ^ d1, (fours & d0) | (u & d1)
    fours, e1 = (u := fours ^ d2) ^ d3, (fours & d2) | (u & d3)
    eights, carry = (u := eights ^ e0) ^ e1, (eights & e0) | (u & e1)
    for level, bits in enumerate(upper):  # one carry left: a half adder per slice above
        upper[level], carry = bits ^ carry, bits & carry
    slices[:] = [total, twos, fours, eights, *upper]
    return carry


def start_slices(steps: Iterable[tuple[int, int]], end: int, width: int, below: Mapping[int, int]) -> list[int]:
    """The slices of a start value per position, given as ``(position, value from there on)`` in ascending
    positions (0 before the first and from ``end``). A bit that changes at position ``a`` flips every position
    below ``a`` in its slice: the values' bits are the parity of the changes after each position. ``below`` holds
    the bitsets of the positions below some ``a``, made once (``positions_below``)."""
    slices = [0] * width
    value = 0
    for at, new in [*steps, (end, 0)]:
        if changed := value ^ new:
            mask = positions_below(at, below)
            while changed:  # each changed bit, lowest first
                slices[(changed & -changed).bit_length() - 1] ^= mask
                changed &= changed - 1
        value = new
    return slices


def positions_below(at: int, made: Mapping[int, int]) -> int:
    """The bitset of the positions below ``at``: ``made[at]`` if it is there (``(1 << at) - 1`` costs as much as six
    bitwise operations on the same width)."""
    return made[at] if at in made else (1 << at) - 1
