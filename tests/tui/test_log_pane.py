"""The log pane fed synthetic engine events: buffered flushes, one replaced current-output line, errors, the
level colours as drawn, honest wording, and entries expanded in place."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from rich.style import Style
from textual.app import App, ComposeResult
from textual.color import Color
from textual.pilot import Pilot
from textual.strip import Strip

from engine.events import (
    BatchCommitted,
    ChunkFinished,
    ChunkStarted,
    ModelDelta,
    ModelRequest,
    ModelResponse,
    Reminder,
    Retry,
    RunStarted,
    ToolCalled,
    ToolResult,
)
from engine.trace import decode_record
from tests.tui.conftest import SIZE, screen_text, wait_for
from tui.app import THEMES_DIR
from tui.theme import PROOFDESK_THEME
from tui.widgets.log_pane import LogPane
from tui.widgets.trace_steps import build_steps

RUN = "run1"
SIZES = [(80, 24), (120, 40)]
TS = 1_763_900_000.25  # a fixed moment, so the local clock time it shows is known


class Host(App[None]):
    CSS_PATH = [THEMES_DIR / "proofdesk.tcss"]

    def __init__(self, *, max_entries: int = 50, tall: bool = False) -> None:
        super().__init__()
        self.max_entries = max_entries
        self.tall = tall

    def compose(self) -> ComposeResult:
        yield LogPane(max_entries=self.max_entries)

    def on_mount(self) -> None:
        self.register_theme(PROOFDESK_THEME)
        self.theme = "proofdesk"
        if self.tall:  # the whole screen, to read long expanded entries at once
            self.query_one(LogPane).styles.height = "1fr"


@pytest.fixture
def tokyo_time(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time is Tokyo's (UTC+9, no daylight saving), so a clock time proves the local zone is used."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def local_clock(ts: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(ts))


def deltas(text: str) -> list[ModelDelta]:
    return [ModelDelta(run_id=RUN, chunk=1, turn=1, channel="text", text=ch) for ch in text]


def pane_rows(app: App[None]) -> list[Strip]:
    """The log pane's rows inside its border, as the screen shows them (after Textual's own styling)."""
    region = app.query_one(LogPane).content_region
    strips = app.screen._compositor.render_strips()
    return [strips[y].crop(region.x, region.right) for y in range(region.y, region.bottom)]


def pane_text(app: App[None]) -> list[str]:
    return [strip.text for strip in pane_rows(app)]


def style_at(app: App[None], needle: str) -> Style:
    """The style of the first character of ``needle`` where the pane shows it."""
    for strip in pane_rows(app):
        segments = list(strip)
        at = "".join(s.text for s in segments).find(needle)
        if at < 0:
            continue
        for segment in segments:
            if at < len(segment.text):
                assert segment.style is not None
                return segment.style
            at -= len(segment.text)
    raise AssertionError(f"{needle!r} is not in the log pane: {pane_text(app)}")


def theme_colour(app: App[None], name: str) -> tuple[int, int, int]:
    return Color.parse(app.theme_variables[name]).rgb


def colour_of(style: Style) -> tuple[int, int, int] | None:
    return None if style.color is None else tuple(style.color.get_truecolor())  # type: ignore[return-value]


async def flushed(pilot: Pilot, pane: LogPane, count: int) -> None:
    await wait_for(pilot, lambda: len(pane.visible_entries) == count, what=f"{count} lines in the pane")
    await pilot.pause()


async def test_tokens_fill_one_replaced_line_and_flushes_are_batched() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(LogPane)
        pane.push(
            ChunkStarted(
                run_id=RUN,
                chunk=1,
                paragraph_ids=("a", "b"),
                first_paragraph_id="a",
                last_paragraph_id="b",
                chunk_count=1,
            )
        )
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
        await wait_for(
            pilot,
            lambda: "▸ model: " in screen_text(app) and "the chunk first." in screen_text(app),
            what="the current line on screen",
        )
        pane.push(
            ModelResponse(
                run_id=RUN,
                chunk=1,
                turn=1,
                content=text,
                reasoning="",
                tool_calls=(),
                finish_reason="stop",
                usage=None,
                latency_ms=5.0,
            )
        )
        await wait_for(pilot, lambda: pane.current_output is None, what="the answer's flush")
        last = pane.visible_entries[-1]
        assert last.kind == "model_response" and last.text.startswith("model: I will look")
        assert last.copy == text  # copying the line gives the whole answer


async def test_tool_lines_errors_filter_and_copy() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(LogPane)
        pane.push(
            ToolCalled(
                run_id=RUN,
                chunk=1,
                turn=1,
                call_id="c1",
                name="get_next_paragraphs",
                arguments={"paragraph_id": "e58ed763", "count": 3},
            )
        )
        pane.push(
            ToolResult(
                run_id=RUN,
                chunk=1,
                turn=1,
                call_id="c1",
                name="get_next_paragraphs",
                success=False,
                error_code="CHUNK_BOUNDARY",
                result={
                    "success": False,
                    "error": "no more paragraphs in the current chunk",
                    "error_code": "CHUNK_BOUNDARY",
                },
            )
        )
        pane.push(Retry(run_id=RUN, chunk=1, attempt=1, reason="HTTP 429", delay=1.5))
        pane.push(BatchCommitted(run_id=RUN, chunk=1, paragraph_ids=("a", "b"), file="/x/ch01.json"))
        pane.add_notice("ch01.json is not valid on disk", error=True)
        await wait_for(pilot, lambda: len(pane.visible_entries) == 5, what="the flush")
        texts = [e.text for e in pane.visible_entries]
        assert texts[0] == "⚙ get_next_paragraphs(paragraph_id=e58ed763, count=3)"
        assert texts[1].startswith("  ✗ CHUNK_BOUNDARY get_next_paragraphs: no more paragraphs")
        assert texts[2] == "↻ retry 1 in 1.5 s: HTTP 429"
        assert texts[3] == "✔ committed 2 paragraphs to ch01.json"
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


def level_events() -> list[object]:
    return [
        ToolResult(
            run_id=RUN,
            chunk=1,
            turn=1,
            call_id="c1",
            name="get_next_paragraphs",
            success=False,
            error_code="CHUNK_BOUNDARY",
            result={
                "success": False,
                "error_code": "CHUNK_BOUNDARY",
                "error": "no more paragraphs in the current chunk",
            },
        ),
        ToolResult(
            run_id=RUN,
            chunk=1,
            turn=2,
            call_id="c2",
            name="add_translation_batch",
            success=True,
            error_code=None,
            result={"success": True, "accepted": ["a"], "unchanged": []},
        ),
        BatchCommitted(run_id=RUN, chunk=1, paragraph_ids=("a",), file="/x/ch01.json"),
        Retry(run_id=RUN, chunk=1, attempt=1, reason="HTTP 429 rate limited", delay=1.5),
    ]


@pytest.mark.parametrize("size", SIZES)
async def test_each_level_is_drawn_in_its_theme_colour(size: tuple[int, int]) -> None:
    app = Host()
    async with app.run_test(size=size) as pilot:
        pane = app.query_one(LogPane)
        for event in level_events():
            pane.push(event)  # type: ignore[arg-type]
        await flushed(pilot, pane, 4)

        def check(theme: str) -> None:
            assert colour_of(style_at(app, "CHUNK_BOUNDARY")) == theme_colour(app, "error"), theme
            assert style_at(app, "CHUNK_BOUNDARY").bold  # errors stand out without colour too
            assert colour_of(style_at(app, "✓ add_translation_batch")) == theme_colour(app, "success"), theme
            assert colour_of(style_at(app, "✔ committed")) == theme_colour(app, "success"), theme
            assert colour_of(style_at(app, "↻ retry")) == theme_colour(app, "warning"), theme

        check("proofdesk")
        # the line under the cursor keeps its colour (only its background changes)
        pane.focus()
        await pilot.press("home")
        await pilot.pause()
        assert colour_of(style_at(app, "CHUNK_BOUNDARY")) == theme_colour(app, "error")
        assert style_at(app, "CHUNK_BOUNDARY").bgcolor != style_at(app, "↻ retry").bgcolor
        # the colours come from the theme: another theme, other colours
        app.theme = "nord"
        await pilot.pause()
        assert theme_colour(app, "error") != Color.parse(PROOFDESK_THEME.error or "").rgb
        check("nord")


async def test_counts_and_unchanged_batches_are_worded_honestly() -> None:
    app = Host(tall=True)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(LogPane)
        pane.push(
            RunStarted(
                run_id=RUN,
                chapter_path="/x/ch01.json",
                chapter_id="ch01",
                task="translate",
                model="m",
                base_url="http://127.0.0.1:1/v1",
                chunk_count=1,
                paragraph_count=1,
            )
        )
        pane.push(
            ChunkStarted(
                run_id=RUN, chunk=1, paragraph_ids=("a",), first_paragraph_id="a", last_paragraph_id="a", chunk_count=1
            )
        )
        pane.push(
            ToolCalled(
                run_id=RUN,
                chunk=1,
                turn=1,
                call_id="c1",
                name="add_translation_batch",
                arguments={"paragraphs": [{"paragraph_id": "a", "translated_text": "A."}]},
            )
        )
        pane.push(
            ToolResult(
                run_id=RUN,
                chunk=1,
                turn=1,
                call_id="c1",
                name="add_translation_batch",
                success=True,
                error_code=None,
                result={"success": True, "accepted": [], "unchanged": ["a", "b", "c"], "note": "Nothing was written"},
            )
        )
        pane.push(
            ToolResult(
                run_id=RUN,
                chunk=1,
                turn=2,
                call_id="c2",
                name="add_translation_batch",
                success=True,
                error_code=None,
                result={"success": True, "accepted": ["a"], "unchanged": ["b"]},
            )
        )
        pane.push(BatchCommitted(run_id=RUN, chunk=1, paragraph_ids=("a",), file="/x/ch01.json", unchanged=("b",)))
        pane.push(BatchCommitted(run_id=RUN, chunk=1, paragraph_ids=(), file="/x/ch01.json", unchanged=("b", "c")))
        pane.push(Reminder(run_id=RUN, chunk=1, turn=2, missing=("d",), number=1))
        pane.push(
            ChunkFinished(
                run_id=RUN,
                chunk=1,
                status="complete",
                missing=(),
                turns=1,
                tool_calls=1,
                tool_errors={},
                usage={},
                wall_ms=5.0,
            )
        )
        await flushed(pilot, pane, 9)
        shown = pane_text(app)
        for wanted in [
            "▶ translate ch01 · model m · 1 chunk · 1 paragraph",
            "── chunk 1/1 · 1 paragraph · a…a",
            "⚙ add_translation_batch(1 paragraph: a)",
            "✓ add_translation_batch · batch unchanged: 3 paragraphs already had this text",
            "✓ add_translation_batch · 1 paragraph accepted · 1 already had this text",
            "✔ committed 1 paragraph to ch01.json · 1 already had this text",
            "○ batch unchanged: 2 paragraphs already had this text",
            "! reminder 1: 1 paragraph missing: d",
            "■ chunk 1 complete · 1 turn · 1 tool call",
        ]:
            assert any(wanted in row for row in shown), (wanted, shown)
        assert not any("(s)" in row or "committed 0" in row or "0 accepted" in row for row in shown), shown


LONG_ERROR = (
    "the request goes beyond the current chunk: paragraph e58ed763 is the first one of it, so there is "
    "nothing before it to read; ask for the paragraphs between 061915f3 and 655d8700 instead "
    "(羅生門の下で雨やみを待っていた。) and then " + "averyveryverylongtokenwithoutanyspaces" * 4 + " end-of-message"
)


@pytest.mark.parametrize("size", SIZES)
async def test_the_entry_under_the_cursor_expands_in_place(size: tuple[int, int], tokyo_time: None) -> None:
    app = Host(tall=True)
    async with app.run_test(size=size) as pilot:
        pane = app.query_one(LogPane)
        pane.push(
            ToolResult(
                run_id=RUN,
                chunk=1,
                turn=1,
                call_id="c1",
                name="get_previous_paragraphs",
                success=False,
                error_code="CHUNK_BOUNDARY",
                ts=TS,
                result={
                    "success": False,
                    "error_code": "CHUNK_BOUNDARY",
                    "error": LONG_ERROR,
                    "hint": "Stay inside the chunk.",
                },
            )
        )
        pane.push(Retry(run_id=RUN, chunk=1, attempt=1, reason="HTTP 429", delay=1.5, ts=TS + 1))
        await flushed(pilot, pane, 2)
        collapsed = pane_text(app)
        assert any(row.rstrip().endswith("…") for row in collapsed)  # the long line is cut while collapsed
        assert "end-of-message" not in "".join(collapsed)

        pane.focus()
        await pilot.press("up", "enter")
        await wait_for(pilot, lambda: pane.expanded_entry is not None, what="the entry to expand")
        await pilot.pause()
        rows = pane_text(app)
        width = pane.content_region.width
        assert all(len(row) <= width for row in rows)
        block = [row for row in rows if row.strip()]
        shown = "".join("".join(row.split()) for row in block)
        assert "".join(LONG_ERROR.split()) in shown  # every character, wrapped, none cut
        assert "hint:Stayinsidethechunk." in shown
        assert block[0].startswith(f"{local_clock(TS)}  ✗ CHUNK_BOUNDARY get_previous_paragraphs:")
        assert local_clock(TS) == time.strftime("%H:%M:%S", time.gmtime(TS + 9 * 3600))  # Tokyo's clock
        assert str(int(TS)) not in "".join(rows)  # never an epoch number
        assert len(block) > 3 and block[-1].startswith("↻ retry 1")  # the next entry follows the whole text
        assert colour_of(style_at(app, "end-of-message")) == theme_colour(app, "error")
        app.theme = "nord"  # drawn again in the new theme's colours
        await pilot.pause()
        assert colour_of(style_at(app, "end-of-message")) == theme_colour(app, "error")
        assert theme_colour(app, "error") != Color.parse(PROOFDESK_THEME.error or "").rgb
        app.theme = "proofdesk"
        await pilot.pause()
        # the text view and the clipboard get local time too
        await pilot.press("y")
        assert f'"time": "{local_clock(TS)}"' in app.clipboard and str(int(TS)) not in app.clipboard
        assert '"ts"' not in app.clipboard

        await pilot.press("enter")  # collapse again
        await wait_for(pilot, lambda: pane.expanded_entry is None, what="the entry to collapse")
        await pilot.pause()
        assert pane_text(app) == collapsed


async def test_an_expanded_entry_from_the_model_is_never_markup_nor_control_codes() -> None:
    content = "[bold]x[/bold] \x1b[31mred\x1b[0m and \x1b]52;c;SGVsbG8=\x07 done\nsecond line"
    app = Host(tall=True)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(LogPane)
        pane.push(
            ModelResponse(
                run_id=RUN,
                chunk=1,
                turn=1,
                content=content,
                reasoning="",
                tool_calls=(),
                finish_reason="stop",
                usage=None,
                latency_ms=5.0,
            )
        )
        await flushed(pilot, pane, 1)
        pane.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: pane.expanded_entry is not None, what="the entry to expand")
        await pilot.pause()
        rows = pane_text(app)
        joined = "\n".join(rows)
        words = " ".join(joined.split())  # the pane wraps the line where it likes
        assert "model: [bold]x[/bold] \\x1b[31mred\\x1b[0m and \\x1b]52;c;SGVsbG8=\\x07 done second line" in words
        assert any(row.startswith("second line") for row in rows)  # the model's newline, kept
        assert not any(ch in joined for ch in "\x1b\x07")
        assert not any(ch in segment.text for strip in pane_rows(app) for segment in strip for ch in "\x1b\x07")
        assert not style_at(app, "x[/bold]").bold  # not read as markup


def test_the_trace_inspector_words_commits_like_the_log() -> None:
    steps = build_steps(
        [
            decode_record(e)
            for e in [
                {
                    "kind": "batch_committed",
                    "run_id": RUN,
                    "chunk": 1,
                    "ts": TS,
                    "paragraph_ids": ["a"],
                    "unchanged": [],
                },
                {
                    "kind": "batch_committed",
                    "run_id": RUN,
                    "chunk": 1,
                    "ts": TS,
                    "paragraph_ids": ["a", "b"],
                    "unchanged": ["c"],
                },
                # a trace from an engine that still reported batches that wrote nothing
                {
                    "kind": "batch_committed",
                    "run_id": RUN,
                    "chunk": 1,
                    "ts": TS,
                    "paragraph_ids": [],
                    "unchanged": ["a", "b", "c"],
                },
            ]
        ]
    )
    assert [s.title for s in steps] == [
        "committed 1 paragraph",
        "committed 2 paragraphs · 1 already had this text",
        "batch unchanged: 3 paragraphs already had this text",
    ]
