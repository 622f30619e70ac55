"""get_paragraph_position, get_paragraph_info and find_paragraph_by_keywords."""

from __future__ import annotations

from engine.tools.lookup import ChapterIndex, chapter_index
from store.model import append_version
from tests.engine.tool_chapters import call, chapter_of, ids_of

TEXTS = ["Rain at the gate.", "", "The servant waited.", "\u3000", "An old woman. RAIN again.", "Night fell."]
IDS = ["a", "e1", "b", "e2", "c", "d"]


async def test_position_counts_empty_paragraphs_in_total_and_index() -> None:
    chapter = chapter_of(TEXTS, ids=IDS)
    result = await call("get_paragraph_position", {"paragraph_id": "c"}, chapter)
    assert result == {
        "success": True,
        "paragraph_id": "c",
        "paragraph_index": 5,
        "total_paragraphs": 6,
        "progress_percentage": 83.3,
    }


async def test_position_neighbours_unrestricted_nearest_first() -> None:
    chapter = chapter_of(TEXTS, ids=IDS)
    result = await call(
        "get_paragraph_position",
        {"paragraph_id": "c", "include_previous": True, "previous_count": 5, "include_next": True},
        chapter,
    )
    assert ids_of(result, "previous_paragraphs") == ["b", "a"]
    assert ids_of(result, "next_paragraphs") == ["d"]
    assert "clipped_to_chunk" not in result


async def test_position_with_boundaries_clips_and_reports_chunk_place() -> None:
    chapter = chapter_of(TEXTS, ids=IDS)
    result = await call(
        "get_paragraph_position",
        {"paragraph_id": "b", "include_previous": True, "include_next": True, "next_count": 1},
        chapter,
        ["b", "c"],
    )
    assert result["previous_paragraphs"] == []
    assert ids_of(result, "next_paragraphs") == ["c"]
    assert result["clipped_to_chunk"] is True
    assert result["chunk_position"] == {"position": 1, "of": 2}
    out = await call("get_paragraph_position", {"paragraph_id": "a"}, chapter, ["b", "c"])
    assert out["error_code"] == "OUT_OF_CHUNK"


async def test_info_lists_every_version_and_is_never_restricted() -> None:
    chapter = chapter_of(TEXTS, ids=IDS, translations={0: "first"})
    para, version = append_version(chapter.paragraph("a"), "second", origin="polish", model="m", select=False)
    chapter = chapter.with_paragraphs({0: para})
    result = await call("get_paragraph_info", {"paragraph_id": "a"}, chapter, ["c", "d"])  # a is outside the chunk
    assert result["success"] is True
    p = result["paragraph"]
    assert (p["paragraph_id"], p["paragraph_index"], p["text"], p["translation"], p["reviewed"]) == (
        "a",
        1,
        "Rain at the gate.",
        "first",
        False,
    )
    assert [(v["text"], v["origin"], v["model"], v["selected"]) for v in p["versions"]] == [
        ("first", "translation", "seed", True),
        ("second", "polish", "m", False),
    ]
    assert p["versions"][1]["id"] == version.id and p["versions"][1]["created_at"] == version.created_at
    missing = await call("get_paragraph_info", {"paragraph_id": "nope"}, chapter)
    assert missing["error_code"] == "PARAGRAPH_NOT_FOUND"


async def test_keyword_search_is_or_case_insensitive_in_order_and_unrestricted() -> None:
    chapter = chapter_of(TEXTS, ids=IDS, translations={2: "下人が待っていた", 5: "夜"})
    result = await call("find_paragraph_by_keywords", {"keywords": ["rain", "night"]}, chapter, ["b"])
    assert result["success"] is True
    assert ids_of(result) == ["a", "c", "d"]
    assert result["more_results"] is False
    limited = await call("find_paragraph_by_keywords", {"keywords": ["rain", "night"], "max_results": 2}, chapter)
    assert ids_of(limited) == ["a", "c"] and limited["more_results"] is True
    in_tr = await call("find_paragraph_by_keywords", {"keywords": ["待って"], "in_translation": True}, chapter)
    assert ids_of(in_tr) == ["b"]
    assert in_tr["paragraphs"][0]["translation"] == "下人が待っていた"
    single = await call("find_paragraph_by_keywords", {"keywords": "servant"}, chapter)  # a bare string is one keyword
    assert ids_of(single) == ["b"]


async def test_keyword_search_validates_keywords() -> None:
    chapter = chapter_of(TEXTS, ids=IDS)
    for bad in ([], ["  "], ["x"] * 21, ["y" * 201]):
        result = await call("find_paragraph_by_keywords", {"keywords": bad}, chapter)
        assert result["error_code"] == "INVALID_ARGUMENTS", bad
        assert result["field"].startswith("keywords")


def test_index_tables_are_built_once_per_chapter_version_and_reused_across_commits() -> None:
    chapter = chapter_of(TEXTS, ids=IDS)
    first = chapter_index(chapter)
    assert chapter_index(chapter) is first
    assert list(first.nonempty) == [0, 2, 4, 5]
    assert first.previous_positions(4, 5) == [2, 0]
    assert first.next_positions(1, 2) == [2, 4]
    # A commit appends versions: the new chapter object shares the source texts, so the tables are shared.
    para, _ = append_version(chapter.paragraph("b"), "t", origin="translation", model=None)
    newer = chapter.with_paragraphs({2: para})
    second = chapter_index(newer)
    assert second is first  # handed on by with_paragraphs: nothing rebuilt, nothing compared
    rebuilt = ChapterIndex.build(chapter_of([*TEXTS[:-1], ""], ids=IDS))
    assert list(rebuilt.nonempty) == [0, 2, 4]
