"""A trace reads back as the very events a run emits; a line that holds no known event is a typed problem."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.events import (
    BatchCommitted,
    ChunkFinished,
    ChunkStarted,
    EngineEventT,
    ErrorEvent,
    ModelDelta,
    ModelRequest,
    ModelResponse,
    Reminder,
    Retry,
    RunFinished,
    RunStarted,
    ToolCalled,
    ToolResult,
    decode_event,
)
from engine.summaries import ChunkSummary, RunSummary
from engine.trace import TraceProblem, TraceReadError, TraceWriter, read_events

R = "r1"
SUMMARY = RunSummary(
    chapter="ch01.json",
    task="translate",
    model="m",
    status="incomplete",
    chunks=[ChunkSummary(index=1, status="incomplete", missing=["b"], end_code="MAX_TURNS")],
    paragraphs_total=2,
    paragraphs_done=1,
    usage={"total_tokens": 10},
    cost={"currency": "USD", "input": 0.1, "cached_input": 0.0, "output": 0.2, "total": 0.3},
    advice=["lower --chunk-chars"],
)
EVENTS: list[EngineEventT] = [
    RunStarted(
        run_id=R,
        chapter_path="ch01.json",
        chapter_id="ch01",
        task="translate",
        model="m",
        base_url="http://x",
        chunk_count=1,
        paragraph_count=2,
        prices={"input": 1.0, "output": 2.0, "cached_input": None, "currency": "USD"},
    ),
    ChunkStarted(
        run_id=R, chunk=1, paragraph_ids=("a", "b"), first_paragraph_id="a", last_paragraph_id="b", chunk_count=1
    ),
    ModelRequest(run_id=R, chunk=1, turn=1, message_count=1, tool_names=("t",), messages=({"role": "user"},)),
    ModelResponse(
        run_id=R,
        chunk=1,
        turn=1,
        content="",
        reasoning="",
        tool_calls=({"id": "c", "name": "t", "arguments": {"x": 1}},),
        finish_reason="tool_calls",
        usage={"total_tokens": 10},
        latency_ms=5.0,
    ),
    ToolCalled(run_id=R, chunk=1, turn=1, call_id="c", name="t", arguments={"x": [1, "二"]}),
    ToolResult(run_id=R, chunk=1, turn=1, call_id="c", name="t", success=True, error_code=None, result={"ok": 1}),
    BatchCommitted(run_id=R, chunk=1, paragraph_ids=("a",), file="ch01.json", unchanged=("b",)),
    Reminder(run_id=R, chunk=1, turn=2, missing=("b",), number=1),
    Retry(run_id=R, chunk=1, attempt=1, reason="503", delay=0.5),
    ErrorEvent(run_id=R, chunk=1, message="no", code="MODEL_ERROR"),
    ChunkFinished(
        run_id=R,
        chunk=1,
        status="incomplete",
        missing=("b",),
        turns=2,
        tool_calls=1,
        tool_errors={},
        usage={"total_tokens": 10},
        wall_ms=1.0,
        end_code="MAX_TURNS",
    ),
    RunFinished(run_id=R, status="incomplete", summary=SUMMARY),
]


def test_a_trace_reads_back_as_the_events_written(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with TraceWriter(path) as trace:
        for event in EVENTS:
            trace.write(event)
    assert list(read_events(path)) == EVENTS


@pytest.mark.parametrize(
    "event", [*EVENTS, ModelDelta(run_id=R, turn=1, channel="text", text="x")], ids=lambda event: event.kind
)
def test_every_kind_decodes_from_its_json_line(event: EngineEventT) -> None:
    line = json.dumps(event.to_json(), ensure_ascii=False)
    assert decode_event(line) == event


def test_the_summary_keeps_its_json_keys() -> None:
    data = SUMMARY.to_json()
    assert list(data) == [
        "chapter",
        "task",
        "model",
        "status",
        "error",
        "chunks",
        "chunks_complete",
        "paragraphs_total",
        "paragraphs_done",
        "tool_errors",
        "usage",
        "cost",
        "end_codes",
        "advice",
        "wall_ms",
        "trace",
        "model_unusable",
        "paragraphs_submitted",
        "paragraphs_changed",
    ]
    assert list(data["chunks"][0]) == [
        "index",
        "part",
        "status",
        "missing",
        "turns",
        "tool_calls",
        "tool_errors",
        "usage",
        "cost",
        "error",
        "end_code",
        "failure",
        "submitted",
        "changed",
    ]
    reverted = RunSummary(status="incomplete", reverted_on_disk=["a"]).to_json()
    assert list(reverted)[-1] == "reverted_on_disk" and reverted["reverted_on_disk"] == ["a"]


def test_a_line_without_a_known_event_is_a_problem_naming_it(tmp_path: Path) -> None:
    good = json.dumps(EVENTS[-3].to_json())
    lines = [
        good,
        '{"kind": "telemetry", "run_id": "r1", "ts": 1.0}',
        '{"kind": "retry", "run_id": "r1", "ts": 1.0, "attempt": 1, "delay": 0.5}',
        '{"kind": "retry", "run_id": "r1", "ts": 1.0, "attempt": "one", "reason": "503", "delay": 0.5}',
        '{"kind": 7, "run_id": "r1"}',
        good,
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records = list(read_events(path))
    assert records[0] == records[-1] == EVENTS[-3]
    problems = [p for p in records[1:-1] if isinstance(p, TraceProblem)]
    assert len(problems) == 4
    assert [(p.line_no, p.kind) for p in problems] == [(2, "telemetry"), (3, "retry"), (4, "retry"), (5, None)]
    reasons = [p.reason for p in problems]
    assert "'telemetry'" in reasons[0] and "reason" in reasons[1] and "$.attempt" in reasons[2]
    assert problems[0].text == lines[1]


def test_a_file_that_is_no_trace_is_still_refused_whole(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"kind": "retry"}\n{"kind": broken}\n', encoding="utf-8")
    with pytest.raises(TraceReadError, match=":2:10: invalid JSON line"):
        list(read_events(path))


def test_a_lone_surrogate_written_as_its_escape_reads_back_the_same(tmp_path: Path) -> None:
    event = ErrorEvent(run_id=R, message="bad \ud800 text")
    path = tmp_path / "t.jsonl"
    with TraceWriter(path) as trace:
        trace.write(event)
    assert list(read_events(path)) == [event]
