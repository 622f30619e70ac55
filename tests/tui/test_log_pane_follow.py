"""The log pane following new lines: paused by the person (with an indicator saying so), followed again by a key
or a new run; the "waiting for the model" line never outlives its run."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from engine.events import ModelDelta, ModelRequest, RunFinished, RunStarted
from engine.summaries import RunSummary
from store.model import Chapter, Paragraph
from tests.support.model_server import ModelServer, Scripted, sse, tool_chunks
from tests.tui.chapters import write
from tests.tui.conftest import make_app, screen_text, wait_for
from tests.tui.test_log_pane import RUN, SIZES, Host, pane_text
from tui.screens.chapter import ChapterScreen
from tui.widgets.log_pane import LogPane

FOLLOWING = "Log · following"
PAUSED = "Log · paused — End to follow"
WAITING = "waiting for the model…"


def run_started(run: str = RUN) -> RunStarted:
    return RunStarted(
        run_id=run,
        chapter_path="/x/ch01.json",
        chapter_id="ch01",
        task="translate",
        model="m",
        base_url="http://127.0.0.1:1/v1",
        chunk_count=1,
        paragraph_count=2,
    )


@pytest.mark.parametrize("key", ["end", "F"])
@pytest.mark.parametrize("size", SIZES)
async def test_moving_the_cursor_pauses_visibly_and_the_follow_key_resumes(size: tuple[int, int], key: str) -> None:
    app = Host()
    async with app.run_test(size=size) as pilot:
        pane = app.query_one(LogPane)
        for i in range(30):
            pane.add_notice(f"line {i}")
        await wait_for(pilot, lambda: len(pane.visible_entries) == 30, what="30 lines")
        await wait_for(pilot, lambda: FOLLOWING in screen_text(app), what="the follow indicator")
        pane.focus()
        await pilot.press("up", "up")
        assert not pane.following
        assert pane.cursor_entry is not None and pane.cursor_entry.text == "line 27"
        await wait_for(pilot, lambda: PAUSED in screen_text(app), what="the paused indicator")

        for i in range(30, 35):  # new lines do not move the view, and the indicator counts them
            pane.add_notice(f"line {i}")
        await wait_for(pilot, lambda: "paused — End to follow · 5 new" in screen_text(app), what="5 new lines")
        assert pane.cursor_entry.text == "line 27"
        assert "line 34" not in screen_text(app) and any("line 27" in row for row in pane_text(app))

        await pilot.press(key)
        assert pane.following
        await wait_for(pilot, lambda: FOLLOWING in screen_text(app), what="following again")
        assert pane_text(app)[-1].startswith("line 34")
        assert pane.cursor_entry is not None and pane.cursor_entry.text == "line 34"
        pane.add_notice("line 35")
        await wait_for(pilot, lambda: pane_text(app)[-1].startswith("line 35"), what="the next line in view")


async def test_scrolling_back_with_the_mouse_pauses() -> None:
    app = Host()
    async with app.run_test(size=SIZES[0]) as pilot:
        pane = app.query_one(LogPane)
        for i in range(30):
            pane.add_notice(f"line {i}")
        await wait_for(pilot, lambda: len(pane.visible_entries) == 30, what="30 lines")
        await wait_for(pilot, lambda: pane.allow_vertical_scroll, what="the scrollbar")
        at_end = pane.scroll_y
        pane.post_message(events.MouseScrollUp(pane, 1, 1, 0, -1, 0, False, False, False))
        await wait_for(pilot, lambda: PAUSED in screen_text(app), what="the paused indicator")
        scrolled = pane.scroll_y
        assert scrolled < at_end
        pane.add_notice("line 30")
        await wait_for(pilot, lambda: "· 1 new" in screen_text(app), what="the new line counted")
        assert pane.scroll_y == scrolled  # not pulled back to the end


async def test_a_new_run_follows_again() -> None:
    app = Host()
    async with app.run_test(size=SIZES[0]) as pilot:
        pane = app.query_one(LogPane)
        for i in range(20):
            pane.add_notice(f"line {i}")
        await wait_for(pilot, lambda: len(pane.visible_entries) == 20, what="20 lines")
        pane.focus()
        await pilot.press("home")
        await wait_for(pilot, lambda: PAUSED in screen_text(app), what="the paused indicator")
        pane.push(run_started("run2"))
        await wait_for(pilot, lambda: pane.following and FOLLOWING in screen_text(app), what="following again")
        assert pane_text(app)[-1].startswith("▶ translate ch01")


async def test_expanding_pauses_and_a_paused_line_stays_when_old_lines_leave() -> None:
    app = Host(max_entries=10)
    async with app.run_test(size=SIZES[0]) as pilot:
        pane = app.query_one(LogPane)
        for i in range(10):
            pane.add_notice(f"line {i}")
        await wait_for(pilot, lambda: len(pane.visible_entries) == 10, what="10 lines")
        pane.focus()
        await pilot.press("enter")  # the last line, read whole: new lines must not take it away
        await wait_for(pilot, lambda: PAUSED in screen_text(app), what="the paused indicator")
        for i in range(10, 14):  # the first four lines leave the pane
            pane.add_notice(f"line {i}")
        await wait_for(pilot, lambda: pane.visible_entries[0].text == "line 4", what="old lines to leave")
        assert pane.cursor_entry is not None and pane.cursor_entry.text == "line 9"
        assert pane.expanded_entry is pane.cursor_entry
        assert any(row.endswith("  line 9") for row in (r.rstrip() for r in pane_text(app)))


@pytest.mark.parametrize("status", ["complete", "cancelled", "failed", "incomplete"])
async def test_the_waiting_line_goes_when_the_run_finishes(status: str) -> None:
    app = Host()
    async with app.run_test(size=SIZES[0]) as pilot:
        pane = app.query_one(LogPane)
        pane.push(run_started())
        pane.push(ModelRequest(run_id=RUN, chunk=1, turn=1, message_count=2, tool_names=("x",)))
        await wait_for(pilot, lambda: WAITING in screen_text(app), what="the waiting line")
        pane.push(RunFinished(run_id=RUN, status=status, summary=RunSummary()))
        # a delta that was still on its way must not bring the line back
        pane.push(ModelDelta(run_id=RUN, chunk=1, turn=1, channel="tool_arguments", tool_name="x", chars=3))
        await wait_for(pilot, lambda: f"■ run {status}" in screen_text(app), what="the run's end")
        assert pane.current_output is None
        assert WAITING not in screen_text(app) and "writing x" not in screen_text(app)


async def test_the_waiting_line_goes_when_the_run_stops_without_finishing() -> None:
    app = Host()
    async with app.run_test(size=SIZES[0]) as pilot:
        pane = app.query_one(LogPane)
        pane.push(ModelRequest(run_id=RUN, chunk=1, turn=1, message_count=2, tool_names=("x",)))
        await wait_for(pilot, lambda: WAITING in screen_text(app), what="the waiting line")
        pane.run_ended()  # its worker was cancelled or failed: no run_finished will come
        pane.add_notice("run cancelled; committed batches are kept")
        await wait_for(pilot, lambda: "run cancelled" in screen_text(app), what="the notice")
        assert pane.current_output is None and WAITING not in screen_text(app)


@pytest.fixture
def chapter_path(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    chapter = Chapter(
        id="small",
        title="Small",
        source_language="ja",
        target_language="en",
        paragraphs=(Paragraph(id="a0000001", text="一つ目の文。"), Paragraph(id="a0000002", text="二。")),
    )
    return write(folder / "small.json", chapter)


async def test_a_run_in_the_chapter_view_follows_and_its_cancel_leaves_no_waiting_line(
    chapter_path: Path, model_server: ModelServer
) -> None:
    # A stream that starts and then hangs: the run waits on the model until it is cancelled.
    body = sse(tool_chunks([("add_translation_batch", {"paragraphs": []})]))
    model_server.add(Scripted(200, {"content-type": "text/event-stream"}, body, split=20, hang_after=0))
    app = make_app(chapter_path, base_url=model_server.base_url, model="test-model")
    async with app.run_test(size=SIZES[0]) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        pane = screen.query_one(LogPane)
        for i in range(8):
            pane.add_notice(f"earlier line {i}")
        await wait_for(pilot, lambda: len(pane.visible_entries) == 8, what="earlier lines")
        pane.focus()
        await pilot.press("home")
        await wait_for(pilot, lambda: PAUSED in screen_text(app), what="the paused indicator")
        await pilot.press("t")
        await wait_for(pilot, lambda: WAITING in screen_text(app), what="the run's request on screen")
        assert pane.following and FOLLOWING in screen_text(app)
        await pilot.press("x")
        await wait_for(pilot, lambda: "■ run cancelled" in screen_text(app), what="the run's end")
        assert pane.current_output is None and WAITING not in screen_text(app)
