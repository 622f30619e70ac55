"""The log pane fed synthetic engine events: buffered flushes, one replaced current-output line, errors."""

from __future__ import annotations

from textual.app import App, ComposeResult

from engine.events import (
    BatchCommitted,
    ChunkStarted,
    ModelDelta,
    ModelRequest,
    ModelResponse,
    Retry,
    ToolCalled,
    ToolResult,
)
from tests.tui.conftest import SIZE, screen_text, wait_for
from tui.app import THEMES_DIR
from tui.widgets.log_pane import LogPane

RUN = "run1"


class Host(App[None]):
    CSS_PATH = [THEMES_DIR / "proofdesk.tcss"]

    def compose(self) -> ComposeResult:
        yield LogPane(max_entries=50)


def deltas(text: str) -> list[ModelDelta]:
    return [ModelDelta(run_id=RUN, chunk=1, turn=1, channel="text", text=ch) for ch in text]


async def test_tokens_fill_one_replaced_line_and_flushes_are_batched() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(LogPane)
        pane.push(ChunkStarted(run_id=RUN, chunk=1, paragraph_ids=("a", "b"), first_paragraph_id="a",
                               last_paragraph_id="b", chunk_count=1))
        pane.push(ModelRequest(run_id=RUN, chunk=1, turn=1, message_count=2, tool_names=("x",)))
        text = "I will look at the paragraphs before the chunk first. " * 20
        flushes = pane.flushes
        for delta in deltas(text):
            pane.push(delta)
        assert pane.visible_entries == []  # nothing is formatted until the next flush
        await wait_for(pilot, lambda: pane.flushes > flushes, what="the next flush")
        assert pane.flushes - flushes == 1  # ~1000 events, one redraw
        assert [e.kind for e in pane.visible_entries] == ["chunk_started", "model_request"]  # no line per token
        assert pane.current_output == text
        await wait_for(pilot, lambda: "▸ model: " in screen_text(app) and "the chunk first." in screen_text(app),
                       what="the current line on screen")
        pane.push(ModelResponse(run_id=RUN, chunk=1, turn=1, content=text, reasoning="", tool_calls=(),
                                finish_reason="stop", usage=None, latency_ms=5.0))
        await wait_for(pilot, lambda: pane.current_output is None, what="the answer's flush")
        last = pane.visible_entries[-1]
        assert last.kind == "model_response" and last.text.startswith("model: I will look")
        assert last.copy == text  # copying the line gives the whole answer


async def test_tool_lines_errors_filter_and_copy() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(LogPane)
        pane.push(ToolCalled(run_id=RUN, chunk=1, turn=1, call_id="c1", name="get_next_paragraphs",
                             arguments={"paragraph_id": "e58ed763", "count": 3}))
        pane.push(ToolResult(run_id=RUN, chunk=1, turn=1, call_id="c1", name="get_next_paragraphs", success=False,
                             error_code="CHUNK_BOUNDARY",
                             result={"success": False, "error": "no more paragraphs in the current chunk",
                                     "error_code": "CHUNK_BOUNDARY"}))
        pane.push(Retry(run_id=RUN, chunk=1, attempt=1, reason="HTTP 429", delay=1.5))
        pane.push(BatchCommitted(run_id=RUN, chunk=1, paragraph_ids=("a", "b"), file="/x/ch01.json"))
        pane.add_notice("ch01.json is not valid on disk", error=True)
        await wait_for(pilot, lambda: len(pane.visible_entries) == 5, what="the flush")
        texts = [e.text for e in pane.visible_entries]
        assert texts[0] == "⚙ get_next_paragraphs(paragraph_id=e58ed763, count=3)"
        assert texts[1].startswith("  ✗ CHUNK_BOUNDARY get_next_paragraphs: no more paragraphs")
        assert texts[2] == "↻ retry 1 in 1.5 s: HTTP 429"
        assert texts[3] == "✔ committed 2 paragraph(s) to ch01.json"
        pane.errors_only = True
        await wait_for(pilot, lambda: len(pane.visible_entries) == 2, what="the errors-only view")
        assert [e.text for e in pane.visible_entries] == [texts[1], texts[4]]
        # copy the line under the cursor (OSC 52 through App.copy_to_clipboard)
        pane.focus()
        await pilot.press("up", "y")
        assert '"error_code": "CHUNK_BOUNDARY"' in app.clipboard
        pane.errors_only = False
        await wait_for(pilot, lambda: len(pane.visible_entries) == 5, what="every line again")


async def test_the_pane_keeps_only_the_last_entries() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(LogPane)
        for i in range(120):
            pane.add_notice(f"line {i}")
        await wait_for(pilot, lambda: pane.flushes > 0, what="the flush")
        entries = pane.visible_entries
        assert len(entries) == 50 and entries[0].text == "line 70" and entries[-1].text == "line 119"
        # the view follows the end
        await wait_for(pilot, lambda: "line 119" in screen_text(app), what="the last line on screen")
