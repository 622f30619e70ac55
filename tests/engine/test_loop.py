"""The tool-call loop and runs against the real scripted model server (real HTTP, real SSE, real files)."""

from __future__ import annotations

import asyncio
import errno
import json
from pathlib import Path
from typing import Any

import pytest

from engine.events import ModelDelta
from engine.history import bounded
from engine.run import run_chapter
from engine.run_request import RunRequest
from engine.trace import read_trace
from store.commit import ChapterStore
from store.loader import load_chapter
from store.model import append_version
from tests.engine.loop_support import IDS, collect, kinds, selected_texts, settings_for, write_chapter
from tests.support.model_server import ModelServer, RecordedRequest, Scripted, error_reply, text_reply, tool_reply

A1, A2, A3, A4, A5, A6, A7, A8 = IDS
BATCH = "add_translation_batch"


def batch(*pairs: tuple[str, str]) -> dict:
    return {"paragraphs": [{"paragraph_id": pid, "translated_text": text} for pid, text in pairs]}


def request(path: Path, server: ModelServer, **kw: object) -> RunRequest:
    return RunRequest(
        chapter_path=path,
        task=kw.pop("task", "translate"),
        settings=settings_for(server.base_url),
        chunk_chars=300,
        **kw,
    )  # type: ignore[arg-type]


async def test_misbehaving_model_gets_every_error_code_then_finishes(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    model_server.add(
        tool_reply(
            [
                ("get_previous_paragraphs", {"paragraph_id": A3, "count": 5}),
                ("get_next_paragraphs", {"paragraph_id": A6, "count": 1}),
            ]
        ),
        tool_reply([(BATCH, {"paragraphs": [{"index": 1, "translated_text": "One"}]})]),
        tool_reply([(BATCH, batch((A1, "One"), (A7, "Seven")))]),
        tool_reply([(BATCH, batch((A1, "One"), (A1, "One again")))]),
        tool_reply([(BATCH, batch((A1, "One"), (A3, "Three")))]),
        text_reply("I think that is enough for now."),
        tool_reply([(BATCH, batch((A4, "Four"), (A6, "Six")))]),
        # chunk 2
        tool_reply([(BATCH, batch((A7, "Seven"), (A8, "Eight")))]),
    )
    events = await collect(request(path, model_server))
    codes = [e.error_code for e in kinds(events, "tool_result")]
    assert codes == [
        "CHUNK_BOUNDARY",
        "CHUNK_BOUNDARY",
        "INDEX_NOT_ACCEPTED",
        "NOT_IN_CHUNK",
        "DUPLICATE_PARAGRAPH_IDS",
        None,
        None,
        None,
    ]
    # every error reached the model as a tool message of the next request
    requests = model_server.requests
    assert len(requests) == 8 and model_server.pending == 0  # nothing sent after a chunk was complete
    tool_messages = [m for m in requests[6].json["messages"] if m["role"] == "tool"]
    sent_codes = [json.loads(m["content"]).get("error_code") for m in tool_messages]
    assert sent_codes == [
        "CHUNK_BOUNDARY",
        "CHUNK_BOUNDARY",
        "INDEX_NOT_ACCEPTED",
        "NOT_IN_CHUNK",
        "DUPLICATE_PARAGRAPH_IDS",
        None,
    ]
    # ... in full in the next request (later ones resend it as one line: engine.history)
    assert json.loads(tool_messages[0]["content"])["note"] == "earlier result, shortened"
    boundary = json.loads(next(m for m in requests[1].json["messages"] if m["role"] == "tool")["content"])
    assert boundary["available_count"] == 1 and boundary["chunk_range"] == {
        "first_paragraph_id": A1,
        "last_paragraph_id": A6,
    }
    reminder = requests[6].json["messages"][-1]
    assert reminder["role"] == "user" and A4 in reminder["content"] and A6 in reminder["content"]
    assert [r.missing for r in kinds(events, "reminder")] == [(A4, A6)]
    # each chunk starts a fresh history; system prompt and tools are byte-identical across chunks
    assert len(requests[7].json["messages"]) == 2
    assert json.dumps(requests[0].json["messages"][0]) == json.dumps(requests[7].json["messages"][0])
    assert json.dumps(requests[0].json["tools"]) == json.dumps(requests[7].json["tools"])
    assert selected_texts(path) == {
        A1: "One",
        A2: None,
        A3: "Three",
        A4: "Four",
        A5: None,
        A6: "Six",
        A7: "Seven",
        A8: "Eight",
    }
    finished = kinds(events, "run_finished")[0]
    assert finished.status == "complete" and finished.summary.paragraphs_done == 6
    assert [c.status for c in kinds(events, "chunk_finished")] == ["complete", "complete"]
    # the trace is the record: each request message once, whole (a request adds to its chunk's history from
    # first_message on, and sends the messages before it as engine.history shrinks them), answers, tool calls,
    # commits, summary
    trace = list(read_trace(Path(finished.summary.trace)))
    assert trace[0]["kind"] == "run_started" and trace[-1]["kind"] == "run_finished"
    sent = [e for e in trace if e["kind"] == "model_request"]
    history: list[dict] = []
    for event, received in zip(sent, requests, strict=True):
        history = history[: event["first_message"]] + event["messages"]
        assert event["message_count"] == len(history)
        assert bounded(history, event["first_message"], lambda name: name == BATCH) == received.json["messages"]
    assert sum(e["kind"] == "tool_result" for e in trace) == 8
    assert sum(e["kind"] == "batch_committed" for e in trace) == 3
    assert not any(e["kind"] == "model_delta" for e in trace)
    assert trace[-1]["summary"]["usage"]["total_tokens"] == 8 * 15 and trace[-1]["summary"]["wall_ms"] > 0


async def test_lazy_model_is_reminded_twice_then_chunk_is_incomplete(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    before = path.read_bytes()
    model_server.add(*[text_reply("Nothing to do here.") for _ in range(6)])
    events = await collect(request(path, model_server))
    assert [r.number for r in kinds(events, "reminder")] == [1, 2, 1, 2]
    assert [(c.status, c.missing) for c in kinds(events, "chunk_finished")] == [
        ("incomplete", (A1, A3, A4, A6)),
        ("incomplete", (A7, A8)),
    ]
    assert kinds(events, "run_finished")[0].status == "incomplete"
    assert path.read_bytes() == before


async def test_max_turns_ends_a_chunk_incomplete(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    model_server.add(*[tool_reply([("get_paragraph_info", {"paragraph_id": A1})]) for _ in range(4)])
    events = await collect(request(path, model_server, max_turns=2))
    assert [(c.status, c.turns) for c in kinds(events, "chunk_finished")] == [("incomplete", 2), ("incomplete", 2)]


async def test_provider_429_then_503_is_retried(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    model_server.add(
        error_reply(429, "Rate limit reached", code="rate_limit_exceeded", headers={"retry-after-ms": "20"}),
        error_reply(503, "overloaded", headers={"retry-after": "0.02"}),
        tool_reply([(BATCH, batch((A1, "1"), (A3, "3"), (A4, "4"), (A6, "6")))]),
        tool_reply([(BATCH, batch((A7, "7"), (A8, "8")))]),
    )
    events = await collect(request(path, model_server))
    retries = kinds(events, "retry")
    assert [r.attempt for r in retries] == [1, 2]
    assert "429" in retries[0].reason and "503" in retries[1].reason
    assert kinds(events, "run_finished")[0].status == "complete"
    assert len(model_server.requests) == 4


async def test_broken_argument_json_is_repaired_or_refused(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    truncated = json.dumps(batch((A1, "One"), (A3, "Three")))[:-2]  # missing the closing "]}"
    model_server.add(
        tool_reply([(BATCH, "this is not json")]),
        tool_reply([(BATCH, truncated)]),
        tool_reply([(BATCH, batch((A4, "Four"), (A6, "Six")))]),
        tool_reply([(BATCH, batch((A7, "Seven"), (A8, "Eight")))]),
    )
    events = await collect(request(path, model_server))
    results = kinds(events, "tool_result")
    assert results[0].error_code == "INVALID_ARGUMENTS"
    assert results[1].success and "repaired" in results[1].result["warning"]
    assert selected_texts(path)[A3] == "Three"
    assert kinds(events, "run_finished")[0].status == "complete"


async def test_cancel_mid_stream_keeps_committed_batches_and_nothing_else(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    hanging = tool_reply([(BATCH, batch((A4, "Four"), (A6, "Six")))])
    model_server.add(
        tool_reply([(BATCH, batch((A1, "One"), (A3, "Three")))]),
        Scripted(hanging.status, hanging.headers, hanging.body, hang_after=len(hanging.body) // 2),
    )
    committed: bytes | None = None
    streaming = asyncio.Event()

    async def consume() -> None:
        nonlocal committed
        async for event in run_chapter(request(path, model_server)):
            if event.kind == "batch_committed":
                committed = path.read_bytes()
            if isinstance(event, ModelDelta) and event.turn == 2:
                streaming.set()

    async def held_open() -> None:  # the server's own record: it sent half of the answer and holds the rest
        while model_server.hanging != 1:
            await asyncio.sleep(0.01)

    task = asyncio.create_task(consume())
    # The second answer is streaming: the run has part of it, and the server holds the rest back.
    await asyncio.wait_for(streaming.wait(), 60)
    await asyncio.wait_for(held_open(), 60)
    task.cancel()
    # The stream hangs until the server stops, so a cancel that waited for it would never end.
    await asyncio.wait({task}, timeout=60)
    assert task.cancelled(), "cancelling the run did not stop it while the model's answer hung"
    assert committed is not None and path.read_bytes() == committed
    assert selected_texts(path)[A1] == "One" and selected_texts(path)[A4] is None
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


async def test_person_editing_mid_run_keeps_manual_selection_and_refuses_stale(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    replies = iter(
        [
            tool_reply([("get_paragraph_info", {"paragraph_id": A1})]),
            tool_reply([(BATCH, batch((A1, "One"), (A3, "Three"), (A4, "Four")))]),
            tool_reply([(BATCH, batch((A1, "One"), (A3, "Three"), (A6, "Six")))]),
            text_reply("The rest changed under me."),
            text_reply("Still cannot."),
            text_reply("Giving up on that one."),
            tool_reply([(BATCH, batch((A7, "Seven"), (A8, "Eight")))]),
        ]
    )
    person = ChapterStore(path)

    def edit(chapter):  # type: ignore[no-untyped-def]
        a3, _ = append_version(chapter.paragraph(A3), "Three, by hand", origin="manual", model=None)
        a4 = chapter.paragraph(A4).replace(text=chapter.paragraph(A4).text + "（改稿）")
        return chapter.with_paragraphs({chapter.positions[A3]: a3, chapter.positions[A4]: a4})

    def answer(recorded: RecordedRequest) -> Scripted:
        if len(model_server.requests) == 2:  # the run waits for its second answer: a person edits just then
            person.update(edit)
        return next(replies)

    model_server.responder = answer
    events = [e async for e in run_chapter(request(path, model_server))]
    results = kinds(events, "tool_result")
    assert [r.error_code for r in results] == [None, "STALE_PARAGRAPH", None, None]
    assert A4 in json.dumps(results[1].result)
    chapter = load_chapter(path)
    a3 = chapter.paragraph(A3)
    assert a3.selected_text == "Three, by hand"  # manual work wins ...
    assert [t.text for t in a3.translations] == ["Three, by hand", "Three"]  # ... and the AI version is kept
    assert chapter.paragraph(A4).selected_text is None
    assert kinds(events, "batch_committed")[0].kept_selection == (A3,)
    assert [(c.status, c.missing) for c in kinds(events, "chunk_finished")] == [("incomplete", (A4,)), ("complete", ())]
    conflicts = list((tmp_path / ".proofdesk" / "conflicts").iterdir())
    assert conflicts, "the refused texts must be recorded durably"


async def test_a_trace_that_cannot_be_written_does_not_stop_the_run(
    tmp_path: Path, model_server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import engine.trace

    class FullDisk:
        """A trace file on a disk that fills up after a few events."""

        def __init__(self, real: Any) -> None:
            self.real, self.lines = real, 0

        def write(self, text: str) -> int:
            self.lines += 1
            if self.lines > 3:
                raise OSError(errno.ENOSPC, "No space left on device")
            return self.real.write(text)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.real, name)

    real_open = open
    monkeypatch.setattr(engine.trace, "open", lambda *a, **k: FullDisk(real_open(*a, **k)), raising=False)
    path = write_chapter(tmp_path)
    model_server.add(
        tool_reply([(BATCH, batch((A1, "1"), (A3, "3"), (A4, "4"), (A6, "6")))]),
        tool_reply([(BATCH, batch((A7, "7"), (A8, "8")))]),
    )
    events = await collect(request(path, model_server))
    failures = [e for e in kinds(events, "error") if e.code == "TRACE_FAILED"]
    assert len(failures) == 1 and "No space left on device" in failures[0].message
    assert kinds(events, "run_finished")[0].status == "complete"
    assert selected_texts(path)[A8] == "8"


async def test_a_bug_inside_the_run_ends_it_with_an_error_event(
    tmp_path: Path, model_server: ModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import engine.loop

    async def broken(self: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(engine.loop.ToolCallLoop, "run", broken)
    events = await collect(request(write_chapter(tmp_path), model_server))  # nothing escapes the stream
    errors = kinds(events, "error")
    assert [e.code for e in errors] == ["INTERNAL_ERROR"] and "RuntimeError: boom" in errors[0].message
    finished = kinds(events, "run_finished")
    assert len(finished) == 1 and finished[0].status == "failed"
