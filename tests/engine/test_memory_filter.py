"""The memory's candidate filter never loses a source that reaches the threshold (design section 17).

The filter is an upper bound computed with big-int bitsets; these tests hold it against the plain definitions:
the counter against counting one by one, the whole lookup against scoring every source with rapidfuzz.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from engine.memory import char_filter
from engine.memory.bit_counter import MIN_WIDTH, start_slices, surviving
from engine.memory.char_filter import MAX_OCCURRENCE, OCCURRENCE_BITS, CharacterFilter, occurrences
from engine.memory.entries import MemoryEntry
from engine.memory.index import MemoryIndex

pytestmark = pytest.mark.slow


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 2**24 - 1), max_size=40),
    st.lists(st.integers(-1, 12), min_size=24, max_size=24),
    st.integers(0, 30),
)
def test_the_counter_keeps_exactly_the_positions_within_their_allowance(
    missing: list[int], allowances: list[int], enough: int
) -> None:
    width = max(MIN_WIDTH, max(allowances).bit_length())
    alive = sum(1 << p for p, a in enumerate(allowances) if a >= 0)
    steps = [(p, (1 << width) - a - 1 if a >= 0 else 0) for p, a in enumerate(allowances)]
    missed = [sum(bits >> p & 1 for bits in missing) for p in range(len(allowances))]
    exact = sum(1 << p for p, a in enumerate(allowances) if a >= 0 and missed[p] <= a)
    assert surviving(iter(missing), alive, start_slices(steps, len(allowances), width, {}), 0) == exact
    early = surviving(iter(missing), alive, start_slices(steps, len(allowances), width, {}), enough)
    assert early & exact == exact and early & alive == early  # a superset of the answer, within the living
    assert early == exact or early.bit_count() <= enough


def test_start_slices_spell_each_positions_value() -> None:
    slices = start_slices([(2, 5), (4, 2), (7, 7)], 9, 3, {4: 0b1111})
    values = [sum((slices[k] >> p & 1) << k for k in range(3)) for p in range(12)]
    assert values == [0, 0, 5, 5, 2, 2, 2, 7, 7, 0, 0, 0]


def test_occurrences_count_repeats_up_to_the_cap() -> None:
    def named(character: str, k: int) -> int:
        return ord(character) << OCCURRENCE_BITS | k

    assert sorted(occurrences("のをの")) == sorted([named("の", 1), named("の", 2), named("を", 1)])
    assert len(occurrences("あ" * 400)) == MAX_OCCURRENCE


TEXT = st.text(alphabet="あいうの下人門雨、。ab", min_size=1, max_size=90)


@settings(max_examples=200, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=60, unique=True), TEXT, st.sampled_from([0.5, 0.6, 0.75, 0.8, 0.9, 0.97]))
def test_the_lookup_finds_the_best_score_a_full_scan_finds(sources: list[str], query: str, threshold: float) -> None:
    index = MemoryIndex([MemoryEntry(s, str(i), "old", str(i)) for i, s in enumerate(sources)])
    match = index.best(query, threshold, "c", "p")
    if query in sources:
        assert match is not None and match.exact
        return
    best = max((score for s in sources if (score := fuzz.ratio(query, s)) >= threshold * 100), default=None)
    assert (match.score if match else None) == best


@settings(max_examples=100, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=60, unique=True), TEXT, st.sampled_from([0.5, 0.75, 0.9]))
def test_a_band_over_many_shards_finds_what_a_full_scan_finds(sources: list[str], query: str, threshold: float) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(char_filter, "SHARD", 8)  # a shard of 8 positions: most bands cross several
        index = MemoryIndex([MemoryEntry(s, str(i), "old", str(i)) for i, s in enumerate(sources)])
    assert index.filter.shard == 8
    match = index.best(query, threshold, "c", "p")
    others = [s for s in sources if s != query]
    best = max((score for s in others if (score := fuzz.ratio(query, s)) >= threshold * 100), default=None)
    assert query in sources or (match.score if match else None) == best


def test_a_character_repeated_past_the_cap_is_still_matched() -> None:
    base = "の" * 100 + "下人" * 5
    near = "の" * 98 + "下人" * 5 + "雨"
    index = MemoryIndex([MemoryEntry(near, "t", "old", "1"), MemoryEntry("の" * 3 + "門" * 40, "u", "old", "2")])
    match = index.best(base, 0.9, "c", "p")
    assert match is not None and match.entry.target == "t" and match.score == pytest.approx(fuzz.ratio(base, near))


def test_the_filter_rejects_sources_that_share_too_few_characters() -> None:
    keys = sorted(["あいうえおかきくけこ", "あいうえおさしすせそ", "たちつてとなにぬねの"], key=len)
    filtered = CharacterFilter(keys)
    found = filtered.reaching(filtered.query("あいうえおかきくけこ", 0.75), 0, len(keys))
    assert [keys[p] for p in found] == ["あいうえおかきくけこ"]


@st.composite
def near_copies(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A query and many sources made from it by deletions and by replacements with characters it lacks: their
    character bound is close to their LCS, so many sit at the edge of their allowance, and their lengths fill whole
    length groups (a group must take the allowance of its shortest source)."""
    alphabet = "あいうえお下人門雨"[: draw(st.integers(2, 9))]  # few characters: many repeats, some past the cap
    query = draw(st.text(alphabet=st.sampled_from(alphabet), min_size=30, max_size=90))
    sources = {query[1:]}
    for _ in range(draw(st.integers(20, 60))):
        chars = list(query)
        for _ in range(draw(st.integers(0, len(chars) // 4))):
            del chars[draw(st.integers(0, len(chars) - 1))]
        for _ in range(draw(st.integers(0, len(chars) // 5))):
            chars[draw(st.integers(0, len(chars) - 1))] = draw(st.sampled_from("ab、。"))
        sources.add("".join(chars))
    return query, sorted(sources - {query})


@settings(max_examples=150, deadline=None)
@given(near_copies(), st.sampled_from([0.6, 0.75, 0.8, 0.9]))
def test_sources_at_the_edge_of_their_allowance_are_kept(case: tuple[str, list[str]], threshold: float) -> None:
    query, sources = case
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(char_filter, "ENOUGH", 0)  # count every feature: no early hand-over to the scorer
        patch.setattr(char_filter, "SHARD_ENOUGH", 0)
        index = MemoryIndex([MemoryEntry(s, str(i), "old", str(i)) for i, s in enumerate(sources)])
        found = {index.keys[p] for p in index.filter.reaching(index.filter.query(query, threshold), 0, len(index))}
    reaching = {s for s in sources if fuzz.ratio(query, s) >= threshold * 100}
    assert reaching <= found


REPEATING = st.text(alphabet="あいうの", min_size=20, max_size=90)  # every character far past a cap of 2
EDITS = st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from("あいうの下人")), min_size=1, max_size=8)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(TEXT, max_size=30), REPEATING, st.lists(EDITS, min_size=1, max_size=4), st.sampled_from([0.6, 0.75, 0.9])
)
def test_occurrences_past_the_cap_never_lose_a_match(
    others: list[str], query: str, edits: list[list[tuple[int, str]]], threshold: float
) -> None:
    near = [
        "".join(dict((at % len(query), c) for at, c in edit).get(i, c) for i, c in enumerate(query)) for edit in edits
    ]
    sources = [s for s in dict.fromkeys(others + near) if s != query]  # near copies: scores close to the threshold
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(char_filter, "MAX_OCCURRENCE", 2)
        index = MemoryIndex([MemoryEntry(s, str(i), "old", str(i)) for i, s in enumerate(sources)])
        match = index.best(query, threshold, "c", "p")
    best = max((score for s in sources if (score := fuzz.ratio(query, s)) >= threshold * 100), default=None)
    assert (match.score if match else None) == best
