"""The tool that submits is told apart from a tool that writes: only submissions are a chunk's progress."""

from __future__ import annotations

from pathlib import Path

from engine.loop_texts import UNCHANGED_NOTE
from engine.run_request import RunRequest
from engine.tools import default_registry
from store.glossary_commit import GlossaryStore
from store.workspace import Workspace
from tests.engine.loop_support import IDS, collect, kinds, settings_for, write_chapter
from tests.support.model_server import ModelServer, tool_reply

A1, A2, A3, A4, A5, A6, A7, A8 = IDS


def batch(*pids: str) -> dict:
    return {"paragraphs": [{"paragraph_id": p, "translated_text": f"text {p}"} for p in pids]}


async def test_a_second_writing_tool_is_not_chunk_progress(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    servant = {"source": "下人", "target": "the servant", "kind": "character"}
    crows = {"source": "鴉", "target": "crows"}
    model_server.add(
        # Two turns that only write the glossary: successes that submit nothing, so neither "nothing changed" nor
        # a stall (two stalled turns would end the chunk NO_PROGRESS before the batch below).
        tool_reply([("propose_glossary_entry", servant)]),
        tool_reply([("propose_glossary_entry", crows), ("propose_glossary_entry", servant)]),
        tool_reply([("add_translation_batch", batch(A1, A3, A4, A6))]),
        tool_reply([("add_translation_batch", batch(A7, A8))]),
    )
    events = await collect(RunRequest(path, "translate", settings_for(model_server.base_url), chunk_chars=300))
    proposals = [r for r in kinds(events, "tool_result") if r.name == "propose_glossary_entry"]
    assert [r.success for r in proposals] == [True, True, True]
    assert all(r.result.get("note") != UNCHANGED_NOTE for r in proposals)
    assert [e.paragraph_ids for e in kinds(events, "batch_committed")] == [(A1, A3, A4, A6), (A7, A8)]
    assert [(c.status, c.end_code, c.turns) for c in kinds(events, "chunk_finished")] == [
        ("complete", None, 3),
        ("complete", None, 1),
    ]
    assert events[-1].status == "complete"
    # The proposals were written: the tool writes a file, and still is no submission of the chunk.
    assert [e.source for e in GlossaryStore(Workspace(tmp_path)).load().entries] == ["下人", "鴉"]


def test_only_the_batch_tool_submits() -> None:
    registry = default_registry()
    assert [t for t in registry.names if registry.submits(t)] == ["add_translation_batch"]
    assert registry.submits("no_such_tool") is False
