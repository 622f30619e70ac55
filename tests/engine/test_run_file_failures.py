"""A chapter file that cannot be read or saved, call after call, stops the run instead of billing the model."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine.events import ModelRequest
from engine.run import RunRequest, run_chapter
from tests.engine.loop_support import IDS, kinds, settings_for, write_chapter
from tests.support.model_server import ModelServer, tool_reply

A1, A2, A3, A4, A5, A6, A7, A8 = IDS


def batch(*pids: str) -> dict:
    return {"paragraphs": [{"paragraph_id": pid, "translated_text": f"text of {pid}"} for pid in pids]}


async def test_a_deleted_chapter_stops_the_run_after_three_calls(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    model_server.add(tool_reply([("add_translation_batch", batch(A1, A3))]))
    # A model that keeps trying: far more answers than the run may ask for.
    model_server.add(*[tool_reply([("add_translation_batch", batch(A4))]) for _ in range(40)])
    events = []
    async for event in run_chapter(RunRequest(path, "translate", settings_for(model_server.base_url),
                                              chunk_chars=300, max_turns=40)):
        events.append(event)
        if isinstance(event, ModelRequest) and event.turn == 2 and path.exists():
            await asyncio.to_thread(path.unlink)  # as `rm ch01.json` (or a checkout that drops it) would
    results = [r for r in kinds(events, "tool_result") if not r.success]
    assert [r.error_code for r in results] == ["CHAPTER_UNAVAILABLE"] * 3
    stop = [e for e in kinds(events, "error") if e.code == "CHAPTER_UNAVAILABLE"]
    assert len(stop) == 1 and stop[0].fatal and "could not be read 3 times in a row" in stop[0].message
    finished = events[-1]
    assert finished.kind == "run_finished" and finished.status == "failed"
    chunks = finished.summary["chunks"]
    assert chunks[0]["end_code"] == "CHAPTER_UNAVAILABLE"
    assert all(c["end_code"] == "NOT_ATTEMPTED" for c in chunks[1:]) and len(chunks) > 1
    assert len(model_server.requests) == 4  # the first batch, then three tries at the missing file
    assert not path.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


async def test_one_passing_failure_does_not_stop_the_chunk(tmp_path: Path, model_server: ModelServer) -> None:
    """The editor's save replacing the file is a moment: two misses, then the file is back and the run goes on."""
    path = write_chapter(tmp_path)
    saved = path.read_bytes()
    model_server.add(tool_reply([("add_translation_batch", batch(A1))]),
                     tool_reply([("add_translation_batch", batch(A3))]),
                     tool_reply([("add_translation_batch", batch(A3))]),
                     tool_reply([("add_translation_batch", batch(A3, A4, A6))]))
    events = []
    async for event in run_chapter(RunRequest(path, "translate", settings_for(model_server.base_url),
                                              chunk_chars=300, max_turns=8)):
        events.append(event)
        if isinstance(event, ModelRequest) and event.chunk == 1 and event.turn == 2:
            await asyncio.to_thread(path.unlink)
        if isinstance(event, ModelRequest) and event.chunk == 1 and event.turn == 4:
            await asyncio.to_thread(path.write_bytes, saved)
    errors = [r.error_code for r in kinds(events, "tool_result") if not r.success]
    assert errors == ["CHAPTER_UNAVAILABLE", "CHAPTER_UNAVAILABLE"]
    assert not [e for e in kinds(events, "error") if e.code == "CHAPTER_UNAVAILABLE"]
    assert kinds(events, "chunk_finished")[0].status == "complete"
