"""get_previous_paragraphs / get_next_paragraphs: chapter walks, chunk walks, and the boundary property."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.chunks import build_chunks
from tests.engine.tool_chapters import call, chapter_of, ids_of

TEXTS = ["A", "", "B", "  ", "C", "\u3000", "D", "\ufeff", "E"]
IDS = ["a", "e1", "b", "e2", "c", "e3", "d", "e4", "e"]


async def test_unrestricted_walks_skip_empty_paragraphs() -> None:
    chapter = chapter_of(TEXTS, ids=IDS)
    nxt = await call("get_next_paragraphs", {"paragraph_id": "a", "count": 3}, chapter)
    assert ids_of(nxt) == ["b", "c", "d"]
    assert [p["paragraph_index"] for p in nxt["paragraphs"]] == [3, 5, 7]
    prev = await call("get_previous_paragraphs", {"paragraph_id": "e", "count": 2}, chapter)
    assert ids_of(prev) == ["d", "c"]


async def test_unrestricted_walks_stop_at_the_chapter_ends_with_success() -> None:
    chapter = chapter_of(TEXTS, ids=IDS)
    start = await call("get_previous_paragraphs", {"paragraph_id": "b", "count": 5}, chapter)
    assert start["success"] is True and ids_of(start) == ["a"]
    assert "start of the chapter" in start["note"]
    end = await call("get_next_paragraphs", {"paragraph_id": "e"}, chapter)
    assert end["success"] is True and end["paragraphs"] == []


async def test_an_empty_anchor_is_allowed_without_boundaries() -> None:
    chapter = chapter_of(TEXTS, ids=IDS)
    result = await call("get_next_paragraphs", {"paragraph_id": "e2", "count": 1}, chapter)
    assert ids_of(result) == ["c"]
    result = await call("get_previous_paragraphs", {"paragraph_id": "e2", "count": 1}, chapter)
    assert ids_of(result) == ["b"]


async def test_items_carry_index_text_and_selected_translation() -> None:
    chapter = chapter_of(["A", "B"], ids=["a", "b"], translations={1: "bee"})
    result = await call("get_next_paragraphs", {"paragraph_id": "a", "count": 1}, chapter)
    assert result["paragraphs"] == [{"paragraph_id": "b", "paragraph_index": 2, "text": "B", "translation": "bee"}]


async def test_chunk_walk_skips_a_translated_paragraph_inside_the_chunk_span() -> None:
    # b is already translated, so the translate chunk is [a, c, d]; b lies between a and c but is not an edge.
    chapter = chapter_of(["A", "B", "C", "D"], ids=["a", "b", "c", "d"], translations={1: "bee"})
    (chunk,) = build_chunks(chapter, "translate")
    assert chunk.paragraph_ids == ("a", "c", "d")
    result = await call("get_next_paragraphs", {"paragraph_id": "a", "count": 2}, chapter, chunk.paragraph_ids)
    assert ids_of(result) == ["c", "d"]
    result = await call("get_previous_paragraphs", {"paragraph_id": "c", "count": 1}, chapter, chunk.paragraph_ids)
    assert ids_of(result) == ["a"]


async def test_chunk_edge_that_is_also_the_chapter_edge_is_still_a_boundary_error() -> None:
    chapter = chapter_of(["A", "B"], ids=["a", "b"])
    result = await call("get_previous_paragraphs", {"paragraph_id": "a", "count": 1}, chapter, ["a", "b"])
    assert result["error_code"] == "CHUNK_BOUNDARY" and result["available_count"] == 0


async def test_anchor_outside_the_chunk_and_unknown_anchor() -> None:
    chapter = chapter_of(TEXTS, ids=IDS)
    out = await call("get_next_paragraphs", {"paragraph_id": "a"}, chapter, ["c", "d"])
    assert out["error_code"] == "OUT_OF_CHUNK"
    assert out["paragraph_id"] == "a"
    unknown = await call("get_next_paragraphs", {"paragraph_id": "zzz"}, chapter, ["c", "d"])
    assert unknown["error_code"] == "PARAGRAPH_NOT_FOUND"
    assert unknown["chunk_range"] == {"first_paragraph_id": "c", "last_paragraph_id": "d"}
    index_like = await call("get_next_paragraphs", {"paragraph_id": "3"}, chapter)
    assert index_like["error_code"] == "PARAGRAPH_NOT_FOUND"
    assert "looks like an index" in index_like["hint"]


async def test_id_copied_with_its_brackets_is_understood() -> None:
    chapter = chapter_of(TEXTS, ids=IDS)
    result = await call("get_next_paragraphs", {"paragraph_id": "[ID: a]", "count": 1}, chapter)
    assert ids_of(result) == ["b"]


async def test_count_bounds_are_enforced() -> None:
    chapter = chapter_of(TEXTS, ids=IDS)
    for bad in (0, 51, -1, "many"):
        result = await call("get_next_paragraphs", {"paragraph_id": "a", "count": bad}, chapter)
        assert result["error_code"] == "INVALID_ARGUMENTS"
        assert result["field"] == "count"


# -- property: with boundaries, a neighbour request never returns an ID outside the chunk ----------------

_texts = st.lists(st.sampled_from(["x", "yy", "", " ", "\u3000", "long " * 30]), min_size=1, max_size=30)


@settings(max_examples=120, deadline=None)
@given(
    texts=_texts,
    translated=st.sets(st.integers(0, 29)),
    budget=st.integers(200, 600),
    picks=st.lists(st.tuples(st.integers(0, 1000), st.integers(1, 50), st.booleans()), min_size=1, max_size=8),
)
def test_neighbours_never_leave_the_chunk(
    texts: list[str], translated: set[int], budget: int, picks: list[tuple[int, int, bool]]
) -> None:
    chapter = chapter_of(texts, translations={i: "t" for i in translated if i < len(texts)})
    chunks = build_chunks(chapter, "translate", chunk_chars=budget)

    async def check() -> None:
        for chunk in chunks:
            allowed = set(chunk.paragraph_ids)
            for anchor_pick, count, forward in picks:
                anchor = chapter.paragraphs[anchor_pick % len(chapter.paragraphs)].id
                name = "get_next_paragraphs" if forward else "get_previous_paragraphs"
                result = await call(name, {"paragraph_id": anchor, "count": count}, chapter, chunk.paragraph_ids)
                if anchor not in allowed:
                    assert result["error_code"] == "OUT_OF_CHUNK"
                    continue
                rank = chunk.paragraph_ids.index(anchor)
                room = len(chunk.paragraph_ids) - rank - 1 if forward else rank
                if count > room:
                    assert result["error_code"] == "CHUNK_BOUNDARY"
                    assert result["available_count"] == room
                    continue
                got = ids_of(result)
                assert set(got) <= allowed
                want = (
                    chunk.paragraph_ids[rank + 1 : rank + 1 + count]
                    if forward
                    else tuple(reversed(chunk.paragraph_ids[rank - count : rank]))
                )
                assert tuple(got) == want
                pos = await call(
                    "get_paragraph_position",
                    {
                        "paragraph_id": anchor,
                        "include_previous": True,
                        "previous_count": count,
                        "include_next": True,
                        "next_count": count,
                    },
                    chapter,
                    chunk.paragraph_ids,
                )
                assert set(ids_of(pos, "previous_paragraphs")) | set(ids_of(pos, "next_paragraphs")) <= allowed

    asyncio.run(check())
