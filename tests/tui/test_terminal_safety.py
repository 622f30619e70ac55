"""Text from a chapter, a model or a server never reaches the terminal as control sequences (the TUI).

Hostile file names, titles, paragraph IDs, source texts, translations, model content, reasoning, tool
arguments and provider errors are shown in the chapter list, the chapter view (status line, paragraph table,
detail pane, log pane), the trace inspector and the modal screens. Each test renders the screen the way the
driver writes it to the terminal and checks that none of the injected sequences is in it raw, while their
visible escape (``\\x1b``) is.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import TextArea

from engine.events import ModelDelta, ModelRequest
from store.conflicts import ConflictRecord, write_conflicts
from store.model import Chapter, Paragraph
from store.workspace import Workspace
from tests.support.model_server import ModelServer, error_reply, text_reply, tool_reply
from tests.tui.chapters import STAMP, version, write
from tests.tui.conftest import SIZE, make_app, wait_for
from tui.app import THEMES_DIR
from tui.screens.chapter import ChapterScreen
from tui.screens.chapter_list import ChapterListScreen
from tui.screens.conflicts import ConflictsScreen
from tui.screens.edit import EditScreen
from tui.screens.text_view import TextViewScreen
from tui.screens.trace import TraceScreen, TraceStepList
from tui.widgets.detail_pane import DetailPane
from tui.widgets.log_pane import LogPane
from tui.widgets.paragraph_table import ParagraphTable

OSC52 = "\x1b]52;c;SGVsbG8=\x07"  # write "Hello" to the clipboard
TITLE_ST = "\x1b]0;PWNED\x1b\\"  # set the window title, ended by ST (Rich lets it through)
CLEAR = "\x1b[2J"
C1_CSI = "\x9b31m"
RLO = "\u202e"
HOSTILE = (OSC52, TITLE_ST, CLEAR, C1_CSI, RLO)
PAYLOAD = "".join(HOSTILE)
SHOWN = "\\x1b]52;c;SGVsbG8=\\x07\\x1b]0;PWNED\\x1b\\\\x1b[2J\\x9b31m\\u202e"

RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
OWN_SEQUENCE = re.compile(r"\x1b\[[0-9;]*[mH]")  # Textual's own: colours and cursor moves

ID1 = "a" + TITLE_ST
ID2 = "b" + C1_CSI + RLO
ID3 = "c" + OSC52
FILE_NAME = f"x{TITLE_ST}{C1_CSI}{RLO}.json"


def terminal_output(app: App[object]) -> str:
    """The whole screen as the driver writes it to the terminal: text with Textual's own escape sequences."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    return update.render_segments(app.console)  # type: ignore[union-attr]


def screen_output(app: App[object]) -> str:
    """The screen's text as the terminal gets it, without Textual's own escape sequences."""
    return OWN_SEQUENCE.sub("", terminal_output(app))


def rendered(widget: Widget) -> str:
    """What a widget renders, line by line (the segments' text), unchecked."""
    return "\n".join(widget.render_line(y).text for y in range(widget.size.height))


def assert_screen_safe(app: App[object]) -> str:
    """No injected sequence on the terminal; returns the screen's text (Textual's own sequences removed)."""
    raw = terminal_output(app)
    for sequence in HOSTILE:
        assert sequence not in raw, f"{sequence!r} reached the terminal"
    text = screen_output(app)
    found = RAW_CONTROL.search(text)
    assert found is None, f"raw {found.group()!r} on screen: {text[max(found.start() - 60, 0) : found.end() + 60]!r}"
    return text


def widget_lines(widget: Widget) -> str:
    """What a widget renders, line by line (the segments' text)."""
    text = rendered(widget)
    found = RAW_CONTROL.search(text)
    assert found is None, f"raw {found.group()!r} in {type(widget).__name__}: {text!r}"
    return text


def hostile_chapter(translated: bool = True) -> Chapter:
    """Three paragraphs whose title, IDs, texts and versions carry every hostile sequence."""

    def para(pid: str, text: str, n: int) -> Paragraph:
        if not translated:
            return Paragraph(id=pid, text=text)
        old = version(f"v{n}a", f"EN{n} old {PAYLOAD}", model=f"m{OSC52}")
        new = version(f"v{n}b", f"EN{n} new {PAYLOAD}", "polish", model=f"m{C1_CSI}")
        return Paragraph(id=pid, text=text, translations=(old, new), selected_translation_id=new.id)

    return Chapter(
        id="ch",
        title=f"T {PAYLOAD}",
        source_language="ja",
        target_language="en",
        paragraphs=(para(ID1, f"一 {PAYLOAD}", 1), para(ID2, f"二 {PAYLOAD}", 2), para(ID3, f"三 {PAYLOAD}", 3)),
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


async def test_chapter_list_shows_file_names_and_titles_escaped(folder: Path) -> None:
    write(folder / FILE_NAME, hostile_chapter())
    (folder / f"y{OSC52}-bad.json").write_text('{"id": "x", "paragraphs": [', encoding="utf-8")
    app = make_app(folder)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, ChapterListScreen)
        await wait_for(
            pilot,
            lambda: "PWNED" in screen_output(app) and "✗" in screen_output(app),
            what="both files listed after the first scan",
        )
        text = assert_screen_safe(app)
        assert "x\\x1b]0;PWNED" in text and "y\\x1b]52;c;SGVsbG8=" in text
        await pilot.press("down", "enter")  # the invalid file: its message as a notification
        await wait_for(pilot, lambda: bool(list(app._notifications)), what="the notification")
        await pilot.pause()
        assert_screen_safe(app)
        [note] = list(app._notifications)
        assert RAW_CONTROL.search(note.message) is None and not note.markup
        assert "y\\x1b]52;c;SGVsbG8=\\x07-bad.json" in note.message


async def test_chapter_view_shows_title_ids_texts_and_versions_escaped(folder: Path) -> None:
    path = write(folder / FILE_NAME, hostile_chapter())
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        await pilot.pause()
        assert_screen_safe(app)
        await pilot.resize_terminal(160, 24)  # the status line leaves out the file and title first (25.12)
        await pilot.pause()
        assert "x\\x1b]0;PWNED" in assert_screen_safe(app)  # the status line: file name, then the title
        await pilot.resize_terminal(*SIZE)
        await pilot.pause()
        table = widget_lines(screen.query_one(ParagraphTable))
        assert "a\\x1b]0" in table and "一 \\x1b]52;" in table and "EN1 new \\x1b" in table
        detail = screen.query_one(DetailPane)
        widget_lines(detail)
        assert "a\\x1b]0;PWNED\\x1b\\" in detail.plain
        assert f"一 {SHOWN}" in detail.plain and f"EN1 new {SHOWN}" in detail.plain
        assert "m\\x9b31m" in detail.plain  # the model name of a version
        assert "Diff v1 → v2" in detail.plain
        await pilot.press("down", "left_square_bracket")  # the older version, and another paragraph
        await pilot.pause()
        assert_screen_safe(app)
        assert f"EN2 old {SHOWN}" in detail.plain
        await pilot.press("e")  # the edit screen: the ID in its title, the source, the text being edited
        assert isinstance(app.screen, EditScreen)
        await pilot.pause()
        text = assert_screen_safe(app)
        assert "b\\x9b31m\\u202e" in text and "二 \\x1b]52" in text
        assert "EN2 new ␛]52;c;SGVsbG8=" in text and "␛[2J" in text  # the editor: one symbol per control
        assert app.screen.query_one(TextArea).text == f"EN2 new {PAYLOAD}"  # and edits the text as it is
        await pilot.press("escape")


@pytest.mark.slow  # two runs, then every step of the trace inspector
async def test_a_run_with_a_hostile_model_and_server(folder: Path, model_server: ModelServer) -> None:
    chapter = Chapter(
        id="small",
        title="Small",
        source_language="ja",
        target_language="en",
        paragraphs=(Paragraph(id="p1", text="一つ目。"), Paragraph(id="p2", text="二つ目。")),
    )
    path = write(folder / "small.json", chapter)
    model_server.add(
        tool_reply([("get_paragraph_info", {"paragraph_id": f"x{OSC52}{RLO}"})], text=f"looking {PAYLOAD}"),
        text_reply(f"thinking aloud {PAYLOAD}", reasoning=f"hmm {PAYLOAD}"),
        tool_reply(
            [
                (
                    "add_translation_batch",
                    {
                        "paragraphs": [
                            {"paragraph_id": "p1", "translated_text": f"One {PAYLOAD}"},
                            {"paragraph_id": "p2", "translated_text": f"Two {PAYLOAD}"},
                        ]
                    },
                )
            ]
        ),
        error_reply(400, f"bad request {PAYLOAD} end"),
    )
    app = make_app(path, base_url=model_server.base_url, model="test-model", watch=False)
    leaks: dict[str, str] = {}  # every place that let a control character through, so all are reported at once

    def check(place: str, text: str) -> str:
        found = RAW_CONTROL.search(text)
        if found is not None:
            leaks.setdefault(place, repr(text[max(found.start() - 40, 0) : found.end() + 40]))
        return text

    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        pane = screen.query_one(LogPane)
        table = screen.query_one(ParagraphTable)
        detail = screen.query_one(DetailPane)

        def log() -> list[str]:
            return [e.text for e in pane.visible_entries]

        await pilot.press("t")
        await wait_for(pilot, lambda: any(t.startswith("■ run") for t in log()), what="the translate run")
        await pilot.press("p")
        await wait_for(pilot, lambda: sum(t.startswith("■ run") for t in log()) == 2, what="the polish run")
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: "One " in rendered(table), what="the translation in the table")
        pane.focus()
        await pilot.pause()
        joined = check("log pane entries", "\n".join(log()))
        check("log pane", rendered(pane))
        check("paragraph table", rendered(table))
        check("detail pane", rendered(detail) + detail.plain)
        check("chapter screen", screen_output(app))

        # the whole log line (the error's full event) in the text view
        await pilot.press("end", "v")
        assert isinstance(app.screen, TextViewScreen)
        await pilot.pause()
        check("text view", screen_output(app))
        await pilot.press("escape")

        # the trace inspector on the translate run: every step, list and detail
        traces = sorted((folder / ".proofdesk" / "traces" / "small").glob("*-translate.jsonl"))
        app.push_screen(TraceScreen(traces[-1]))
        trace = app.screen
        assert isinstance(trace, TraceScreen)
        await wait_for(pilot, lambda: bool(trace.steps), what="the trace to load")
        steps = trace.query_one(TraceStepList)
        for _ in trace.steps:  # every step: the list and its detail, as drawn
            await pilot.pause()
            check("trace step list", rendered(steps))
            check("trace inspector", screen_output(app))
            await pilot.press("j")
        prompts = check(
            "trace step titles", "\n".join(str(steps.get_option_at_index(i).prompt) for i in range(steps.option_count))
        )
        described = check("trace step details", "\n".join(trace.describe(step).plain for step in trace.steps))

        assert not leaks, "control characters reached the terminal: " + "; ".join(f"{k}: {v}" for k, v in leaks.items())
        assert_screen_safe(app)
        assert f"model: looking {SHOWN}" in joined or f"model: thinking aloud {SHOWN}" in joined
        assert "⚙ get_paragraph_info(paragraph_id=x\\x1b]52;c;SGVsbG8=" in joined
        assert f"bad request {SHOWN} end" in joined
        assert f"One {SHOWN}" in detail.plain
        assert "get_paragraph_info(paragraph_id=x\\x1b]52;c;SGVsbG8=" in prompts
        assert f"hmm {SHOWN}" in described and f"thinking aloud {SHOWN}" in described
        assert "One \\u001b]52" in described  # tool arguments as JSON: escaped by the encoder


async def test_conflicts_screen_shows_records_escaped(folder: Path) -> None:
    path = write(folder / FILE_NAME, hostile_chapter())
    write_conflicts(
        Workspace(folder),
        path,
        [
            ConflictRecord(
                chapter_file=path.name,
                chapter_id="ch",
                paragraph_id=ID2,
                kind="stale_source",
                base_source=f"old {PAYLOAD}",
                current_source=f"now {PAYLOAD}",
                our_text=f"ours {PAYLOAD}",
                origin="translation",
                model=f"m{OSC52}",
                created_at=STAMP,
            ),
        ],
    )
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        assert isinstance(app.screen, ConflictsScreen)
        await wait_for(pilot, lambda: "ours \\x1b" in assert_screen_safe(app), what="the record")
        text = assert_screen_safe(app)
        assert "x\\x1b]0;PWNED" in text and "b\\x9b31m\\u202e" in text
        await pilot.press("e")
        assert isinstance(app.screen, EditScreen)
        await pilot.pause()
        assert "b\\x9b31m" in assert_screen_safe(app)


class LogHost(App[None]):
    CSS_PATH = [THEMES_DIR / "proofdesk.tcss"]

    def compose(self) -> ComposeResult:
        yield LogPane(max_entries=50)


async def flushed(pilot: Pilot, pane: LogPane) -> None:
    pane.flush()
    await pilot.pause()


@pytest.mark.parametrize("channel", ["text", "reasoning"])
async def test_the_current_output_line_shows_streamed_text_escaped(channel: str) -> None:
    app = LogHost()
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(LogPane)
        pane.push(ModelRequest(run_id="r", chunk=1, turn=1, message_count=2, tool_names=()))
        for part in ("streamed ", OSC52, TITLE_ST, CLEAR, C1_CSI, RLO, " tail"):
            pane.push(ModelDelta(run_id="r", chunk=1, turn=1, channel=channel, text=part))
        pane.push(ModelDelta(run_id="r", chunk=1, turn=1, channel="tool_arguments", tool_name=f"t{TITLE_ST}", chars=3))
        await flushed(pilot, pane)
        lines = widget_lines(pane)
        assert "t\\x1b]0;PWNED" in lines
        pane.push(ModelDelta(run_id="r", chunk=1, turn=1, channel=channel, text="!"))
        await flushed(pilot, pane)
        lines = widget_lines(pane)
        assert "\\x1b[2J\\x9b31m\\u202e tail!" in lines
        pane.add_notice(f"a notice {PAYLOAD}", error=True)
        await flushed(pilot, pane)
        assert f"a notice {SHOWN}"[:60] in widget_lines(pane)
        assert_screen_safe(app)
