"""Events serialise to JSON; traces are JSONL files that never contain secrets."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.events import EVENT_TYPES, ErrorEvent, ModelDelta, ToolCalled, ToolResult
from engine.trace import TraceReadError, TraceWriter, default_trace_path, read_trace


def test_every_design_event_kind_exists() -> None:
    assert set(EVENT_TYPES) == {
        "run_started",
        "chunk_started",
        "model_request",
        "model_delta",
        "model_response",
        "text_submission",
        "tool_called",
        "tool_result",
        "batch_committed",
        "reminder",
        "retry",
        "error",
        "chunk_finished",
        "run_finished",
        "session_started",  # an MCP session (design section 18)
        "session_finished",
    }


def test_trace_round_trip_skips_deltas_and_scrubs_secrets(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with TraceWriter(path, secrets=["sk-canary-xyz"]) as trace:
        trace.write(
            ToolCalled(
                run_id="r1",
                chunk=1,
                turn=1,
                call_id="c1",
                name="get_next_paragraphs",
                arguments={"paragraph_id": "ab12cd34", "count": 2},
            )
        )
        trace.write(ModelDelta(run_id="r1", chunk=1, turn=1, channel="text", text="hello"))
        trace.write(
            ToolResult(
                run_id="r1",
                chunk=1,
                turn=1,
                call_id="c1",
                name="x",
                success=False,
                error_code="CHUNK_BOUNDARY",
                result={"success": False},
            )
        )
        trace.write(ErrorEvent(run_id="r1", message="provider said: bad key sk-canary-xyz"))
    text = path.read_text(encoding="utf-8")
    assert "sk-canary-xyz" not in text
    events = list(read_trace(path))
    assert [e["kind"] for e in events] == ["tool_called", "tool_result", "error"]
    assert events[0]["arguments"] == {"paragraph_id": "ab12cd34", "count": 2}
    assert events[1]["error_code"] == "CHUNK_BOUNDARY" and events[0]["chunk"] == 1
    json.dumps(events)


def test_trace_path_never_escapes_the_traces_folder(tmp_path: Path) -> None:
    when = datetime(2026, 11, 22, 10, 0, 0, tzinfo=UTC)
    path = default_trace_path(tmp_path, "../../etc/passwd", "translate", when)
    assert path.parent.parent == tmp_path and ".." not in path.parts
    assert path.name == "20261122T100000.000000Z-translate.jsonl"


def test_bad_trace_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"kind": "error"}\n{oops}\n', encoding="utf-8")
    with pytest.raises(TraceReadError, match=r"t.jsonl:2:2: invalid JSON line"):
        list(read_trace(path))
    path.write_text('{"kind": "error"}\n{"kind": "err', encoding="utf-8")  # still being written
    assert len(list(read_trace(path))) == 1
