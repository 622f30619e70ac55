"""The loop with real, weak and failing models: cut-off arguments, context overflow, output limits, repeats,
errors after output, and cancelled runs — against the real scripted server, checking the chapter file on disk."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from engine.run import run_chapter
from engine.run_request import RunRequest
from engine.trace import read_trace
from tests.engine.loop_support import IDS, collect, kinds, selected_texts, settings_for, write_chapter
from tests.support.model_server import SSE_HEADERS, ModelServer, Scripted, chunk, sse, text_reply, tool_reply

A1, A2, A3, A4, A5, A6, A7, A8 = IDS
BATCH = "add_translation_batch"
CHUNK_1 = (A1, A3, A4, A6)  # with chunk_chars=300 the chapter's work set is two chunks
CHUNK_2 = (A7, A8)
LLAMA_OVERFLOW = {
    "error": {
        "code": 400,
        "message": "request (8244 tokens) exceeds the available context size (8192 tokens), try increasing it.",
        "type": "exceed_context_size_error",
    }
}


def batch(*pairs: tuple[str, str]) -> dict:
    return {"paragraphs": [{"paragraph_id": pid, "translated_text": text} for pid, text in pairs]}


def whole(*ids: str) -> dict:
    return batch(*((pid, f"T-{pid}") for pid in ids))


def request(path: Path, server: ModelServer, **kw: object) -> RunRequest:
    return RunRequest(
        chapter_path=path,
        task=kw.pop("task", "translate"),
        settings=settings_for(server.base_url),
        chunk_chars=int(kw.pop("chunk_chars", 300)),
        **kw,
    )  # type: ignore[arg-type]


def overflow() -> Scripted:
    return Scripted(400, {"content-type": "application/json"}, json.dumps(LLAMA_OVERFLOW).encode(), framing="length")


def tool_messages(body: dict) -> list[dict]:
    return [json.loads(m["content"]) for m in body["messages"] if m["role"] == "tool"]


async def test_cut_off_translation_is_never_committed(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    cut = json.dumps(whole(*CHUNK_1))[:-8]  # stops inside the last translated_text
    model_server.add(tool_reply([(BATCH, cut)]))  # finish_reason "tool_calls", as Ollama used to send
    model_server.add(tool_reply([(BATCH, cut)], finish="stop"))
    events = await collect(request(path, model_server, only_chunk=1, max_turns=2))
    # The three items that closed before the cut were committed once; the cut one never was.
    assert [e.paragraph_ids for e in kinds(events, "batch_committed")] == [(A1, A3, A4)]
    assert selected_texts(path)[A6] is None and selected_texts(path)[A4] == f"T-{A4}"
    assert [r.error_code for r in kinds(events, "tool_result")] == ["ARGUMENTS_TRUNCATED"] * 2
    told = tool_messages(model_server.requests[1].json)
    assert told[0]["error_code"] == "ARGUMENTS_TRUNCATED" and "fewer paragraphs" in told[0]["hint"]
    assert told[0]["committed"] == [A1, A3, A4] and told[0]["cut_paragraph_id"] == A6
    (finished,) = kinds(events, "chunk_finished")  # one paragraph left: nothing to halve
    assert (finished.status, finished.end_code, finished.missing) == ("incomplete", "OUTPUT_LIMIT", (A6,))


async def test_cut_off_call_then_a_whole_one_completes(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    model_server.add(
        tool_reply([("get_next_paragraphs", '{"paragraph_id": "' + A1 + '", "cou')]),
        tool_reply([(BATCH, whole(*CHUNK_1))]),
    )
    events = await collect(request(path, model_server, only_chunk=1))
    assert [r.error_code for r in kinds(events, "tool_result")] == ["ARGUMENTS_TRUNCATED", None]
    assert kinds(events, "chunk_finished")[0].status == "complete"
    assert selected_texts(path)[A6] == f"T-{A6}"


async def test_context_overflow_on_the_first_turn_splits_the_chunk(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    model_server.add(
        overflow(),
        tool_reply([(BATCH, whole(A1, A3))]),
        tool_reply([(BATCH, whole(A4, A6))]),
        tool_reply([(BATCH, whole(*CHUNK_2))]),
    )
    events = await collect(request(path, model_server))
    started = [(e.chunk, e.part, e.paragraph_ids) for e in kinds(events, "chunk_started")]
    assert started == [(1, None, CHUNK_1), (1, "1.1", (A1, A3)), (1, "1.2", (A4, A6)), (2, None, CHUNK_2)]
    finished = [(e.chunk, e.part, e.status) for e in kinds(events, "chunk_finished")]
    assert finished == [(1, None, "split"), (1, "1.1", "complete"), (1, "1.2", "complete"), (2, None, "complete")]
    halves = [r.json["messages"][1]["content"] for r in model_server.requests[1:3]]
    # Each half holds its own paragraphs (the other half's may be read as context lines, which carry no ID).
    assert "part 1.1 of 2" in halves[0] and f"[ID: {A1}]" in halves[0] and f"[ID: {A4}]" not in halves[0]
    assert "part 1.2 of 2" in halves[1] and f"[ID: {A4}]" in halves[1] and f"[ID: {A1}]" not in halves[1]
    run = kinds(events, "run_finished")[0]
    assert run.status == "complete" and run.summary.paragraphs_done == 6
    assert all(selected_texts(path)[pid] == f"T-{pid}" for pid in CHUNK_1 + CHUNK_2)


async def test_context_overflow_fails_only_that_chunk(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    # chunk 1 overflows on its first turn, and so does each of its halves and quarters (single paragraphs);
    # chunk 2 then runs as usual: one chunk's problem is not the run's.
    model_server.add(*(overflow() for _ in range(7)), tool_reply([(BATCH, whole(*CHUNK_2))]))
    events = await collect(request(path, model_server))
    parts = [(e.part, e.status, e.end_code) for e in kinds(events, "chunk_finished") if e.chunk == 1]
    assert [p for p, status, _ in parts if status == "split"] == [None, "1.1", "1.2"]
    assert {(status, code) for _, status, code in parts if status != "split"} == {("failed", "CONTEXT_OVERFLOW")}
    assert len([p for p in parts if p[1] == "failed"]) == 4
    assert kinds(events, "chunk_finished")[-1].status == "complete"
    run = kinds(events, "run_finished")[0]
    assert run.status == "incomplete" and not run.summary.model_unusable
    assert run.summary.end_codes == {"CONTEXT_OVERFLOW": 4}
    assert "lower --chunk-chars" in run.summary.advice[0] and "context size" in run.summary.advice[0]
    assert selected_texts(path)[A7] == f"T-{A7}" and selected_texts(path)[A1] is None


async def test_context_overflow_later_in_a_chunk_fails_it_and_the_run_goes_on(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    model_server.add(tool_reply([(BATCH, whole(A1, A3))]), overflow(), tool_reply([(BATCH, whole(*CHUNK_2))]))
    events = await collect(request(path, model_server))
    finished = [(e.chunk, e.status, e.end_code) for e in kinds(events, "chunk_finished")]
    assert finished == [(1, "failed", "CONTEXT_OVERFLOW"), (2, "complete", None)]
    summary = kinds(events, "run_finished")[0].summary
    assert summary.paragraphs_done == 4 and summary.chunks[0].missing == [A4, A6]  # A1, A3 were saved
    errors = [e for e in kinds(events, "error") if e.code == "CONTEXT_OVERFLOW"]
    assert errors and errors[0].error["type"] == "context_overflow" and not errors[0].fatal


async def test_cli_context_overflow_exits_1_with_advice(tmp_path: Path, model_server: ModelServer) -> None:
    from tests.engine.test_cli_run import run_cli

    write_chapter(tmp_path)
    model_server.add(*(overflow() for _ in range(7)), tool_reply([(BATCH, whole(*CHUNK_2))]))
    done = run_cli(
        "run",
        "ch01.json",
        "--task",
        "translate",
        "--base-url",
        model_server.base_url,
        "--model",
        "m",
        "--chunk-chars",
        "300",
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stderr
    assert "CONTEXT_OVERFLOW" in done.stderr and "lower --chunk-chars (now 300)" in done.stderr
    assert "Traceback" not in done.stderr


async def test_two_text_answers_cut_by_the_output_limit_run_the_chunk_as_halves(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    cut = {"finish": "length", "usage": (900, 8192)}  # the whole output limit was used
    model_server.add(
        text_reply("the rain " * 40, **cut),
        text_reply("the rain " * 40, **cut),
        tool_reply([(BATCH, whole(A1, A3))]),
        tool_reply([(BATCH, whole(A4, A6))]),
        tool_reply([(BATCH, whole(*CHUNK_2))]),
    )
    events = await collect(request(path, model_server))
    finished = [(e.part, e.status, e.end_code) for e in kinds(events, "chunk_finished")]
    assert finished == [
        (None, "split", "OUTPUT_LIMIT"),
        ("1.1", "complete", None),
        ("1.2", "complete", None),
        (None, "complete", None),
    ]
    told = model_server.requests[1].json["messages"][-1]
    assert (
        told["role"] == "user"
        and "cut off (it reached the token limit) before it made any tool call" in told["content"]
    )
    assert "smaller batches" not in told["content"]
    assert len(model_server.requests) == 5
    (split,) = [e for e in kinds(events, "error") if e.code == "OUTPUT_LIMIT" and "halves" in e.message]
    assert "4 paragraphs still without a submission as two halves of 2 and 2" in split.message
    run = kinds(events, "run_finished")[0]
    assert run.status == "complete" and run.summary.paragraphs_done == run.summary.paragraphs_total == 6


async def test_two_cut_answers_of_one_paragraph_end_it_with_advice(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    before = path.read_bytes()
    cut = {"finish": "length", "usage": (900, 8192)}  # the whole output limit was used
    model_server.add(text_reply("the rain " * 40, **cut), text_reply("the rain " * 40, **cut))
    events = await collect(request(path, model_server, only_paragraph=A1))
    assert kinds(events, "chunk_finished")[0].end_code == "OUTPUT_LIMIT" and len(model_server.requests) == 2
    assert path.read_bytes() == before
    assert "raise --max-tokens (now 8192)" in kinds(events, "run_finished")[0].summary.advice[0]


async def test_answers_cut_below_the_output_limit_point_at_the_context(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    # llama.cpp ends with "length" when prompt + output fill its context: 7,705 + 487 = 8,192, far below max_tokens
    cut = {"finish": "length", "usage": (7705, 487)}
    model_server.add(text_reply("the rain " * 40, **cut), text_reply("the rain " * 40, **cut))
    events = await collect(request(path, model_server, only_paragraph=A1))
    assert kinds(events, "chunk_finished")[0].end_code == "OUTPUT_LIMIT"
    (advice,) = kinds(events, "run_finished")[0].summary.advice
    assert "context filled up" in advice and "lower --chunk-chars (now 300)" in advice


async def test_a_repeat_and_a_cut_answer_are_counted_apart(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    same = (BATCH, whole(A1, A3))
    model_server.add(
        tool_reply([same]),
        tool_reply([same]),
        text_reply("the rain " * 9, finish="length"),
        tool_reply([(BATCH, whole(A4, A6))]),
    )
    events = await collect(request(path, model_server, only_chunk=1))
    assert kinds(events, "chunk_finished")[0].status == "complete"  # one repeat and one cut: neither limit reached
    assert len(model_server.requests) == 4


async def test_a_model_resending_the_same_batch_stops_with_no_progress(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    same = (BATCH, whole(A1, A3))
    model_server.add(tool_reply([same]), tool_reply([same]), tool_reply([same]), text_reply("never asked"))
    events = await collect(request(path, model_server, only_chunk=1))
    assert len(model_server.requests) == 3
    assert [e.paragraph_ids for e in kinds(events, "batch_committed")] == [(A1, A3)]  # only what was written
    finished = kinds(events, "chunk_finished")[0]
    assert (finished.status, finished.end_code) == ("incomplete", "NO_PROGRESS")
    assert set(finished.missing) == {A4, A6}
    note = tool_messages(model_server.requests[2].json)[-1]
    assert "identical to one you already made" in note["note"]


async def test_unchanged_resubmissions_count_as_no_progress(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    model_server.add(
        tool_reply([(BATCH, whole(A1))]),
        tool_reply([(BATCH, batch((A1, f"T-{A1}"), (A3, "x")))]),
        tool_reply([(BATCH, batch((A3, "x")))]),
        tool_reply([(BATCH, batch((A1, f"T-{A1}")))]),
        text_reply("never asked"),
    )
    events = await collect(request(path, model_server, only_chunk=1, task="translate", include_all=False))
    # turn 2 wrote A3; turns 3 and 4 only resent texts that were already there
    assert [e.paragraph_ids for e in kinds(events, "batch_committed")] == [(A1,), (A3,)]
    assert kinds(events, "chunk_finished")[0].end_code == "NO_PROGRESS" and len(model_server.requests) == 4
    assert "Nothing was written" in tool_messages(model_server.requests[3].json)[-1]["note"]


async def test_insufficient_quota_after_output_stops_the_run_at_once(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    before = path.read_bytes()
    quota = {
        "error": {
            "message": "You exceeded your current quota",
            "type": "insufficient_quota",
            "code": "insufficient_quota",
        }
    }
    model_server.add(Scripted(200, SSE_HEADERS, sse([chunk({"role": "assistant", "content": "Sure"}), quota])))
    model_server.add(*(text_reply("never asked") for _ in range(5)))
    events = await collect(request(path, model_server))
    assert len(model_server.requests) == 1  # not re-issued, and no later chunk asked
    assert path.read_bytes() == before
    run = kinds(events, "run_finished")[0]
    assert run.status == "failed" and [c.status for c in run.summary.chunks] == ["failed", "failed"]
    assert run.summary.chunks[0].failure["type"] == "quota"
    assert not run.summary.model_unusable  # the account, not the configuration: exit 1, not 2
    (error,) = [e for e in kinds(events, "error") if e.error]
    assert error.fatal and error.error == {
        "message": error.message,
        "type": "quota",
        "code": "insufficient_quota",
        "retryable": False,
        "retry_after_s": None,
    }


async def test_a_cancelled_run_still_reports_how_it_ended(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    hanging = tool_reply([(BATCH, whole(A4, A6))], usage=(50, 20))
    model_server.add(
        tool_reply([(BATCH, whole(A1, A3))], usage=(1000, 200)),
        Scripted(hanging.status, hanging.headers, hanging.body, hang_after=len(hanging.body) // 2),
    )
    events = run_chapter(request(path, model_server))
    seen = []
    async for event in events:
        seen.append(event)
        if event.kind == "batch_committed":
            while len(model_server.requests) < 2:  # the second request is on the wire, its answer hangs
                await asyncio.sleep(0.01)
            events.cancel()
    assert seen[-1].kind == "run_finished" and seen[-1].status == "cancelled"
    summary = seen[-1].summary
    (current,) = summary.chunks
    assert current.status == "cancelled" and set(current.missing) == {A4, A6}
    assert current.turns == 2 and current.usage["total_tokens"] == 1200
    assert summary.usage["total_tokens"] == 1200 and summary.paragraphs_done == 2
    assert kinds(seen, "chunk_finished")[-1].status == "cancelled"
    trace = list(read_trace(Path(summary.trace)))
    assert trace[-1]["kind"] == "run_finished" and trace[-1]["summary"]["usage"]["total_tokens"] == 1200
    assert selected_texts(path)[A3] == f"T-{A3}" and selected_texts(path)[A4] is None
