"""Cut batches (design section 19): a cut-off add_translation_batch commits exactly the items that closed before the
cut, never the cut one; the history shows the call as those items; two cut turns run what is missing as halves —
against the scripted server and the chapter file on disk."""

from __future__ import annotations

import json
from pathlib import Path

from engine.client.response import ToolCall
from engine.cut_batch import cut_batch
from engine.run_request import RunRequest
from tests.engine.loop_support import IDS, collect, kinds, selected_texts, settings_for, write_chapter
from tests.support.model_server import ModelServer, text_reply, tool_reply

A1, A2, A3, A4, A5, A6, A7, A8 = IDS
BATCH = "add_translation_batch"
CHUNK_1 = (A1, A3, A4, A6)  # with chunk_chars=300 the chapter's work set is two chunks
LOOP = "The rain kept falling on the gate. "


def items(*ids: str, text: str = "T-{pid}") -> list[dict]:
    return [{"paragraph_id": pid, "translated_text": text.format(pid=pid)} for pid in ids]


def cut_inside_last_text(batch: list[dict], keep: int = 6) -> str:
    """The batch's arguments cut ``keep`` characters into the last item's text."""
    raw = json.dumps({"paragraphs": batch}, ensure_ascii=False)
    return raw[: raw.rindex('"translated_text": "') + len('"translated_text": "') + keep]


def request(path: Path, server: ModelServer, **kw: object) -> RunRequest:
    return RunRequest(
        chapter_path=path, task="translate", settings=settings_for(server.base_url), chunk_chars=300, **kw
    )  # type: ignore[arg-type]


def tool_messages(body: dict) -> list[dict]:
    return [json.loads(m["content"]) for m in body["messages"] if m["role"] == "tool"]


async def test_a_batch_cut_by_the_output_limit_commits_its_closed_items(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    cut = cut_inside_last_text(items(*CHUNK_1))
    model_server.add(
        tool_reply([(BATCH, cut)], finish="length", usage=(900, 8192)),
        tool_reply([(BATCH, {"paragraphs": items(A6)})]),
    )
    events = await collect(request(path, model_server, only_chunk=1))
    assert [e.paragraph_ids for e in kinds(events, "batch_committed")] == [(A1, A3, A4), (A6,)]
    assert all(selected_texts(path)[pid] == f"T-{pid}" for pid in CHUNK_1)
    (cut_result, _) = kinds(events, "tool_result")
    assert (cut_result.success, cut_result.error_code) == (False, "ARGUMENTS_TRUNCATED")
    assert cut_result.result["committed"] == [A1, A3, A4] and cut_result.result["cut_paragraph_id"] == A6
    assert cut_result.result["remaining"] == [A6] and "repetition loop" not in cut_result.result["error"]
    assert kinds(events, "tool_called")[0].arguments == cut  # the trace keeps what the model sent
    # The model sees its own call as the items it sent in full, never as {}.
    assistant = model_server.requests[1].json["messages"][-2]
    shown = json.loads(assistant["tool_calls"][0]["function"]["arguments"])
    assert shown == {"paragraphs": items(A1, A3, A4)}
    assert kinds(events, "chunk_finished")[0].status == "complete"


async def test_a_cut_repetition_loop_is_named_and_never_committed(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    looping = [*items(A1), {"paragraph_id": A3, "translated_text": LOOP * 40}]
    cut = cut_inside_last_text(looping, keep=len(LOOP) * 12)
    model_server.add(
        tool_reply([(BATCH, cut)], finish="length"),
        tool_reply([(BATCH, {"paragraphs": items(A3, A4, A6)})]),
    )
    events = await collect(request(path, model_server, only_chunk=1))
    told = tool_messages(model_server.requests[1].json)[0]
    assert told["cut_paragraph_id"] == A3 and "repeats one sentence" in told["error"]
    assert "Write each sentence once" in told["hint"]
    assert [e.paragraph_ids for e in kinds(events, "batch_committed")] == [(A1,), (A3, A4, A6)]
    assert LOOP.strip() not in (selected_texts(path)[A3] or "")


async def test_no_other_cut_call_runs_and_each_is_shown_as_what_closed(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    before = path.read_bytes()
    model_server.add(
        tool_reply(
            [
                ("get_next_paragraphs", '{"paragraph_id": "' + A1 + '", "cou'),
                (BATCH, '{"paragra'),
            ],
            finish="length",
        ),
        text_reply("the rain " * 40, finish="length"),
    )
    events = await collect(request(path, model_server, only_paragraph=A1))
    assert path.read_bytes() == before and not kinds(events, "batch_committed")
    assert [r.error_code for r in kinds(events, "tool_result")] == ["ARGUMENTS_TRUNCATED"] * 2
    # Each cut call as what closed of it, never {} (a batch with no closed item is still a batch).
    shown = model_server.requests[1].json["messages"][-3]["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in shown] == [{"paragraph_id": A1}, {"paragraphs": []}]
    told = tool_messages(model_server.requests[1].json)
    assert all(t["error_code"] == "ARGUMENTS_TRUNCATED" for t in told)
    assert "cut_paragraph_id" not in told[0] and "cut_paragraph_id" in told[1]  # only the batch is a batch
    (finished,) = kinds(events, "chunk_finished")  # one paragraph: nothing to halve
    assert (finished.status, finished.end_code) == ("incomplete", "OUTPUT_LIMIT")


async def test_two_cut_turns_run_the_missing_paragraphs_as_halves(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    cut = cut_inside_last_text(items(A1, A3))  # A1 closed, A3 cut
    model_server.add(
        tool_reply([(BATCH, cut)], finish="length"),
        tool_reply([(BATCH, cut)]),  # cut again, reported as tool_calls: ARGUMENTS_TRUNCATED all the same
        tool_reply([(BATCH, {"paragraphs": items(A3)})]),
        tool_reply([(BATCH, {"paragraphs": items(A4, A6)})]),
    )
    events = await collect(request(path, model_server, only_chunk=1))
    started = [(e.part, e.paragraph_ids) for e in kinds(events, "chunk_started")]
    assert started == [(None, CHUNK_1), ("1.1", (A3,)), ("1.2", (A4, A6))]
    finished = [(e.part, e.status, e.end_code) for e in kinds(events, "chunk_finished")]
    assert finished == [(None, "split", "OUTPUT_LIMIT"), ("1.1", "complete", None), ("1.2", "complete", None)]
    assert [e.paragraph_ids for e in kinds(events, "batch_committed")] == [(A1,), (A3,), (A4, A6)]
    summary = kinds(events, "run_finished")[0].summary
    assert summary.status == "complete"
    assert (summary.paragraphs_done, summary.paragraphs_total) == (4, 4)
    assert summary.tool_errors == {"ARGUMENTS_TRUNCATED": 2}
    assert all(selected_texts(path)[pid] == f"T-{pid}" for pid in CHUNK_1)


def test_at_every_cut_only_the_items_closed_before_it_are_taken() -> None:
    batch = items(A1, A3, A4, text='T-{pid} "said" \\ {{x}}: [1, 2]')
    raw = json.dumps({"paragraphs": batch}, ensure_ascii=False)
    texts = [json.dumps(item, ensure_ascii=False) for item in batch]
    ends = [raw.index(text) + len(text) for text in texts]
    for at in range(len(raw)):
        cut = cut_batch(ToolCall("c", BATCH, raw[:at], None, "cut", error_code="ARGUMENTS_TRUNCATED"))
        closed = sum(end <= at for end in ends)
        assert list(cut.items) == batch[:closed], at


WHOLE = json.dumps({"paragraphs": items(*CHUNK_1, text="Translation of {pid}, in full.")}, ensure_ascii=False)


async def test_wherever_the_cut_falls_only_whole_texts_reach_the_file(
    tmp_path: Path, model_server: ModelServer
) -> None:
    texts = [json.dumps(item, ensure_ascii=False) for item in json.loads(WHOLE)["paragraphs"]]
    ends = [WHOLE.index(text) + len(text) for text in texts]  # where each item has closed
    for number, at in enumerate(range(3, len(WHOLE) - 2, 23)):
        folder = tmp_path / str(number)
        folder.mkdir()
        path = write_chapter(folder)
        model_server.add(tool_reply([(BATCH, WHOLE[:at])], finish="length"))
        events = await collect(request(path, model_server, only_chunk=1, max_turns=1))
        closed = CHUNK_1[: sum(end <= at for end in ends)]
        saved = selected_texts(path)
        assert {pid for pid in CHUNK_1 if saved[pid] is not None} == set(closed), at
        assert all(saved[pid] == f"Translation of {pid}, in full." for pid in closed), at
        assert [e.paragraph_ids for e in kinds(events, "batch_committed")] == ([closed] if closed else []), at
