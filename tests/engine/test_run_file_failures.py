"""A chapter file that cannot be read or saved, call after call, stops the run instead of billing the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.chunk_outcome import FILE_FAILURES
from engine.run_request import RunRequest
from tests.engine.loop_support import IDS, collect, kinds, settings_for, write_chapter
from tests.support.model_server import ModelServer, RecordedRequest, Scripted, tool_reply

A1, A2, A3, A4, A5, A6, A7, A8 = IDS


def batch(*pids: str) -> dict:
    return {"paragraphs": [{"paragraph_id": pid, "translated_text": f"text of {pid}"} for pid in pids]}


async def test_a_deleted_chapter_stops_the_run_after_three_calls(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    model_server.add(tool_reply([("add_translation_batch", batch(A1, A3))]))

    def answer(request: RecordedRequest) -> Scripted:
        # The second request has arrived, so the first batch is committed: the file goes, as `rm ch01.json` (or a
        # checkout that drops it) would, before the answer leaves. A model that keeps trying: answers without end.
        if path.exists():
            path.unlink()
        return tool_reply([("add_translation_batch", batch(A4))])

    model_server.responder = answer
    events = await collect(
        RunRequest(path, "translate", settings_for(model_server.base_url), chunk_chars=300, max_turns=40)
    )
    results = [r for r in kinds(events, "tool_result") if not r.success]
    assert [r.error_code for r in results] == ["CHAPTER_UNAVAILABLE"] * 3
    stop = [e for e in kinds(events, "error") if e.code in FILE_FAILURES]
    assert len(stop) == 1 and stop[0].fatal and "could not be read 3 times in a row" in stop[0].message
    finished = events[-1]
    assert finished.kind == "run_finished" and finished.status == "failed"
    chunks = finished.summary.chunks
    assert chunks[0].end_code in FILE_FAILURES
    assert all(c.end_code == "NOT_ATTEMPTED" for c in chunks[1:]) and len(chunks) > 1
    assert len(model_server.requests) == 4  # the first batch, then three tries at the missing file
    assert not path.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.slow
async def test_one_passing_failure_does_not_stop_the_chunk(tmp_path: Path, model_server: ModelServer) -> None:
    """The editor's save replacing the file is a moment: two misses, then the file is back and the run goes on."""
    path = write_chapter(tmp_path)
    saved = path.read_bytes()
    replies = iter([batch(A1), batch(A3), batch(A3), batch(A3, A4, A6)])

    def answer(request: RecordedRequest) -> Scripted:
        # before answering request 2 the file is gone; before answering request 4 it is back (the save finished)
        if len(model_server.requests) == 2:
            path.unlink()
        if len(model_server.requests) == 4:
            path.write_bytes(saved)
        return tool_reply([("add_translation_batch", next(replies))])

    model_server.responder = answer
    events = await collect(
        RunRequest(path, "translate", settings_for(model_server.base_url), chunk_chars=300, max_turns=8)
    )
    errors = [r.error_code for r in kinds(events, "tool_result") if not r.success]
    assert errors == ["CHAPTER_UNAVAILABLE", "CHAPTER_UNAVAILABLE"]
    assert not [e for e in kinds(events, "error") if e.code in FILE_FAILURES]
    assert kinds(events, "chunk_finished")[0].status == "complete"
