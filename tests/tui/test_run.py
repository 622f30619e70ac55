"""Runs from the chapter view against the real engine and the scripted model server on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.loader import load_chapter
from tests.support.model_server import ModelServer, Scripted, sse, tool_chunks
from tests.tui.chapters import write
from tests.tui.conftest import SIZE, make_app, screen_text, wait_for
from tui.screens.chapter import ChapterScreen
from tui.screens.trace import TraceScreen
from tui.widgets.log_pane import LogPane
from tui.widgets.paragraph_table import ParagraphTable


def lines(pane: LogPane) -> list[str]:
    return [e.text for e in pane.visible_entries]


@pytest.mark.slow  # a whole run, then the log filter and the trace inspector
async def test_translate_run_probes_the_boundary_then_commits(small_path: Path, model_server: ModelServer) -> None:
    # Turn 1: reach before the chunk's first paragraph -> CHUNK_BOUNDARY. Turn 2: submit all three.
    model_server.add_tools([("get_previous_paragraphs", {"paragraph_id": "a0000001", "count": 2})])
    model_server.add_tools(
        [
            (
                "add_translation_batch",
                {
                    "paragraphs": [
                        {
                            "paragraph_id": "a0000001",
                            "translated_text": "The first sentence.",
                            "original_text_prefix": "一つ目",
                        },
                        {"paragraph_id": "a0000003", "translated_text": "The second sentence."},
                        {"paragraph_id": "a0000004", "translated_text": "The third sentence."},
                    ]
                },
            )
        ]
    )
    app = make_app(small_path, base_url=model_server.base_url, model="test-model")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        pane = screen.query_one(LogPane)
        await pilot.press("t")  # starts at once: no confirmation dialog
        await wait_for(pilot, lambda: any(t.startswith("■ run") for t in lines(pane)), what="the end of the run")
        log = lines(pane)
        assert any(t.startswith("⚙ get_previous_paragraphs(paragraph_id=a0000001, count=2)") for t in log)
        boundary = [e for e in pane.visible_entries if "CHUNK_BOUNDARY" in e.text]
        assert boundary and boundary[0].is_error  # drawn in the error colour
        assert any("⚙ add_translation_batch(3 paragraphs: a0000001, a0000003, a0000004)" in t for t in log)
        assert any(t.startswith("✔ committed 3 paragraphs") for t in log)
        assert "■ run complete" in log
        await wait_for(pilot, lambda: "The first sentence." in screen_text(app), what="the rows to update")
        table = screen.query_one(ParagraphTable)
        assert table.chapter is not None
        assert [table.status_of(p) for p in table.chapter.paragraphs] == ["run", "empty", "run", "run"]

        # the file on disk has the texts, as translation versions
        on_disk = load_chapter(small_path)
        assert [p.selected_text for p in on_disk.paragraphs] == [
            "The first sentence.",
            None,
            "The second sentence.",
            "The third sentence.",
        ]
        assert all(p.selected.origin == "translation" for p in on_disk.paragraphs if p.selected)

        # f filters the log to errors
        await pilot.press("f")
        assert pane.visible_entries and all(e.is_error for e in pane.visible_entries)
        await pilot.press("f")

        # i opens the trace of this run; n jumps to the error step
        await pilot.press("i")
        assert isinstance(app.screen, TraceScreen)
        trace = app.screen
        await wait_for(pilot, lambda: bool(trace.steps), what="the trace to load")
        await pilot.press("n")
        step = trace.current
        assert step is not None and step.error_code == "CHUNK_BOUNDARY" and step.tool == "get_previous_paragraphs"
        detail = trace.describe(step).plain
        assert "first a0000001 · last a0000004" in detail  # the chunk's boundaries
        assert '"error_code": "CHUNK_BOUNDARY"' in detail
        # f filters the steps by tool name or error code
        await pilot.press("f", *"add_translation", "enter")
        assert [s.tool for s in trace.shown] == ["add_translation_batch"]
        await pilot.press("f", "ctrl+u", "enter")
        assert len(trace.shown) == len(trace.steps)
        await pilot.press("b")
        assert app.screen is screen


async def test_cancel_stops_the_run_and_writes_nothing(small_path: Path, model_server: ModelServer) -> None:
    before = small_path.read_bytes()
    # A stream that starts and then hangs: the run waits on the model until it is cancelled.
    body = sse(tool_chunks([("add_translation_batch", {"paragraphs": []})]))
    model_server.add(Scripted(200, {"content-type": "text/event-stream"}, body, split=20, hang_after=40))
    app = make_app(small_path, base_url=model_server.base_url, model="test-model")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        await pilot.press("t")
        await wait_for(pilot, lambda: bool(model_server.requests), what="the request")
        assert screen.run_in_progress
        await pilot.press("b")  # leaving the chapter keeps its view, its run and its log
        assert app.screen is not screen and screen.run_in_progress
        await pilot.press("enter")  # the chapter list cursor is on this chapter: the same view again
        assert app.screen is screen and screen.run_in_progress
        await pilot.press("x")
        # the stream hangs until the server stops: only a cancelled run ends (how fast is not asserted here)
        await wait_for(pilot, lambda: not screen.run_in_progress, what="the run to stop")
        pane = screen.query_one(LogPane)
        # the run itself reports its end (run_finished, cancelled), as it does to every consumer
        await wait_for(pilot, lambda: any("■ run cancelled" in t for t in lines(pane)), what="the run's end")
        assert screen.run_label.startswith("last run: cancelled")
    assert small_path.read_bytes() == before


async def test_chunk_key_runs_only_the_chunk_under_the_cursor(
    small_path: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    config_file = Path(tmp_path / "_home" / "config" / "proofdesk" / "config.toml")
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text("[run]\nchunk_chars = 200\n", encoding="utf-8")
    # 200 chars per chunk: make the paragraphs long enough for one chunk each.
    chapter = load_chapter(small_path)
    long = chapter.replace(paragraphs=tuple(p.replace(text=p.text * 20) if p.text else p for p in chapter.paragraphs))
    write(small_path, long)
    model_server.add_tools(
        [
            (
                "add_translation_batch",
                {"paragraphs": [{"paragraph_id": "a0000003", "translated_text": "Only the second."}]},
            )
        ]
    )
    app = make_app(small_path, base_url=model_server.base_url, model="test-model")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        assert screen.table.model.chunks and len(screen.table.model.chunks) == 3
        await pilot.press("g", "3", "enter", "T")
        pane = screen.query_one(LogPane)
        await wait_for(pilot, lambda: any(t.startswith("■ run") for t in lines(pane)), what="the end of the run")
        assert "■ run complete" in lines(pane)
    sent = model_server.requests[0].json["messages"][1]["content"]
    assert "a0000003" in sent and "a0000001" not in sent and "a0000004" not in sent
    assert [p.selected_text for p in load_chapter(small_path).paragraphs] == [None, None, "Only the second.", None]
