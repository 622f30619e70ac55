"""add_translation_batch against real chapter files: every rejection leaves the file byte-identical."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from engine.chunks import Chunk, build_chunks
from engine.scope import ChunkScope
from engine.submissions import SubmissionTracker
from store.commit import ChapterStore
from store.loader import load_chapter
from store.model import append_version
from tests.engine.tool_chapters import REGISTRY, chapter_of, write_chapter

TEXTS = ["「おはよう」と彼女は言った。", "", "\u3000雨が降っていた。", "下人は待っていた。", "\ufeff", "夜が来た。"]
IDS = ["p1", "e2", "p3", "p4", "e5", "p6"]


@pytest.fixture
def chapter_file(tmp_path: Path) -> Path:
    return write_chapter(tmp_path / "ch01.json", chapter_of(TEXTS, ids=IDS))


def chunk_of(path: Path) -> Chunk:
    (chunk,) = build_chunks(load_chapter(path), "translate")
    return chunk


async def submit(
    path: Path,
    items: Any,
    *,
    chunk: Chunk | None = None,
    tracker: SubmissionTracker | None = None,
    store: ChapterStore | None = None,
    **options: Any,
) -> dict[str, Any]:
    args = {"paragraphs": items} if not isinstance(items, dict) else items
    source = store or ChapterStore(path)
    if tracker is not None:  # the chunk's own tracker, shared by several calls as in a run
        assert chunk is not None and not options
        scope = dataclasses.replace(ChunkScope.for_chunk(chunk, source, model="test-model"), submissions=tracker)
        return (await REGISTRY.call("add_translation_batch", args, scope)).result
    ids = chunk.paragraph_ids if chunk is not None else None
    options.setdefault("task", "translate" if chunk is not None else None)
    return await REGISTRY.handle_tool_call(
        "add_translation_batch", args, source=source, paragraph_ids=ids, model="test-model", **options
    )


async def rejected(path: Path, items: Any, code: str, **kwargs: Any) -> dict[str, Any]:
    """Submit, expect ``code``, and check the file did not change by a single byte."""
    before = path.read_bytes()
    result = await submit(path, items, **kwargs)
    assert result["success"] is False, result
    assert result["error_code"] == code, result
    assert result["error"] and result["hint"]
    assert path.read_bytes() == before
    return result


# -- step 1 -----------------------------------------------------------------------------------------------


async def test_empty_batch(chapter_file: Path) -> None:
    await rejected(chapter_file, [], "EMPTY_BATCH")


async def test_batch_too_large(chapter_file: Path) -> None:
    items = [{"paragraph_id": "p1", "translated_text": f"t{i}"} for i in range(21)]
    result = await rejected(chapter_file, items, "BATCH_TOO_LARGE")
    assert result["max_batch"] == 20
    small = [{"paragraph_id": pid, "translated_text": "x"} for pid in ("p1", "p3", "p4")]
    await rejected(chapter_file, small, "BATCH_TOO_LARGE", max_batch=2)


async def test_paragraphs_missing_or_not_a_list_or_items_not_objects(chapter_file: Path) -> None:
    missing = await rejected(chapter_file, {"items": []}, "INVALID_ARGUMENTS")
    assert missing["field"] == "paragraphs"
    not_list = await rejected(chapter_file, {"paragraphs": {"paragraph_id": "p1"}}, "INVALID_ARGUMENTS")
    assert not_list["field"] == "paragraphs"
    not_object = await rejected(
        chapter_file, [{"paragraph_id": "p1", "translated_text": "x"}, "p3"], "INVALID_ARGUMENTS"
    )
    assert not_object["field"] == "paragraphs[1]"


# -- step 2 -----------------------------------------------------------------------------------------------


async def test_index_only_item_alone(chapter_file: Path) -> None:
    chunk = chunk_of(chapter_file)
    result = await rejected(
        chapter_file, [{"index": 3, "translated_text": "It was raining."}], "INDEX_NOT_ACCEPTED", chunk=chunk
    )
    assert result["invalid_items"][0]["item"] == 1
    assert result["invalid_items"][0]["suggested_paragraph_id"] == "p3"  # [3] is p3: tell the model
    assert "[ID: …]" in result["hint"] and "index" in result["hint"]


async def test_index_only_item_mixed_with_valid_items_fails_the_whole_batch(chapter_file: Path) -> None:
    items = [
        {"paragraph_id": "p1", "translated_text": "'Morning,' she said."},
        {"index": 4, "translated_text": "The servant waited."},
        {"paragraph_id": "p6", "translated_text": "Night came."},
    ]
    result = await rejected(chapter_file, items, "INDEX_NOT_ACCEPTED", chunk=chunk_of(chapter_file))
    assert [i["item"] for i in result["invalid_items"]] == [2]


async def test_missing_and_blank_paragraph_id(chapter_file: Path) -> None:
    await rejected(chapter_file, [{"translated_text": "x"}], "MISSING_PARAGRAPH_ID")
    result = await rejected(chapter_file, [{"paragraph_id": "  ", "translated_text": "x"}], "MISSING_PARAGRAPH_ID")
    assert result["invalid_items"] == [
        {"item": 1, "code": "MISSING_PARAGRAPH_ID", "reason": "it has no paragraph_id (or a blank one)"}
    ]
    await rejected(chapter_file, [{"paragraph_id": 3, "translated_text": "x"}], "MISSING_PARAGRAPH_ID")


async def test_missing_and_blank_text(chapter_file: Path) -> None:
    result = await rejected(chapter_file, [{"paragraph_id": "p1"}], "MISSING_TEXT")
    assert result["invalid_items"][0]["paragraph_id"] == "p1"
    await rejected(chapter_file, [{"paragraph_id": "p1", "translated_text": " \n"}], "MISSING_TEXT")
    alias = await rejected(chapter_file, [{"paragraph_id": "p1", "text": "x"}], "MISSING_TEXT")
    assert "translated_text" in alias["hint"]


async def test_every_failing_item_is_listed_and_the_first_decides_the_code(chapter_file: Path) -> None:
    items = [
        {"paragraph_id": "p1", "translated_text": "ok"},
        {"paragraph_id": "p3"},
        {"index": 4, "translated_text": "x"},
        {"translated_text": "y"},
    ]
    result = await rejected(chapter_file, items, "MISSING_TEXT")
    assert [(i["item"], i["code"]) for i in result["invalid_items"]] == [
        (2, "MISSING_TEXT"),
        (3, "INDEX_NOT_ACCEPTED"),
        (4, "MISSING_PARAGRAPH_ID"),
    ]


# -- steps 3 to 5 -----------------------------------------------------------------------------------------


async def test_duplicate_ids(chapter_file: Path) -> None:
    items = [
        {"paragraph_id": "p1", "translated_text": "a"},
        {"paragraph_id": "p3", "translated_text": "b"},
        {"paragraph_id": "p1", "translated_text": "c"},
    ]
    result = await rejected(chapter_file, items, "DUPLICATE_PARAGRAPH_IDS")
    assert result["invalid_paragraph_ids"] == ["p1"]


async def test_not_in_chunk(tmp_path: Path) -> None:
    # p1 is already translated, so the translate chunk is [p3, p4, p6]: p1 and unknown IDs are outside it.
    path = write_chapter(tmp_path / "ch.json", chapter_of(TEXTS, ids=IDS, translations={0: "Morning."}))
    chunk = chunk_of(path)
    assert chunk.paragraph_ids == ("p3", "p4", "p6")
    items = [
        {"paragraph_id": "p3", "translated_text": "ok"},
        {"paragraph_id": "p1", "translated_text": "again"},
        {"paragraph_id": "zz", "translated_text": "made up"},
    ]
    result = await rejected(path, items, "NOT_IN_CHUNK", chunk=chunk)
    assert result["invalid_paragraph_ids"] == ["p1", "zz"]
    assert result["chunk_range"] == {"first_paragraph_id": "p3", "last_paragraph_id": "p6"}
    assert [i["item"] for i in result["invalid_items"]] == [2, 3]


async def test_not_in_chunk_with_a_real_neighbouring_chunk(tmp_path: Path) -> None:
    texts = [f"{i}番目の段落。" + "あ" * 80 for i in range(6)]
    path = write_chapter(tmp_path / "ch.json", chapter_of(texts, ids=[f"q{i}" for i in range(6)]))
    chunks = build_chunks(load_chapter(path), "translate", chunk_chars=200)
    assert len(chunks) >= 2
    result = await rejected(
        path, [{"paragraph_id": chunks[1].paragraph_ids[0], "translated_text": "x"}], "NOT_IN_CHUNK", chunk=chunks[0]
    )
    assert chunks[0].paragraph_ids[0] in result["error"] and chunks[0].paragraph_ids[-1] in result["error"]


async def test_not_found_without_boundaries(chapter_file: Path) -> None:
    result = await rejected(chapter_file, [{"paragraph_id": "nope", "translated_text": "x"}], "PARAGRAPH_NOT_FOUND")
    assert result["invalid_paragraph_ids"] == ["nope"]


async def test_empty_paragraph(chapter_file: Path) -> None:
    result = await rejected(chapter_file, [{"paragraph_id": "e5", "translated_text": "x"}], "EMPTY_PARAGRAPH")
    assert result["invalid_paragraph_ids"] == ["e5"]


async def test_prefix_mismatch_and_match(chapter_file: Path) -> None:
    result = await rejected(
        chapter_file,
        [{"paragraph_id": "p3", "translated_text": "x", "original_text_prefix": "下人は"}],
        "PREFIX_MISMATCH",
    )
    assert result["invalid_items"][0]["source_start"].startswith("雨が降って")
    # The stripped source (U+3000 indent removed) is compared with the stripped prefix.
    good = await submit(
        chapter_file, [{"paragraph_id": "p3", "translated_text": "It rained.", "original_text_prefix": " 雨が降"}]
    )
    assert good["success"] is True and good["accepted"] == ["p3"]


async def test_validation_order_first_failing_step_wins(chapter_file: Path) -> None:
    chunk = chunk_of(chapter_file)
    dup_and_outside = [{"paragraph_id": "zz", "translated_text": "a"}, {"paragraph_id": "zz", "translated_text": "b"}]
    await rejected(chapter_file, dup_and_outside, "DUPLICATE_PARAGRAPH_IDS", chunk=chunk)
    text_and_outside = [{"paragraph_id": "zz", "translated_text": "a"}, {"paragraph_id": "p1"}]
    await rejected(chapter_file, text_and_outside, "MISSING_TEXT", chunk=chunk)
    size_first = [{"index": 1}] * 21
    await rejected(chapter_file, size_first, "BATCH_TOO_LARGE", chunk=chunk)


# -- step 6 -----------------------------------------------------------------------------------------------


async def test_stale_paragraph(chapter_file: Path) -> None:
    chunk = chunk_of(chapter_file)
    tracker = SubmissionTracker.for_chunk(chunk)
    # Someone edits the source of p4 after the chunk was built.
    ChapterStore(chapter_file).update(lambda c: c.with_paragraphs({3: c.paragraphs[3].replace(text="下人は去った。")}))
    result = await rejected(
        chapter_file,
        [{"paragraph_id": "p1", "translated_text": "a"}, {"paragraph_id": "p4", "translated_text": "b"}],
        "STALE_PARAGRAPH",
        chunk=chunk,
        tracker=tracker,
    )
    assert result["invalid_paragraph_ids"] == ["p4"]
    assert Path(result["conflict_path"]).is_file()
    assert tracker.remaining == chunk.paragraph_ids


async def test_paragraph_removed_on_disk_is_stale_even_without_a_tracker(chapter_file: Path) -> None:
    chunk = chunk_of(chapter_file)
    ChapterStore(chapter_file).update(lambda c: c.replace(paragraphs=c.paragraphs[:3] + c.paragraphs[4:]))
    result = await rejected(
        chapter_file, [{"paragraph_id": "p4", "translated_text": "gone"}], "STALE_PARAGRAPH", chunk=chunk
    )
    assert result["invalid_paragraph_ids"] == ["p4"]


async def test_commit_failure(chapter_file: Path) -> None:
    store = ChapterStore(chapter_file)
    state = chapter_file.parent / ".proofdesk"
    if state.exists():
        state.rename(chapter_file.parent / "moved-state")
    state.write_text("not a folder")  # the lock cannot be created: the write fails
    result = await rejected(
        chapter_file, [{"paragraph_id": "p1", "translated_text": "a"}], "COMMIT_FAILED", store=store
    )
    assert "unchanged" in result["error"]


# -- success ------------------------------------------------------------------------------------------------


async def test_valid_batch_lands_exactly_on_its_paragraphs(chapter_file: Path) -> None:
    before = load_chapter(chapter_file)
    chunk = chunk_of(chapter_file)
    tracker = SubmissionTracker.for_chunk(chunk)
    result = await submit(
        chapter_file,
        [
            {"paragraph_id": "p6", "translated_text": "Night came."},
            {"paragraph_id": "p1", "translated_text": "'Morning,' she said."},
        ],
        chunk=chunk,
        tracker=tracker,
    )
    assert result == {"success": True, "accepted": ["p6", "p1"], "unchanged": [], "remaining": ["p3", "p4"]}
    after = load_chapter(chapter_file)
    for old, new in zip(before.paragraphs, after.paragraphs, strict=True):
        if old.id in ("p1", "p6"):
            (version,) = new.translations
            assert new.selected_translation_id == version.id
            assert (version.origin, version.model) == ("translation", "test-model")
            assert version.text == {"p1": "'Morning,' she said.", "p6": "Night came."}[old.id]
        else:
            assert new == old
    done = await submit(
        chapter_file,
        [
            {"paragraph_id": "p3", "translated_text": "It rained."},
            {"paragraph_id": "p4", "translated_text": "The servant waited."},
        ],
        chunk=chunk,
        tracker=tracker,
    )
    assert done["remaining"] == [] and tracker.complete


async def test_manual_origin_and_unchanged_text(chapter_file: Path) -> None:
    good = "“Good morning,” she said."  # a faithful translation: no QA warnings in the result
    first = await submit(chapter_file, [{"paragraph_id": "p1", "translated_text": good}])
    assert first == {"success": True, "accepted": ["p1"], "unchanged": []}  # no boundaries: no `remaining`
    assert load_chapter(chapter_file).paragraph("p1").selected.origin == "manual"
    before = chapter_file.read_bytes()
    again = await submit(chapter_file, [{"paragraph_id": "p1", "translated_text": good}])
    assert again["accepted"] == [] and again["unchanged"] == ["p1"]
    assert chapter_file.read_bytes() == before


async def test_a_correction_in_the_same_run_takes_the_selection(chapter_file: Path) -> None:
    chunk = chunk_of(chapter_file)
    tracker = SubmissionTracker.for_chunk(chunk)
    await submit(chapter_file, [{"paragraph_id": "p1", "translated_text": "Morning."}], chunk=chunk, tracker=tracker)
    fixed = await submit(
        chapter_file, [{"paragraph_id": "p1", "translated_text": "'Morning,' she said."}], chunk=chunk, tracker=tracker
    )
    assert fixed["accepted"] == ["p1"] and "kept_selection" not in fixed
    assert load_chapter(chapter_file).paragraph("p1").selected_text == "'Morning,' she said."


async def test_a_person_s_selection_made_during_the_run_is_kept(chapter_file: Path) -> None:
    chunk = chunk_of(chapter_file)
    tracker = SubmissionTracker.for_chunk(chunk)

    def person_writes(chapter: Any) -> Any:
        para, _ = append_version(chapter.paragraphs[0], "Good morning, she said.", origin="manual", model=None)
        return chapter.with_paragraphs({0: para})

    ChapterStore(chapter_file).update(person_writes)
    result = await submit(
        chapter_file, [{"paragraph_id": "p1", "translated_text": "Morning."}], chunk=chunk, tracker=tracker
    )
    assert result["success"] is True and result["kept_selection"] == ["p1"]
    para = load_chapter(chapter_file).paragraph("p1")
    assert para.selected_text == "Good morning, she said."
    assert [t.text for t in para.translations] == ["Good morning, she said.", "Morning."]
