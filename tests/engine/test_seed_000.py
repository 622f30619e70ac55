"""Seed 000: chunk entries expose canonical paragraph IDs; paragraph-ID chunk boundaries — one test per scenario."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from engine.chunks import TaskType, build_chunks
from engine.context import ToolContext
from engine.loop_config import ToolCallLoopConfig
from engine.services import TaskService
from engine.tools import default_tools
from engine.tools.args import InfoArgs
from engine.tools.registry import Tool, ToolRegistry
from store.commit import ChapterStore
from store.loader import load_chapter
from tests.engine.tool_chapters import REGISTRY, chapter_of, write_chapter

ENTRY = re.compile(r"^\[(\d+)\] \[ID: (\S+)\] ", re.M)
TEXTS = ["「おはよう」と彼女は言った。", "", "雨が降っていた。", "下人は待っていた。"]
IDS = ["e58ed763", "0b7d33e1", "a1b2c3d4", "deadbeef"]


def ids_in_text(text: str) -> list[str]:
    """What a model copies: the values shown as [ID: …]."""
    return [m.group(2) for m in ENTRY.finditer(text)]


# -- Requirement: Chunk work items expose canonical paragraph IDs ---------------------------------------


async def test_translation_chunk_rendering_includes_paragraph_ids(tmp_path: Path) -> None:
    path = write_chapter(tmp_path / "ch.json", chapter_of(TEXTS, ids=IDS))
    (chunk,) = build_chunks(load_chapter(path), "translate")
    # Every pending paragraph's entry carries its paragraph_id ...
    assert ids_in_text(chunk.text) == ["e58ed763", "a1b2c3d4", "deadbeef"] == list(chunk.paragraph_ids)
    # ... and the index shown is for reading only: it is not a submission key.
    by_index = await REGISTRY.handle_tool_call(
        "add_translation_batch",
        {"paragraphs": [{"index": 3, "translated_text": "It was raining."}]},
        source=ChapterStore(path),
        task="translate",
        paragraph_ids=chunk.paragraph_ids,
    )
    assert by_index["error_code"] == "INDEX_NOT_ACCEPTED"


@pytest.mark.parametrize("task", ["polish", "proofread"])
async def test_polish_and_proofreading_chunk_rendering_includes_paragraph_ids(tmp_path: Path, task: str) -> None:
    chapter = chapter_of(TEXTS, ids=IDS, translations={0: "Morning.", 2: "Rain.", 3: "He waited."})
    path = write_chapter(tmp_path / "ch.json", chapter)
    (chunk,) = build_chunks(load_chapter(path), task)
    copied = ids_in_text(chunk.text)
    assert copied == list(chunk.paragraph_ids)
    # The model can copy the paragraph_id straight into add_translation_batch.
    result = await REGISTRY.handle_tool_call(
        "add_translation_batch",
        {"paragraphs": [{"paragraph_id": copied[1], "translated_text": "It rained."}]},
        source=ChapterStore(path),
        task=task,
        paragraph_ids=chunk.paragraph_ids,
    )
    assert result["success"] is True and result["accepted"] == ["a1b2c3d4"]
    assert (
        load_chapter(path).paragraph("a1b2c3d4").selected.origin
        == {"polish": "polish", "proofread": "proofreading"}[task]
    )


# -- Requirement: Tool context includes chunk boundaries (paragraph-ID based) ----------------------------


def recording_registry(seen: list[ToolContext]) -> ToolRegistry:
    def probe(ctx: ToolContext, args: InfoArgs) -> dict[str, Any]:
        seen.append(ctx)
        return {"success": True}

    return ToolRegistry([*default_tools(), Tool("probe", "records its context", InfoArgs, probe)])


async def test_tool_context_with_paragraph_id_chunk_boundaries() -> None:
    chapter = chapter_of(TEXTS, ids=IDS)
    (chunk,) = build_chunks(chapter, "translate")
    seen: list[ToolContext] = []
    await recording_registry(seen).handle_tool_call(
        "probe", {"paragraph_id": "deadbeef"}, source=chapter, task="translate", paragraph_ids=chunk.paragraph_ids
    )
    b = seen[0].chunk_boundaries
    assert b is not None
    assert b.allowed_paragraph_ids == {"e58ed763", "a1b2c3d4", "deadbeef"}  # a set of paragraph_id values
    assert b.first_paragraph_id == "e58ed763"
    assert b.last_paragraph_id == "deadbeef"


async def test_tool_context_without_chunk_boundaries_ai_assistant() -> None:
    chapter = chapter_of(TEXTS, ids=IDS)
    seen: list[ToolContext] = []
    await recording_registry(seen).handle_tool_call("probe", {"paragraph_id": "e58ed763"}, source=chapter)
    assert seen[0].chunk_boundaries is None
    anywhere = await REGISTRY.handle_tool_call(
        "get_next_paragraphs", {"paragraph_id": "e58ed763", "count": 50}, source=chapter
    )
    assert [p["paragraph_id"] for p in anywhere["paragraphs"]] == ["a1b2c3d4", "deadbeef"]


# -- Requirement: Chunk boundaries propagation (paragraph IDs) -------------------------------------------


@pytest.mark.parametrize(
    ("method", "translated"),
    [("translate", False), ("polish", True), ("proofread", True)],
    ids=["translation", "polish", "proofreading"],
)
async def test_service_propagation_with_paragraph_ids(tmp_path: Path, method: TaskType, translated: bool) -> None:
    """Scenarios "Translation / Polish / Proofreading service propagation with paragraph IDs" [P1, P2, P3]."""
    chapter = chapter_of(
        ["一。", "二。", "三。", "四。"],
        ids=["P1", "P2", "P3", "P4"],
        translations={0: "1", 1: "2", 2: "3"} if translated else {3: "4"},
    )
    path = write_chapter(tmp_path / "ch.json", chapter)
    store = ChapterStore(path)
    seen: list[ToolContext] = []
    registry = recording_registry(seen)
    runner = TaskService(load_chapter(path), method, source=store, registry=registry, model="m")

    async def execute_tool_call_loop(config: ToolCallLoopConfig) -> dict[str, Any]:
        scope = config.scope
        await registry.call("probe", {"paragraph_id": "P1"}, scope)
        outside = await registry.call(
            "add_translation_batch", {"paragraphs": [{"paragraph_id": "P4", "translated_text": "x"}]}, scope
        )
        inside = await registry.call(
            "add_translation_batch",
            {"paragraphs": [{"paragraph_id": pid, "translated_text": f"new {pid}"} for pid in config.paragraph_ids]},
            scope,
        )
        assert scope.submissions is not None
        return {"outside": outside.result, "inside": inside.result, "complete": scope.submissions.complete}

    (result,) = await runner.run(execute_tool_call_loop)
    assert runner.loop_configs()[0].paragraph_ids == ("P1", "P2", "P3")
    assert seen[0].chunk_boundaries is not None
    assert seen[0].chunk_boundaries.allowed_paragraph_ids == {"P1", "P2", "P3"}
    assert result["outside"]["error_code"] == "NOT_IN_CHUNK"
    assert result["inside"]["accepted"] == ["P1", "P2", "P3"] and result["inside"]["remaining"] == []
    assert result["complete"] is True
    written = load_chapter(path).paragraphs
    if method == "proofread":  # a proofread suggests by default: the texts wait for the editor, nothing selected
        assert result["inside"]["suggested"] == ["P1", "P2", "P3"]
        assert [p.selected_text for p in written] == [p.selected_text for p in chapter.paragraphs]
        assert [[v.text for v in p.pending] for p in written] == [["new P1"], ["new P2"], ["new P3"], []]
    else:
        after = [p.selected_text for p in written]
        assert after == ["new P1", "new P2", "new P3", chapter.paragraphs[3].selected_text]
