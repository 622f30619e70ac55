"""Engine events and client stream events as records: the JSON shape of every kind, immutability, equality.

The shapes are written out here on purpose: the trace, ``run --json`` and the TUI read these keys, in this order.
"""

from __future__ import annotations

import json

import pytest

from engine.client.events import Completed, ReasoningDelta, RetryScheduled, TextDelta, ToolCallProgress
from engine.client.sse import SSEEvent
from engine.events import EVENT_TYPES, ChunkStarted, ModelDelta, RunFinished

BASE = ["kind", "run_id", "chunk", "ts"]
SHAPES = {
    "run_started": [
        "chapter_path",
        "chapter_id",
        "task",
        "model",
        "base_url",
        "chunk_count",
        "paragraph_count",
        "prices",
        "apply",
        "nothing_to_do",
    ],
    "chunk_started": ["paragraph_ids", "first_paragraph_id", "last_paragraph_id", "chunk_count", "part"],
    "model_request": ["turn", "message_count", "tool_names", "messages", "first_message", "bounded"],
    "model_delta": ["turn", "channel", "text", "tool_name", "chars"],
    "model_response": [
        "turn",
        "content",
        "reasoning",
        "tool_calls",
        "finish_reason",
        "usage",
        "latency_ms",
        "error",
        "finish_reason_raw",
        "failure",
        "attempts",
        "expanded_tool_calls",
        "lifted_from_content",
    ],
    "tool_called": ["turn", "call_id", "name", "arguments"],
    "tool_result": ["turn", "call_id", "name", "success", "error_code", "result"],
    "batch_committed": ["paragraph_ids", "file", "unchanged", "kept_selection", "suggested", "protected"],
    "reminder": ["turn", "missing", "number"],
    "retry": ["attempt", "reason", "delay"],
    "error": ["message", "code", "fatal", "error"],
    "chunk_finished": [
        "status",
        "missing",
        "turns",
        "tool_calls",
        "tool_errors",
        "usage",
        "wall_ms",
        "end_code",
        "part",
        "error",
        "cost",
    ],
    "run_finished": ["status", "summary"],
}
DEFAULTS = {
    "part": None,
    "messages": (),
    "text": "",
    "tool_name": None,
    "chars": 0,
    "error": None,
    "finish_reason_raw": None,
    "failure": None,
    "attempts": 1,
    "expanded_tool_calls": (),
    "lifted_from_content": False,
    "unchanged": (),
    "kept_selection": (),
    "suggested": (),
    "protected": (),
    "apply": True,
    "code": None,
    "fatal": False,
    "end_code": None,
    "prices": None,
    "cost": None,
    "first_message": 0,
    "nothing_to_do": "",
}


@pytest.mark.parametrize("kind", sorted(SHAPES))
def test_every_kind_keeps_its_json_shape(kind: str) -> None:
    cls = EVENT_TYPES[kind]
    assert cls.kind == kind
    required = {name: f"<{name}>" for name in SHAPES[kind] if name not in DEFAULTS}
    event = cls(run_id="r1", ts=12.5, **required)
    data = event.to_json()
    assert list(data) == BASE + SHAPES[kind]
    assert data["kind"] == kind and data["run_id"] == "r1" and data["chunk"] is None and data["ts"] == 12.5
    for name in SHAPES[kind]:
        assert data[name] == DEFAULTS.get(name, f"<{name}>")
    json.dumps(data)


def test_events_are_frozen_keyword_only_records() -> None:
    event = ModelDelta(run_id="r", turn=1, channel="text", text="x")
    assert event == ModelDelta(run_id="r", turn=1, channel="text", text="x", ts=event.ts)
    assert event != ModelDelta(run_id="r", turn=1, channel="text", text="y", ts=event.ts)
    with pytest.raises(AttributeError):
        event.text = "y"  # type: ignore[misc]
    with pytest.raises(TypeError):
        ModelDelta("r", turn=1, channel="text")  # type: ignore[misc]
    with pytest.raises(TypeError):
        ModelDelta(run_id="r", turn=1, channel="text", kind="x")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        RunFinished(run_id="r", status="complete")  # type: ignore[call-arg]
    assert repr(event).startswith("ModelDelta(run_id='r', chunk=None, ts=")


def test_each_event_gets_its_own_time() -> None:
    first = ChunkStarted(run_id="r", paragraph_ids=("a",), first_paragraph_id="a", last_paragraph_id="a", chunk_count=1)
    assert first.ts > 1e9 and first.to_json()["paragraph_ids"] == ("a",)


def test_stream_events_compare_by_type_and_value() -> None:
    assert TextDelta("a") == TextDelta("a") and TextDelta("a") != ReasoningDelta("a")
    assert ToolCallProgress(0, "add", 5) == ToolCallProgress(index=0, name="add", chars=5)
    assert RetryScheduled(1, "overloaded", 0.5).delay_s == 0.5
    assert repr(TextDelta("a")) == "TextDelta(text='a')"
    with pytest.raises(AttributeError):
        TextDelta("a").text = "b"  # type: ignore[misc]
    assert Completed.__struct_fields__ == ("response",)


def test_sse_events_are_immutable_tuples_with_defaults() -> None:
    event = SSEEvent("message", "{}")
    assert (event.event, event.data, event.id, event.error) == ("message", "{}", None, None)
    with pytest.raises(AttributeError):
        event.data = "x"  # type: ignore[misc]
