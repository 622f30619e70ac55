"""One chunk scope: the task service builds one ``ChunkScope`` per chunk, and that very object reaches the handler."""

from __future__ import annotations

from typing import Any

import pytest

from engine.context import ToolContext
from engine.loop_config import ToolCallLoopConfig
from engine.scope import ChunkScope
from engine.services import TaskService
from engine.tasks import TASK_RULES, TaskType
from engine.tools import default_registry, default_tools
from engine.tools.args import InfoArgs
from engine.tools.registry import Tool, ToolRegistry
from tests.engine.tool_chapters import chapter_of, rashomon_texts


@pytest.mark.parametrize("task", ["translate", "polish", "proofread"])
async def test_every_call_of_a_chunk_carries_the_chunk_s_one_scope(task: TaskType) -> None:
    texts = rashomon_texts()[:24]
    translations = {i: f"EN {i}" for i in range(len(texts))} if task != "translate" else None
    chapter = chapter_of(texts, translations=translations)
    seen: list[ToolContext] = []

    def probe(ctx: ToolContext, args: InfoArgs) -> dict[str, Any]:
        seen.append(ctx)
        return {"success": True}

    registry = ToolRegistry([*default_tools(), Tool("probe", "records its context", InfoArgs, probe)])
    service = TaskService(chapter, task, chunk_chars=400, max_batch=7, model="m", registry=registry)

    async def two_calls(config: ToolCallLoopConfig) -> ChunkScope:
        for _ in range(2):
            await registry.call("probe", {"paragraph_id": config.paragraph_ids[0]}, config.scope)
        return config.scope

    scopes = await service.run(two_calls)
    assert len(scopes) == len(service.chunks) > 1
    for number, (scope, chunk) in enumerate(zip(scopes, service.chunks, strict=True)):
        first, second = seen[2 * number], seen[2 * number + 1]
        assert first.scope is second.scope is scope  # one object per chunk, passed as it is
        assert scope.chunk is chunk and scope.task == task
        assert scope.boundaries is not None and scope.boundaries.order == chunk.paragraph_ids
        assert scope.submissions is not None and scope.submissions.remaining == chunk.paragraph_ids
        assert (scope.origin, scope.model, scope.max_batch) == (TASK_RULES[task].origin, "m", 7)
    assert len({id(s) for s in scopes}) == len(scopes)  # and each chunk its own


async def test_a_scope_without_a_store_reads_but_never_commits() -> None:
    chapter = chapter_of(["一。", "二。"], ids=["P1", "P2"])
    scope = ChunkScope.standalone(chapter, task="translate")
    assert scope.boundaries is None and scope.submissions is None and scope.origin == "translation"
    reply = await default_registry().call(
        "add_translation_batch", {"paragraphs": [{"paragraph_id": "P1", "translated_text": "One."}]}, scope
    )
    assert reply.result["error_code"] == "COMMIT_FAILED" and reply.committed is None
    assert "read-only" in reply.result["error"]
