"""Traces written by earlier versions of proofdesk still open in the trace inspector, step by step."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from engine.trace import TraceProblem, read_events
from tests.tui.conftest import wait_for
from tui.app import ProofdeskApp
from tui.screens.trace import TraceScreen
from tui.widgets.trace_steps import build_steps

OLD_TRACE = Path(__file__).resolve().parents[1] / "data" / "trace_first_version.jsonl"


def test_a_first_version_trace_reads_as_events_but_for_the_unknown_kind() -> None:
    records = list(read_events(OLD_TRACE))
    problems = [r for r in records if isinstance(r, TraceProblem)]
    assert len(records) == 15 and [(p.line_no, p.kind) for p in problems] == [(12, "progress_note")]
    steps = build_steps(records)
    shown = [(s.kind, s.title) for s in steps]
    assert shown[:8] + shown[9:] == [
        ("run", "run translate · qwen2.5-7b · 1 chunk"),
        ("chunk", "chunk 1/1 · 2 paragraphs"),
        ("turn", "turn 1 · 1 call: add_translation_batch"),
        ("tool", "✓ add_translation_batch(1 paragraph: e58ed763)"),
        ("commit", "committed 1 paragraph"),
        ("turn", "turn 2 · text answer"),
        ("reminder", "reminder 1: 1 missing"),
        ("retry", "retry 1: HTTP 503"),
        ("error", "✗ MODEL_ERROR: the model stopped answering"),
        ("chunk_end", "chunk 1 incomplete · 1.9k tok"),
        ("run_end", "run incomplete · 1.9k tok"),
    ]
    assert shown[8][0] == "problem" and steps[8].is_error
    assert shown[8][1].startswith("line 12: progress_note not read: Invalid value 'progress_note'")
    # the whole history the old trace recorded with each request is what the turn shows
    assert len(steps[5].events[0].to_json()["messages"]) == 4


async def test_the_inspector_opens_a_first_version_trace(tmp_path: Path) -> None:
    trace = tmp_path / "20261122T090000.000000Z-translate.jsonl"
    shutil.copy(OLD_TRACE, trace)
    app = ProofdeskApp(None, trace=trace)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, TraceScreen)
        await wait_for(pilot, lambda: bool(screen.steps), what="the trace")
        assert screen.problem is None and len(screen.steps) == 12
        texts = [screen.describe(step).plain for step in screen.steps]
        assert "Messages sent (4)" in texts[5] and "Translate e58ed763, a1b2c3d4." in texts[5]
        assert "finish stop · 1,002 tokens: 1,000 in, 2 out · 400 ms" in texts[5]
        assert '"kind": "run_finished"' in texts[-1] and '"paragraphs_done": 1' in texts[-1]
        assert "progress_note" in texts[8]
        await pilot.press("y")  # the step under the cursor, as the JSON the trace holds
        assert json.loads(app.clipboard)[0]["kind"] == "run_started"
