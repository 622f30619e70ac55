"""Bounds on what one response can make the loop do, and a trace that stores each message once (issue 17 item 9)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.loop import MAX_CALLS_PER_RESPONSE
from engine.run_request import RunRequest
from engine.tools.raw_arguments import MAX_ARGUMENT_CHARS
from engine.trace import decode_record, read_trace
from tests.engine.loop_support import IDS, collect, kinds, settings_for, write_chapter
from tests.support.model_server import SSE_HEADERS, ModelServer, Scripted, sse, text_reply, tool_chunks, tool_reply
from tui.widgets.trace_steps import build_steps

A1, A3 = IDS[0], IDS[2]


async def test_a_response_with_hundreds_of_calls_runs_the_first_64(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    calls = [("get_paragraph_info", {"paragraph_id": A1})] * 500
    model_server.add(
        Scripted(200, dict(SSE_HEADERS), sse(tool_chunks(calls, piece=1000))),
        text_reply("Done."),
        text_reply("Done."),
        text_reply("Done."),
    )
    events = await collect(
        RunRequest(path, "translate", settings_for(model_server.base_url), chunk_chars=300, max_turns=2)
    )
    assert len([e for e in kinds(events, "tool_called") if e.chunk == 1]) == MAX_CALLS_PER_RESPONSE
    (error,) = [e for e in kinds(events, "error") if e.code == "TOO_MANY_CALLS"]
    assert "made 500 tool calls; the first 64 run, the other 436 were dropped" in error.message
    sent = model_server.requests[1].json["messages"]
    assistant = next(m for m in sent if m["role"] == "assistant")
    assert len(assistant["tool_calls"]) == 64 and sum(m["role"] == "tool" for m in sent) == 64
    assert "only the first 64 were run" in sent[-1]["content"] and sent[-1]["role"] == "user"


@pytest.mark.slow
async def test_arguments_over_the_tools_limit_are_refused_in_a_run(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    huge = {"paragraphs": [{"paragraph_id": A1, "translated_text": "x" * (MAX_ARGUMENT_CHARS + 10)}]}
    model_server.add(
        Scripted(200, dict(SSE_HEADERS), sse(tool_chunks([("add_translation_batch", huge)], piece=500_000))),
        text_reply("Done."),
        text_reply("Done."),
    )
    events = await collect(
        RunRequest(path, "translate", settings_for(model_server.base_url), chunk_chars=300, max_turns=2)
    )
    (result, *_) = kinds(events, "tool_result")
    assert result.error_code == "INVALID_ARGUMENTS" and "more than the limit of 2,000,000" in result.result["error"]
    assert not kinds(events, "batch_committed")


@pytest.mark.slow
async def test_the_trace_stores_each_message_once_and_the_inspector_rebuilds_the_history(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    model_server.add(
        tool_reply([("get_paragraph_info", {"paragraph_id": A1})]),
        tool_reply([("get_paragraph_info", {"paragraph_id": A3})]),
        tool_reply([("add_translation_batch", {"paragraphs": [{"paragraph_id": A1, "translated_text": "One"}]})]),
        text_reply("Done."),
        text_reply("Done."),
    )
    events = await collect(
        RunRequest(path, "translate", settings_for(model_server.base_url), chunk_chars=300, max_turns=5)
    )
    trace = list(read_trace(Path(events[-1].summary.trace)))
    requests = [e for e in trace if e["kind"] == "model_request" and e["chunk"] == 1]
    assert len(requests) >= 4
    assert sum(len(r["messages"]) for r in requests) == requests[-1]["message_count"]  # each message once
    assert [r["first_message"] for r in requests[1:]] == [r["message_count"] for r in requests[:-1]]
    steps = build_steps([decode_record(e) for e in trace])
    turns = [s for s in steps if s.kind == "turn" and s.chunk_event and s.chunk_event.chunk == 1]
    rebuilt = turns[len(requests) - 1].events[0].to_json()["messages"]
    assert json.loads(json.dumps(rebuilt)) == model_server.requests[len(requests) - 1].json["messages"]
