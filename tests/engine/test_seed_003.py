"""Seed 003: submissions by paragraph_id only (BREAKING: no index path) — one test per decision / scenario."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from engine.chunks import Chunk, build_chunks
from engine.prompts import PromptSet
from store.commit import ChapterStore
from store.loader import load_chapter
from tests.engine.tool_chapters import REGISTRY, chapter_of, write_chapter

TEXTS = ["一つ目。", "", "二つ目。", "三つ目。", "四つ目。"]
IDS = ["aa000001", "aa000002", "aa000003", "aa000004", "aa000005"]


@pytest.fixture
def chapter_file(tmp_path: Path) -> Path:
    return write_chapter(tmp_path / "ch.json", chapter_of(TEXTS, ids=IDS))


def the_chunk(path: Path, task: str = "translate") -> Chunk:
    (chunk,) = build_chunks(load_chapter(path), task)
    return chunk


async def batch(path: Path, items: list[dict[str, Any]], chunk: Chunk | None) -> dict[str, Any]:
    return await REGISTRY.handle_tool_call(
        "add_translation_batch",
        {"paragraphs": items},
        source=ChapterStore(path),
        task=chunk.task if chunk else None,
        paragraph_ids=chunk.paragraph_ids if chunk else None,
    )


async def test_decision_1_paragraph_id_is_the_only_submission_key(chapter_file: Path) -> None:
    chunk = the_chunk(chapter_file)
    before = chapter_file.read_bytes()
    missing = await batch(
        chapter_file, [{"paragraph_id": "aa000001", "translated_text": "One."}, {"translated_text": "Two."}], chunk
    )
    assert missing["error_code"] == "MISSING_PARAGRAPH_ID"  # the whole batch fails
    assert chapter_file.read_bytes() == before
    # An index next to a paragraph_id is ignored: the ID alone decides where the text lands.
    result = await batch(chapter_file, [{"paragraph_id": "aa000004", "index": 3, "translated_text": "Three."}], chunk)
    assert result["accepted"] == ["aa000004"]
    chapter = load_chapter(chapter_file)
    assert chapter.paragraph("aa000004").selected_text == "Three."
    assert chapter.paragraph("aa000003").selected_text is None


@pytest.mark.parametrize("task", ["translate", "polish", "proofread"])
def test_decision_2_chunks_expose_submittable_ids(tmp_path: Path, task: str) -> None:
    translations = {0: "1", 2: "2", 3: "3", 4: "4"} if task != "translate" else None
    path = write_chapter(tmp_path / "ch.json", chapter_of(TEXTS, ids=IDS, translations=translations))
    chunk = the_chunk(path, task)
    shown = re.findall(r"\[ID: (\S+)\]", chunk.text)
    assert shown == list(chunk.paragraph_ids)
    assert set(shown) <= set(IDS)


@pytest.mark.parametrize("task", ["translate", "polish", "proofread"])
def test_decision_3_prompts_require_paragraph_id_submission(task: str) -> None:
    text = PromptSet.load().system_prompt(task, source_language="ja", target_language="zh-Hans")
    assert "Submit with add_translation_batch by the paragraph_id from [ID: …], never by the [n] index" in text
    lowered = text.lower()
    for weak in ("index or paragraph_id", "paragraph_id or index", "prefer paragraph_id", "preferably"):
        assert weak not in lowered


async def test_decision_4_validation_by_id_is_atomic_and_names_ids(chapter_file: Path) -> None:
    chunk = the_chunk(chapter_file)
    # Narrow the assignment to the last two paragraphs: an assigned-set check by paragraph_id.
    narrow = Chunk(
        index=2,
        total=2,
        task="translate",
        paragraph_ids=chunk.paragraph_ids[-2:],
        paragraph_indexes=chunk.paragraph_indexes[-2:],
        entries=chunk.entries[-2:],
        chapter=chunk.chapter,
    )
    before = chapter_file.read_bytes()
    outside = await batch(
        chapter_file,
        [
            {"paragraph_id": "aa000004", "translated_text": "ok"},
            {"paragraph_id": "aa000001", "translated_text": "not assigned"},
        ],
        narrow,
    )
    assert outside["error_code"] == "NOT_IN_CHUNK"
    assert outside["invalid_paragraph_ids"] == ["aa000001"] and "aa000001" in outside["error"]
    twice = await batch(
        chapter_file,
        [{"paragraph_id": "aa000004", "translated_text": "a"}, {"paragraph_id": "aa000004", "translated_text": "b"}],
        narrow,
    )
    assert twice["error_code"] == "DUPLICATE_PARAGRAPH_IDS" and twice["invalid_paragraph_ids"] == ["aa000004"]
    unknown = await batch(chapter_file, [{"paragraph_id": "ffffffff", "translated_text": "x"}], None)
    assert unknown["error_code"] == "PARAGRAPH_NOT_FOUND" and "ffffffff" in unknown["error"]
    assert chapter_file.read_bytes() == before  # any failing item: the whole batch rolled back


async def test_decision_5_index_submission_is_rejected(chapter_file: Path) -> None:
    chunk = the_chunk(chapter_file)
    before = chapter_file.read_bytes()
    old_style = await batch(
        chapter_file, [{"index": 1, "translated_text": "One."}, {"index": 3, "translated_text": "Two."}], chunk
    )
    assert old_style["success"] is False
    assert old_style["error_code"] == "INDEX_NOT_ACCEPTED"
    assert [i["item"] for i in old_style["invalid_items"]] == [1, 2]
    assert chapter_file.read_bytes() == before


async def test_open_question_errors_suggest_the_fix(chapter_file: Path) -> None:
    """The seed's open question, answered yes: the error says to retry with paragraph_id (and which one)."""
    chunk = the_chunk(chapter_file)
    result = await batch(chapter_file, [{"index": 4, "translated_text": "Three."}], chunk)
    assert "paragraph_id" in result["hint"] and "[ID: …]" in result["hint"]
    assert result["invalid_items"][0]["suggested_paragraph_id"] == "aa000004"
    retry = await batch(
        chapter_file,
        [{"paragraph_id": result["invalid_items"][0]["suggested_paragraph_id"], "translated_text": "Three."}],
        chunk,
    )
    assert retry["success"] is True
