"""Seed 001 (and its design, seed 002): tool context with chunk boundaries — one test per scenario.

The chunk [P1, P2, P3, P4, P5] is the seed's example; the chapter holds exactly P1..P5.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.chunks import TaskType, build_chunks
from engine.context import ToolContext
from engine.loop_config import ToolCallLoopConfig
from engine.scope import ChunkBoundaries
from engine.services import TaskService
from engine.tools import default_tools
from engine.tools.args import InfoArgs
from engine.tools.registry import Tool, ToolRegistry
from tests.engine.tool_chapters import call, chapter_of, ids_of, rashomon_texts, seed_chapter

CHUNK = ["P1", "P2", "P3", "P4", "P5"]


def probe_registry(seen: list[ToolContext]) -> ToolRegistry:
    """The six tools plus a probe that records the context the registry built for it."""

    def probe(ctx: ToolContext, args: InfoArgs) -> dict[str, Any]:
        seen.append(ctx)
        return {"success": True}

    return ToolRegistry([*default_tools(), Tool("probe", "records its context", InfoArgs, probe)])


async def a_loop_that_calls_tools(config: ToolCallLoopConfig, registry: ToolRegistry, chapter: Any) -> dict:
    """Stands in for the tool-call loop (issue 5): calls tools with the config's paragraph IDs, as the loop does."""
    probe = await registry.call("probe", {"paragraph_id": config.paragraph_ids[0]}, config.scope)
    past_end = await registry.call("get_next_paragraphs", {"paragraph_id": config.paragraph_ids[-1]}, config.scope)
    return {"probe": probe.result, "past_end": past_end.result}


# -- Requirement: Tool context includes chunk boundaries ------------------------------------------------


async def test_tool_context_with_chunk_boundaries() -> None:
    seen: list[ToolContext] = []
    await probe_registry(seen).handle_tool_call(
        "probe", {"paragraph_id": "P1"}, source=seed_chapter(), task="translate", paragraph_ids=CHUNK
    )
    b = seen[0].chunk_boundaries
    assert b is not None
    assert b.allowed_paragraph_ids == frozenset(CHUNK)
    assert isinstance(b.allowed_paragraph_ids, frozenset)
    assert (b.first_paragraph_id, b.last_paragraph_id) == ("P1", "P5")


async def test_tool_context_without_chunk_boundaries_ai_assistant() -> None:
    seen: list[ToolContext] = []
    chapter = seed_chapter()
    await probe_registry(seen).handle_tool_call("probe", {"paragraph_id": "P1"}, source=chapter)
    assert seen[0].chunk_boundaries is None
    # ... and tools allow access to any paragraph without restriction.
    result = await call("get_next_paragraphs", {"paragraph_id": "P4", "count": 5}, chapter)
    assert result["success"] is True
    assert ids_of(result) == ["P5"]
    result = await call("get_previous_paragraphs", {"paragraph_id": "P1"}, chapter)
    assert result["success"] is True and result["paragraphs"] == []


@pytest.mark.parametrize(
    ("task", "done"),
    [("translate", False), ("polish", True), ("proofread", True)],
    ids=["translation", "polish", "proofreading"],
)
async def test_task_with_chunk_boundaries(task: TaskType, done: bool) -> None:
    """Scenarios "Translation / Polish / Proofreading task with chunk boundaries"."""
    texts = rashomon_texts()[:24]
    chapter = chapter_of(texts, translations={i: f"EN {i}" for i in range(len(texts))} if done else None)
    seen: list[ToolContext] = []
    registry = probe_registry(seen)
    runner = TaskService(chapter, task, chunk_chars=400, registry=registry)
    assert len(runner.chunks) > 1  # several chunks, each with its own boundaries
    results = await runner.run(lambda config: a_loop_that_calls_tools(config, registry, chapter))
    for ctx, chunk, result in zip(seen, runner.chunks, results, strict=True):
        assert ctx.chunk_boundaries is not None
        assert ctx.chunk_boundaries.allowed_paragraph_ids == frozenset(chunk.paragraph_ids)
        assert ctx.task == task
        # Paragraph access is restricted to those IDs.
        assert result["past_end"]["error_code"] == "CHUNK_BOUNDARY"
        assert result["past_end"]["chunk_range"] == {
            "first_paragraph_id": chunk.paragraph_ids[0],
            "last_paragraph_id": chunk.paragraph_ids[-1],
        }


# -- Requirement: get_next_paragraphs respects chunk boundaries -----------------------------------------


async def test_request_within_chunk_boundaries() -> None:
    result = await call("get_next_paragraphs", {"paragraph_id": "P3", "count": 2}, seed_chapter(), CHUNK)
    assert result["success"] is True
    assert ids_of(result) == ["P4", "P5"]


async def test_request_exceeds_chunk_boundaries() -> None:
    result = await call("get_next_paragraphs", {"paragraph_id": "P4", "count": 5}, seed_chapter(), CHUNK)
    assert result["success"] is False
    assert result["error_code"] == "CHUNK_BOUNDARY"
    assert result["available_count"] == 1
    assert "paragraphs" not in result
    assert "'P1'" in result["error"] and "'P5'" in result["error"]
    assert result["chunk_range"] == {"first_paragraph_id": "P1", "last_paragraph_id": "P5"}


async def test_request_from_last_paragraph_in_chunk() -> None:
    result = await call("get_next_paragraphs", {"paragraph_id": "P5"}, seed_chapter(), CHUNK)
    assert result["success"] is False
    assert result["error_code"] == "CHUNK_BOUNDARY"
    assert result["available_count"] == 0
    assert "no more paragraphs in the current chunk" in result["error"]


# -- Requirement: get_previous_paragraphs respects chunk boundaries -------------------------------------


async def test_previous_paragraphs_within_chunk() -> None:
    result = await call("get_previous_paragraphs", {"paragraph_id": "P4", "count": 2}, seed_chapter(), CHUNK)
    assert result["success"] is True
    assert ids_of(result) == ["P3", "P2"]  # nearest first


async def test_previous_paragraphs_exceed_chunk_boundaries() -> None:
    # A chunk [P3, P4, P5] arises naturally when P1 and P2 are already translated.
    chapter = chapter_of([f"第{i}段。" for i in range(1, 6)], ids=CHUNK, translations={0: "One.", 1: "Two."})
    (chunk,) = build_chunks(chapter, "translate")
    assert chunk.paragraph_ids == ("P3", "P4", "P5")
    result = await call("get_previous_paragraphs", {"paragraph_id": "P3", "count": 5}, chapter, chunk.paragraph_ids)
    assert result["success"] is False
    assert result["error_code"] == "CHUNK_BOUNDARY"
    assert result["available_count"] == 0
    assert "beyond the current chunk" in result["error"]
    assert "'P3'" in result["error"] and "'P5'" in result["error"]
    assert "P1" not in str(result) and "P2" not in str(result)


# -- Requirement: get_paragraph_position optional boundaries --------------------------------------------


async def test_include_next_within_boundaries() -> None:
    result = await call(
        "get_paragraph_position", {"paragraph_id": "P2", "include_next": True, "next_count": 2}, seed_chapter(), CHUNK
    )
    assert result["success"] is True
    assert ids_of(result, "next_paragraphs") == ["P3", "P4"]


async def test_include_next_exceeds_boundaries() -> None:
    chapter = chapter_of([f"第{i}段。" for i in range(1, 9)], ids=[f"P{i}" for i in range(1, 9)])
    result = await call(
        "get_paragraph_position", {"paragraph_id": "P4", "include_next": True, "next_count": 5}, chapter, CHUNK
    )
    assert result["success"] is True
    assert ids_of(result, "next_paragraphs") == ["P5"]  # clipped: P6..P8 exist in the chapter but not the chunk
    assert result["paragraph_index"] == 4
    assert result["total_paragraphs"] == 8


# -- Requirement: Boundary error messages ---------------------------------------------------------------


async def test_boundary_violation_error_format() -> None:
    chapter = chapter_of([f"第{i}段。" for i in range(1, 9)], ids=[f"P{i}" for i in range(1, 9)])
    chunk = ["P3", "P4", "P5"]
    results = [
        await call("get_next_paragraphs", {"paragraph_id": "P4", "count": 3}, chapter, chunk),
        await call("get_previous_paragraphs", {"paragraph_id": "P3"}, chapter, chunk),
        await call("get_next_paragraphs", {"paragraph_id": "P7"}, chapter, chunk),
        await call("get_paragraph_position", {"paragraph_id": "P1"}, chapter, chunk),
    ]
    assert [r["error_code"] for r in results] == ["CHUNK_BOUNDARY", "CHUNK_BOUNDARY", "OUT_OF_CHUNK", "OUT_OF_CHUNK"]
    for r in results:
        assert r["success"] is False
        # Explanation that the request exceeds the current range ...
        assert "beyond the current chunk" in r["error"]
        # ... the first and last paragraph IDs of the allowed range ...
        assert "from paragraph 'P3' to 'P5'" in r["error"]
        assert r["chunk_range"] == {"first_paragraph_id": "P3", "last_paragraph_id": "P5"}
        # ... and a suggestion to focus on the current chunk's paragraphs.
        assert "Focus on the paragraphs of the current chunk" in r["hint"]
    assert results[0]["available_count"] == 1
    assert "Retry with count 1 or less" in results[0]["hint"]


# -- Requirement: Chunk boundaries propagation ----------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "done"),
    [("translate", False), ("polish", True), ("proofread", True)],
    ids=["translation", "polish", "proofreading"],
)
async def test_service_propagation(method: TaskType, done: bool) -> None:
    """Scenarios "Translation / Polish / Proofreading service propagation" with chunk [P1, P2, P3]."""
    chapter = chapter_of(
        ["一。", "二。", "三。"],
        ids=["P1", "P2", "P3"],
        translations={0: "One.", 1: "Two.", 2: "Three."} if done else None,
    )
    seen: list[ToolContext] = []
    registry = probe_registry(seen)
    runner = TaskService(chapter, method, registry=registry)
    configs: list[ToolCallLoopConfig] = []

    async def execute_tool_call_loop(config: ToolCallLoopConfig) -> dict:
        configs.append(config)
        return await a_loop_that_calls_tools(config, registry, chapter)

    await runner.run(execute_tool_call_loop)
    # The ToolCallLoopConfig includes the chunk's paragraph IDs ...
    assert [c.paragraph_ids for c in configs] == [("P1", "P2", "P3")]
    # ... the loop passed its scope to registry.call, and the handler received them as chunk boundaries.
    assert seen[0].chunk_boundaries == ChunkBoundaries.from_paragraph_ids(["P1", "P2", "P3"])
