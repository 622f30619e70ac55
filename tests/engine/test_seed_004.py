"""Seed 004: one index semantics — the chunk's [n] is the original chapter index every tool reports."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine.chunks import build_chunks, work_set
from engine.prompts import PromptSet
from store.model import Chapter
from tests.engine.tool_chapters import call, chapter_of, rashomon_texts

# Empty, whitespace, U+3000, U+FEFF and NBSP paragraphs between real ones, plus a U+3000-indented real one.
TEXTS = [
    "",
    "羅生門",
    "   ",
    "芥川龍之介",
    "\u3000",
    "\u3000ある日の暮方の事である。",
    "\ufeff",
    "\ufeff\u3000 \u00a0",
    "広い門の下には、この男のほかに誰もいない。",
    "",
    "",
    "それが、この男のほかには誰もいない。",
]
ENTRY = re.compile(r"^\[(\d+)\] \[ID: (\S+)\] ", re.M)
TASKS = ["translate", "polish", "proofread"]


def chapter_for(task: str, texts: list[str] = TEXTS) -> Chapter:
    translations = {i: f"T{i}" for i in range(len(texts))} if task != "translate" else None
    return chapter_of(texts, translations=translations)


async def indexes_from_tools(chapter: Chapter, pid: str, chunk_ids: tuple[str, ...]) -> list[int]:
    """Every paragraph_index any tool reports for ``pid``."""
    seen: list[int] = []
    pos = await call("get_paragraph_position", {"paragraph_id": pid}, chapter, chunk_ids)
    seen.append(pos["paragraph_index"])
    info = await call("get_paragraph_info", {"paragraph_id": pid}, chapter, chunk_ids)
    seen.append(info["paragraph"]["paragraph_index"])
    found = await call(
        "find_paragraph_by_keywords",
        {"keywords": [chapter.paragraph(pid).text.strip()[:6]], "max_results": 50},
        chapter,
        chunk_ids,
    )
    seen += [p["paragraph_index"] for p in found["paragraphs"] if p["paragraph_id"] == pid]
    # As a neighbour of the paragraphs around it, within the chunk and without boundaries.
    for other in chunk_ids:
        for name in ("get_next_paragraphs", "get_previous_paragraphs"):
            for ids in (chunk_ids, None):
                result: dict[str, Any] = await call(name, {"paragraph_id": other, "count": 1}, chapter, ids)
                seen += [p["paragraph_index"] for p in result.get("paragraphs", ()) if p["paragraph_id"] == pid]
    return seen


@pytest.mark.parametrize("task", TASKS)
async def test_decision_1_filtered_empties_and_original_indexes(task: str) -> None:
    chapter = chapter_for(task)
    chunks = build_chunks(chapter, task, chunk_chars=200)
    shown = [(int(m.group(1)), m.group(2)) for c in chunks for m in ENTRY.finditer(c.text)]
    # Empties never reach a chunk; every work-set paragraph appears exactly once, in order.
    assert [pid for _, pid in shown] == [chapter.paragraphs[p].id for p in work_set(chapter, task)]
    assert [n for n, _ in shown] == [2, 4, 6, 9, 12]
    for chunk in chunks:
        for n, pid in (x for x in shown if x[1] in chunk.paragraph_ids):
            reported = await indexes_from_tools(chapter, pid, chunk.paragraph_ids)
            assert len(reported) >= 3
            assert set(reported) == {n}, (pid, n, reported)


@pytest.mark.parametrize("task", TASKS)
async def test_decision_1_empties_never_appear_in_neighbour_results(task: str) -> None:
    chapter = chapter_for(task)
    empty_ids = {p.id for p in chapter.paragraphs if p.is_empty}
    for anchor in chapter.paragraphs:
        for name in ("get_next_paragraphs", "get_previous_paragraphs"):
            result = await call(name, {"paragraph_id": anchor.id, "count": 50}, chapter)
            assert not {p["paragraph_id"] for p in result["paragraphs"]} & empty_ids


def test_decision_2_index_is_for_reading_and_paragraph_id_is_the_key() -> None:
    prompts = PromptSet.load()
    for task in TASKS:
        chapter = chapter_for(task)
        (chunk,) = build_chunks(chapter, task)
        message = prompts.chunk_message(chunk)
        assert "[n] is for reading only" in message
        assert "paragraph_id shown as [ID: …]" in message
        system = prompts.system_prompt(task, source_language="ja", target_language="en")
        assert "by the paragraph_id from [ID: …], never by the [n] index" in system


@pytest.mark.parametrize("task", TASKS)
async def test_decision_3_alignment_on_a_real_text(task: str) -> None:
    chapter = chapter_for(task, rashomon_texts())
    chunks = build_chunks(chapter, task, chunk_chars=1500)
    assert len(chunks) > 3
    covered: list[str] = []
    for chunk in chunks:
        covered += chunk.paragraph_ids
        for n, pid in ((int(m.group(1)), m.group(2)) for m in ENTRY.finditer(chunk.text)):
            pos = await call("get_paragraph_position", {"paragraph_id": pid}, chapter, chunk.paragraph_ids)
            assert pos["paragraph_index"] == n == chapter.index_of(pid)
    assert covered == [chapter.paragraphs[p].id for p in work_set(chapter, task)]
    assert len(set(covered)) == len(covered)


def test_risk_index_gaps_are_explained_in_the_chunk_message() -> None:
    chapter = chapter_for("translate")
    (chunk,) = build_chunks(chapter, "translate")
    message = PromptSet.load().chunk_message(chunk)
    assert "[2] [ID:" in message and "[4] [ID:" in message  # the numbers skip ...
    assert "Empty paragraphs were left out, so the [n] numbers may skip." in message  # ... and it says why
