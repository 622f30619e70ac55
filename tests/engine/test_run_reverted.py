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


async def test_the_reverted_texts_are_recorded_once_so_the_editor_can_restore_them(
    tmp_path: Path, model_server: ModelServer
) -> None:
    from store.conflicts import list_conflicts
    from store.edits import keep_ours
    from store.model import Chapter
    from store.reverts import Written, record_reverted, reverted
    from store.workspace import Workspace

    path = write_chapter(tmp_path)
    original = path.read_bytes()
    replies = iter([tool_reply([("add_translation_batch", batch(A1, A3))]), text_reply("Done.")])

    def answer(request: RecordedRequest) -> Scripted:
        if len(model_server.requests) == 2:
            path.write_bytes(original)  # a stale editor buffer saved over the run's commit
        return next(replies)

    model_server.responder = answer
    [e async for e in run_chapter(RunRequest(path, "translate", settings_for(model_server.base_url)))]
    workspace = Workspace.for_chapter(path)
    records = [c.record for c in list_conflicts(workspace, path)]
    assert sorted(r.paragraph_id for r in records) == sorted([A1, A3])
    assert {r.kind for r in records} == {"reverted_on_disk"} and {r.our_text for r in records} == {
        f"text of {A1}",
        f"text of {A3}",
    }
    # Recording again (the workstation saw it first, the run's end sees it again) adds nothing.
    chapter: Chapter = load_chapter(path)
    written = {r.paragraph_id: Written(r.our_version_id or "", r.our_text, r.base_source) for r in records}
    assert (
        record_reverted(workspace, path, chapter, written, reverted(chapter, written), origin="translation", model="m")
        is None
    )
    # "keep ours" puts the run's text back.
    restored = keep_ours(chapter.paragraph(A1), records[0].our_version_id, records[0].our_text)  # type: ignore[arg-type]
    assert restored.selected_text in {f"text of {A1}", f"text of {A3}"}
