"""A run reports what is on disk at its end, not what was acknowledged: a checkout under it is not 'complete'."""

from __future__ import annotations

from pathlib import Path

from engine.run import run_chapter
from engine.run_request import RunRequest
from store.loader import load_chapter
from tests.engine.loop_support import IDS, settings_for, write_chapter
from tests.support.model_server import ModelServer, RecordedRequest, Scripted, text_reply, tool_reply

A1, A3, A4 = IDS[0], IDS[2], IDS[3]


def batch(*pids: str) -> dict:
    return {"paragraphs": [{"paragraph_id": pid, "translated_text": f"text of {pid}"} for pid in pids]}


async def test_batches_undone_on_disk_under_the_run_make_it_incomplete(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    original = path.read_bytes()
    rest = [pid for pid in IDS[3:] if load_chapter(path).paragraph(pid).text.strip()]  # type: ignore[union-attr]
    replies = iter(
        [
            tool_reply([("add_translation_batch", batch(A1, A3))]),
            tool_reply([("add_translation_batch", batch(*rest))]),
            text_reply("Done."),
        ]
    )

    def answer(request: RecordedRequest) -> Scripted:
        if len(model_server.requests) == 2:
            # The run waits for its second answer, the first batch committed: as `git checkout ch01.json` would,
            # the file goes back to what it was. (From the server, so the run is surely not writing just then.)
            path.write_bytes(original)
        return next(replies)

    model_server.responder = answer
    events = [e async for e in run_chapter(RunRequest(path, "translate", settings_for(model_server.base_url)))]
    finished = events[-1]
    assert finished.kind == "run_finished" and finished.status == "incomplete"
    assert sorted(finished.summary.reverted_on_disk) == sorted([A1, A3])
    errors = [e for e in events if e.kind == "error" and e.code == "REVERTED_ON_DISK"]
    assert len(errors) == 1 and "2 paragraphs this run committed are no longer in ch01.json" in errors[0].message
    assert load_chapter(path).paragraph(A4).selected_text == "text of " + A4  # type: ignore[union-attr]


async def test_a_run_whose_batches_are_all_on_disk_is_complete(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    todo = [p.id for p in load_chapter(path).paragraphs if p.text.strip()]
    model_server.add(tool_reply([("add_translation_batch", batch(*todo))]))
    model_server.add(text_reply("Done."))
    events = [e async for e in run_chapter(RunRequest(path, "translate", settings_for(model_server.base_url)))]
    assert events[-1].status == "complete" and "reverted_on_disk" not in events[-1].summary.to_json()
