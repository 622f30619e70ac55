"""An SVG snapshot of the log pane in colour at 80x24 (pytest-textual-snapshot): an error, successes, warnings,
an entry expanded in place under the cursor, and the paused indicator.

Like ``test_snapshots.py`` it records one Textual version (``snapshots_textual_version.txt``) and fails with one
message when another is installed; re-record with ``pytest tests/tui/test_snapshots_log.py --snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.pilot import Pilot

from engine.events import (
    BatchCommitted,
    ChunkStarted,
    EngineEvent,
    ModelRequest,
    ModelResponse,
    Reminder,
    Retry,
    RunStarted,
    ToolCalled,
    ToolResult,
)
from tests.tui.conftest import wait_for
from tests.tui.snapshot_guard import same_textual_version  # noqa: F401 (an autouse fixture)
from tests.tui.test_log_pane import TS, Host, tokyo_time  # noqa: F401 (a fixture)
from tui.widgets.log_pane import LogPane


def a_run() -> list[EngineEvent]:
    """A chunk with a boundary error, a rate-limit retry, a long answer, a commit and a reminder; fixed times."""
    run, ids = "r1", ("061915f3", "655d8700")
    answer = (
        "I read the paragraphs before the chunk first, then translated both. The second one is long: "
        "the servant waits for the rain to stop under the Rashomon gate, and nobody else is there "
        "but a cricket on a pillar.\nI kept the names as they are."
    )
    events: list[EngineEvent] = [
        RunStarted(
            run_id=run,
            chapter_path="/book/rashomon.json",
            chapter_id="rashomon",
            task="translate",
            model="test-model",
            base_url="http://127.0.0.1:1/v1",
            chunk_count=3,
            paragraph_count=7,
        ),
        ChunkStarted(
            run_id=run, chunk=2, paragraph_ids=ids, first_paragraph_id=ids[0], last_paragraph_id=ids[1], chunk_count=3
        ),
        ModelRequest(run_id=run, chunk=2, turn=1, message_count=2, tool_names=("get_previous_paragraphs",)),
        ToolCalled(
            run_id=run,
            chunk=2,
            turn=1,
            call_id="c1",
            name="get_previous_paragraphs",
            arguments={"paragraph_id": ids[0], "count": 3},
        ),
        ToolResult(
            run_id=run,
            chunk=2,
            turn=1,
            call_id="c1",
            name="get_previous_paragraphs",
            success=False,
            error_code="CHUNK_BOUNDARY",
            result={
                "success": False,
                "error_code": "CHUNK_BOUNDARY",
                "error": "the request goes beyond the current chunk (061915f3 … 655d8700)",
            },
        ),
        Retry(run_id=run, chunk=2, attempt=1, reason="HTTP 429 rate limited", delay=1.5),
        ModelResponse(
            run_id=run,
            chunk=2,
            turn=2,
            content=answer,
            reasoning="",
            tool_calls=(),
            finish_reason="tool_calls",
            usage={"total_tokens": 812},
            latency_ms=840.0,
        ),
        ToolCalled(
            run_id=run,
            chunk=2,
            turn=2,
            call_id="c2",
            name="add_translation_batch",
            arguments={"paragraphs": [{"paragraph_id": i, "translated_text": "…"} for i in ids]},
        ),
        ToolResult(
            run_id=run,
            chunk=2,
            turn=2,
            call_id="c2",
            name="add_translation_batch",
            success=True,
            error_code=None,
            result={"success": True, "accepted": [ids[0]], "unchanged": [ids[1]]},
        ),
        BatchCommitted(run_id=run, chunk=2, paragraph_ids=(ids[0],), file="/book/rashomon.json", unchanged=(ids[1],)),
        Reminder(run_id=run, chunk=2, turn=2, missing=("e58ed763",), number=1),
    ]
    return [
        event.__class__(**{**{f: getattr(event, f) for f in event.__struct_fields__}, "ts": TS + i})
        for i, event in enumerate(events)
    ]


@pytest.mark.usefixtures("tokyo_time")  # the times shown are Tokyo's clock, wherever the test runs
def test_log_pane_in_colour_with_an_expanded_entry(snap_compare: Callable[..., bool]) -> None:
    async def before(pilot: Pilot) -> None:
        pane = pilot.app.query_one(LogPane)
        events = a_run()
        for event in events:
            pane.push(event)
        await wait_for(pilot, lambda: len(pane.visible_entries) == len(events), what="every line")
        pane.focus()
        await pilot.press("up", "up", "up", "up", "enter")  # the model's answer, whole, under the cursor
        await wait_for(
            pilot, lambda: pane.expanded_entry is not None and not pane.following, what="the expanded, paused pane"
        )
        await pilot.pause()

    assert snap_compare(Host(tall=True), run_before=before, terminal_size=(80, 24))
