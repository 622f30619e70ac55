"""The trace inspector on damaged traces: every single-field mutation of a real trace, and random lines.

A trace is a file a person can edit, truncate or corrupt. The inspector must show what it can and never fail:
each known field of each event of a real run's trace is replaced by a value of every wrong type (or deleted),
and the steps are built, listed and described. ``proofdesk trace`` refuses unreadable files in one line, exit 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.run_request import RunRequest
from engine.trace import TraceReadError, decode_record, read_trace
from tests.engine.loop_support import IDS, collect, settings_for, write_chapter
from tests.engine.test_cli_run import run_cli
from tests.support.model_server import ModelServer, text_reply, tool_reply
from tui.app import ProofdeskApp
from tui.screens.trace import TraceScreen
from tui.widgets.trace_steps import build_steps

WRONG: list[Any] = [None, 0, -1, 2.5, True, "x", "", [], {}, [1, "a", None], {"a": [1]}, [[[[[]]]]], "DELETE"]


async def _real_trace(tmp_path: Path, server: ModelServer) -> list[dict[str, Any]]:
    """A scripted run with a refused call, a commit, a reminder and a text answer."""
    path = write_chapter(tmp_path)
    server.add(
        tool_reply([("get_paragraph_info", {"paragraph_id": "nope"})]),
        tool_reply([("add_translation_batch", {"paragraphs": [{"paragraph_id": IDS[0], "translated_text": "One"}]})]),
        text_reply("Done."),
        text_reply("Done."),
        text_reply("Done."),
    )
    events = await collect(RunRequest(path, "translate", settings_for(server.base_url), chunk_chars=300, max_turns=4))
    return list(read_trace(Path(events[-1].summary.trace)))


def _mutations(events: list[dict[str, Any]]) -> list[tuple[int, str, Any]]:
    found = []
    for index, event in enumerate(events):
        for key, value in event.items():
            for wrong in WRONG:
                if wrong != value:
                    found.append((index, key, wrong))
            if isinstance(value, list) and value and isinstance(value[0], dict):  # one level in: messages, calls
                for inner in value[0]:
                    found += [(index, f"{key}.0.{inner}", wrong) for wrong in WRONG[:6]]
    return found


def _mutate(events: list[dict[str, Any]], index: int, key: str, wrong: Any) -> list[dict[str, Any]]:
    copy = json.loads(json.dumps(events))
    target = copy[index]
    *path, last = key.split(".")
    for part in path:
        target = target[int(part)] if part.isdigit() else target[part]
    if wrong == "DELETE":
        target.pop(last, None)
    else:
        target[last] = wrong
    return copy


@pytest.mark.slow  # thousands of mutated traces through the inspector
async def test_every_single_field_mutation_of_a_real_trace_is_shown(tmp_path: Path, model_server: ModelServer) -> None:
    events = await _real_trace(tmp_path, model_server)
    kinds = {e["kind"] for e in events}
    assert {
        "model_request",
        "model_response",
        "tool_called",
        "tool_result",
        "batch_committed",
        "chunk_finished",
        "run_finished",
    } <= kinds
    trace = tmp_path / "t.jsonl"
    trace.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    app = ProofdeskApp(None, trace=trace)
    mutations = _mutations(events)
    assert len(mutations) > 1000
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, TraceScreen)
        await pilot.pause()
        for index, key, wrong in mutations:
            screen.steps = build_steps([decode_record(e) for e in _mutate(events, index, key, wrong)])
            screen._apply_filter()  # the step list, the status line and the detail of the first step
            for step in screen.steps:
                assert screen.describe(step).plain, (index, key, wrong)


@pytest.mark.slow  # hypothesis
@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=5),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(
                    st.sampled_from(
                        [
                            "kind",
                            "turn",
                            "tool_calls",
                            "messages",
                            "usage",
                            "summary",
                            "paragraph_ids",
                            "name",
                            "arguments",
                            "result",
                            "latency_ms",
                            "content",
                            "function",
                            "role",
                            "chunk",
                            "error_code",
                        ]
                    ),
                    inner,
                    max_size=5,
                )
            ),
            max_leaves=25,
        ),
        max_size=12,
    ),
    st.sampled_from(
        [
            "model_request",
            "model_response",
            "tool_called",
            "tool_result",
            "chunk_started",
            "batch_committed",
            "chunk_finished",
            "run_finished",
            "error",
            "retry",
            "reminder",
        ]
    ),
)
def test_random_events_never_break_the_steps(tmp_path: Path, values: list[Any], kind: str) -> None:
    events = [v | {"kind": kind} if isinstance(v, dict) else {"kind": kind, "junk": v} for v in values]
    trace = tmp_path / "random.jsonl"
    trace.write_text("".join(json.dumps(e) + "\n" for e in events))
    read = list(read_trace(trace))
    for step in build_steps([decode_record(e) for e in read]):
        assert step.title is not None


@pytest.mark.slow  # the installed binary
@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b'{"kind": "x", "a": ' + b"[" * 5000 + b"]" * 5000 + b"}\n", "nested more than 64 levels"),
        (b'{"kind": "run_started"}\n\xff\xfe garbage\n', ":2: not UTF-8 text"),
        (b'{"kind": "run_started"}\n{"kind": broken}\n', ":2:10: invalid JSON line"),
        (b"[1, 2]\n", ':1: expected an event object with a "kind"'),
    ],
)
def test_proofdesk_trace_refuses_a_broken_file_in_one_line(tmp_path: Path, content: bytes, said: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    done = run_cli("trace", str(path), cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1
    with pytest.raises(TraceReadError):
        list(read_trace(path))
