"""Counting, for every position at once, how many features each position misses: a carry-save (Harley–Seal)
counter on big-int bitsets.

A bitset is a Python int; the counter is given, for each feature, the positions that miss it (bit ``p`` set:
position ``p`` does not hold the feature), so a miss among the living is one operation. The counter keeps each
position's count in bit slices (``slices[k]`` holds bit ``k`` of every position's count), so adding a bitset costs a few
big-int operations, C speed, however many positions there are. Inputs are added two at a time by a carry-save
adder (five operations for two); a carry waits at its level for a partner and the two go up together, so an input
costs about five operations whatever the counter's width (a ripple-carry add costs two per level).

Each position starts at ``2**n − allowance − 1`` (``slices``): it overflows — dies — on its ``allowance + 1``-th
miss, and a dead position is masked out of every later input, so the count stops as soon as nobody is left.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain

FLUSH = 8  # every this many pairs the waiting carries are added, so a position dies within 16 misses of it
NOBODY = 0  # a feature missed by no position: pads an odd count


def surviving(missing: Iterable[int], alive: int, slices: list[int], enough: int) -> int:
    """The positions of ``alive`` that miss no more than their allowance of the features (``missing``: for each,
    the bitset of the positions missing it; best rarest first, so misses come early). Stops once ``enough`` or fewer
    positions are left and returns them (a superset of the answer, for the caller to check). Uses up ``slices``."""
    waiting = [0] * len(slices)  # a carry waiting at its level for a partner (0: none; a zero carry adds nothing)
    features = chain(missing, (NOBODY,))  # pairs: an odd last one is paired with NOBODY, an even count drops it
    for pair, (first, second) in enumerate(zip(features, features, strict=False), 1):
        missed_first = alive & first
        missed_second = alive & second
        low = slices[0]
        both = low ^ missed_first
        carry = (low & missed_first) | (both & missed_second)
        slices[0] = both ^ missed_second
        dead = _carry_up(slices, waiting, carry) if carry else 0
        if pair % FLUSH == 0:
            dead |= _flush(slices, waiting)
        if dead:
            alive ^= alive & dead
            if alive.bit_count() <= enough:
                return alive
            if pair % FLUSH == 0:  # nothing waits now: the slices may forget the dead (narrower ints from here)
                slices[:] = [level & alive for level in slices]
    return alive ^ (alive & _flush(slices, waiting))


def _flush(slices: list[int], waiting: list[int]) -> int:
    """Add the carries waiting for a partner (ripple-carry): the positions that overflowed."""
    dead = 0
    for level, carry in enumerate(waiting):
        if carry:
            waiting[level] = 0
            dead |= _ripple(slices, carry, level)
    return dead


def _carry_up(slices: list[int], waiting: list[int], carry: int) -> int:
    """Take a carry into level 1: paired with the one waiting there (if any) and carried on; returns overflow."""
    level = 1
    while carry:
        if level == len(slices):
            return carry
        partner = waiting[level]
        if not partner:
            waiting[level] = carry
            return 0
        waiting[level] = 0
        both = slices[level] ^ partner
        slices[level], carry = both ^ carry, (slices[level] & partner) | (both & carry)
        level += 1
    return 0


def _ripple(slices: list[int], carry: int, level: int) -> int:
    """Add ``carry`` at ``level`` (ripple-carry); returns the positions that overflowed."""
    for at in range(level, len(slices)):
        slices[at], carry = slices[at] ^ carry, slices[at] & carry
        if not carry:
            return 0
    return carry


def start_slices(steps: Iterable[tuple[int, int]], end: int, width: int) -> list[int]:
    """The slices of a start value per position, given as ``(position, value from there on)`` in ascending
    positions (0 before the first and from ``end``). A bit that changes at position ``a`` flips every position
    below ``a`` in its slice: the values' bits are the parity of the changes after each position."""
    slices = [0] * width
    value = 0
    for at, new in [*steps, (end, 0)]:
        if changed := value ^ new:
            below = (1 << at) - 1
            for level in range(width):
                if changed >> level & 1:
                    slices[level] ^= below
        value = new
    return slices
