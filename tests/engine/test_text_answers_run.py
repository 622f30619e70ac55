"""Text answers in a run (design section 19): ``[ID: …]`` lines are submitted as add_translation_batch, validated as a
whole, split by --max-batch, and reported as ``text_submission`` — against the scripted server and the file on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.config import RunDefaults
from engine.events import event_from_json
from engine.run_request import RunRequest
from tests.engine.loop_support import IDS, collect, kinds, selected_texts, settings_for, write_chapter
from tests.engine.test_cli_run import run_cli
from tests.support.model_server import ModelServer, text_reply
from tui.event_text import describer

WORK = [pid for i, pid in enumerate(IDS) if i not in (1, 4)]  # the test chapter's non-empty paragraphs


def request(path: Path, server: ModelServer, **kw: object) -> RunRequest:
    return RunRequest.configured(path, "translate", settings_for(server.base_url), RunDefaults(), **kw)  # type: ignore[arg-type]


FORMS = {
    "plain": "[ID: {pid}] T {pid}",
    "index": "[{n}] [ID: {pid}] T {pid}",
    "bullet": "- [ID: {pid}] T {pid}",
    "star bold": "* **[ID: {pid}]** T {pid}",
    "bold line": "**[{n}] [ID: {pid}] T {pid}**",
    "spaces": "[ ID : {pid} ] T {pid}",
    "translation label": "[ID: {pid}] Translation: T {pid}",
}


def answer(form: str, pids: list[str]) -> str:
    return "\n".join(form.format(pid=pid, n=IDS.index(pid) + 1 if pid in IDS else 99) for pid in pids)


@pytest.mark.parametrize("form", FORMS.values(), ids=FORMS.keys())
async def test_every_form_of_a_text_answer_is_committed(tmp_path: Path, model_server: ModelServer, form: str) -> None:
    path = write_chapter(tmp_path)
    model_server.add(text_reply(answer(form, WORK)))
    events = await collect(request(path, model_server))
    assert {pid: selected_texts(path)[pid] for pid in WORK} == {pid: f"T {pid}" for pid in WORK}
    (submitted,) = kinds(events, "text_submission")
    assert submitted.paragraph_ids == tuple(WORK) and submitted.turn == 1
    assert kinds(events, "run_finished")[0].status == "complete" and len(model_server.requests) == 1


async def test_text_around_the_lines_in_a_fence_is_ignored(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    content = (
        f"Here is my translation of the chunk:\n\n```\n{answer(FORMS['index'], WORK[:3])}\n```\n\n"
        "I hope this helps! Let me know if you want changes."
    )
    model_server.add(text_reply(content), text_reply(answer(FORMS["plain"], WORK[3:])))
    events = await collect(request(path, model_server))
    assert {pid: selected_texts(path)[pid] for pid in WORK} == {pid: f"T {pid}" for pid in WORK}
    assert [e.paragraph_ids for e in kinds(events, "batch_committed")] == [tuple(WORK[:3]), tuple(WORK[3:])]
    # The result came back as a user message (the answer made no call for a tool message to answer).
    told = model_server.requests[1].json["messages"]
    assert [m["role"] for m in told[-2:]] == ["assistant", "user"]
    assert "submitted as add_translation_batch" in told[-1]["content"] and '"success": true' in told[-1]["content"]
    assert "tool_calls" not in told[-2]


async def test_an_id_outside_the_chunk_refuses_the_whole_answer(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    before = path.read_bytes()
    # chunk 1 of two; A7 belongs to chunk 2, zzzzzzzz to nothing: the whole answer is refused, even with max_batch 2
    lines = answer(FORMS["plain"], [*WORK[:4], WORK[4], "zzzzzzzz"])
    model_server.add(text_reply(lines), text_reply("I give up."), text_reply("Still nothing."))
    events = await collect(request(path, model_server, chunk_chars=300, max_batch=2, only_chunk=1))
    assert path.read_bytes() == before
    (result,) = kinds(events, "tool_result")
    assert result.error_code == "NOT_IN_CHUNK" and result.result["invalid_paragraph_ids"] == [WORK[4], "zzzzzzzz"]
    assert not kinds(events, "batch_committed")
    assert "NOT_IN_CHUNK" in model_server.requests[1].json["messages"][-1]["content"]


async def test_a_repeated_id_refuses_the_whole_answer(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    before = path.read_bytes()
    model_server.add(text_reply(answer(FORMS["plain"], [*WORK, WORK[0]])), text_reply("no"), text_reply("no"))
    events = await collect(request(path, model_server, max_batch=2))
    assert path.read_bytes() == before
    assert [r.error_code for r in kinds(events, "tool_result")] == ["DUPLICATE_PARAGRAPH_IDS"]


async def test_more_items_than_max_batch_are_consecutive_batches(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    model_server.add(text_reply(answer(FORMS["plain"], WORK)))
    events = await collect(request(path, model_server, max_batch=4))
    assert [e.paragraph_ids for e in kinds(events, "batch_committed")] == [tuple(WORK[:4]), tuple(WORK[4:])]
    assert [len(c.arguments["paragraphs"]) for c in kinds(events, "tool_called")] == [4, 2]
    assert kinds(events, "run_finished")[0].status == "complete"


def test_the_json_events_come_in_order_and_the_log_shows_one_line(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    model_server.add(text_reply(answer(FORMS["index"], WORK)))
    base = ("run", path.name, "--task", "translate", "--base-url", model_server.base_url, "--model", "m", "--json")
    done = run_cli(*base, "--max-batch", "3", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    order = [e["kind"] for e in events if e["kind"] not in ("model_delta", "model_request")]
    start = order.index("model_response")
    expected = ["model_response", "text_submission", *("tool_called", "tool_result", "batch_committed") * 2]
    assert order[start:] == [*expected, "chunk_finished", "run_finished"]
    (submitted,) = [e for e in events if e["kind"] == "text_submission"]
    assert submitted["paragraph_ids"] == WORK and submitted["turn"] == 1
    event = event_from_json(submitted)
    words = describer(event).log(event)
    assert words is not None and "\n" not in words.line and "text answer: 6 paragraphs" in words.line


async def test_a_text_answer_cut_by_the_output_limit_submits_only_the_items_closed_before_the_cut(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    cut = answer(FORMS["plain"], WORK[:3]) + f"\n[ID: {WORK[3]}] The rain kept fal"
    model_server.add(text_reply(cut, finish="length", usage=(900, 8192)), text_reply(answer(FORMS["plain"], WORK[3:])))
    events = await collect(request(path, model_server))
    assert [e.paragraph_ids for e in kinds(events, "text_submission")] == [tuple(WORK[:3]), tuple(WORK[3:])]
    assert [e.paragraph_ids for e in kinds(events, "batch_committed")] == [tuple(WORK[:3]), tuple(WORK[3:])]
    assert all(selected_texts(path)[pid] == f"T {pid}" for pid in WORK)  # the cut text was never saved
    told = model_server.requests[1].json["messages"]
    assert told[-3]["content"] == cut and f"[ID: {WORK[3]}] was being written" in told[-1]["content"]
    assert kinds(events, "run_finished")[0].status == "complete"


@pytest.mark.parametrize("task", ["polish", "proofread"])
async def test_a_text_answer_in_a_revising_task_is_submitted_like_a_batch(
    tmp_path: Path, model_server: ModelServer, task: str
) -> None:
    from tests.engine.test_suggestions_run import translated

    path = translated(tmp_path)  # every paragraph translated; [3] reviewed, [4] written by hand
    lines = "\n".join(f"[ID: {pid}] Translation: better {pid}" for pid in WORK)
    model_server.add(text_reply(lines), text_reply("Done: those are all my changes."))
    events = await collect(
        RunRequest.configured(path, task, settings_for(model_server.base_url), RunDefaults(), apply=True)  # type: ignore[arg-type]
    )
    (submitted,) = kinds(events, "text_submission")
    assert submitted.paragraph_ids == tuple(WORK)
    (committed,) = kinds(events, "batch_committed")
    assert committed.paragraph_ids == tuple(WORK) and set(committed.protected) == {IDS[2], IDS[3]}
    texts = selected_texts(path)
    assert all(texts[pid] == f"better {pid}" for pid in WORK if pid not in (IDS[2], IDS[3]))
    assert kinds(events, "run_finished")[0].status == "complete"


async def test_a_polish_chunk_echoed_back_is_not_read_as_text_answers(
    tmp_path: Path, model_server: ModelServer
) -> None:
    """An echo of the chunk is reminded (engine/nudges.py), never submitted as [ID: …] lines."""
    from engine.chunks import build_chunks
    from store.loader import load_chapter
    from tests.engine.test_suggestions_run import translated

    path = translated(tmp_path)
    before = selected_texts(path)
    (chunk,) = build_chunks(load_chapter(path), "polish")
    model_server.add(text_reply(chunk.text), text_reply("No changes."))
    events = await collect(RunRequest.configured(path, "polish", settings_for(model_server.base_url), RunDefaults()))
    assert not kinds(events, "text_submission") and not kinds(events, "batch_committed")
    assert selected_texts(path) == before
    assert "no changes" in model_server.requests[1].json["messages"][-1]["content"]
    assert kinds(events, "run_finished")[0].status == "complete"
