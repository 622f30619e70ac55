"""The workstation never crashes or misleads: a failing worker is reported (a notification and the log file) and
the app stays up; text from files is never parsed as markup; a modal prompt owns every key typed after it opens;
the palette keeps Textual's own commands and the chosen theme is kept; the focused pane has a visible border; a
plain-text file given to ``proofdesk`` is refused with what to do."""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.app import App
from textual.color import Color
from textual.command import CommandList, CommandPalette
from textual.dom import DOMNode
from textual.notifications import Notify
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import WorkerState

from store.model import Paragraph
from tests.tui.chapters import review_chapter, version, write
from tests.tui.conftest import SIZE, Messages, make_app, palette_offers, screen_text, wait_for
from tui.cli import main
from tui.logfile import log_to_file
from tui.screens.chapter import ChapterScreen
from tui.screens.edit import EditScreen
from tui.screens.prompt import PromptScreen
from tui.session import ChapterSession
from tui.widgets.detail_pane import DetailPane
from tui.widgets.log_pane import LogPane
from tui.widgets.paragraph_table import ParagraphTable


@pytest.fixture
def log_file() -> Iterator[Path]:
    """The app's log file, as ``proofdesk`` sets it up; the test's own logging handlers come back afterwards."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    path = log_to_file()
    yield path
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    for handler in handlers:
        if handler not in root.handlers:
            root.addHandler(handler)
    root.setLevel(level)
    logging.captureWarnings(False)


def errors(messages: Messages) -> list[str]:
    return [n.message for n in (m.notification for m in messages.of(Notify)) if n.severity == "error"]


# -- one handler for every worker's failure ---------------------------------------------------------------------


async def test_a_failing_worker_is_reported_and_the_app_stays_up(
    workspace_dir: Path, log_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = workspace_dir / ".proofdesk"
    state.mkdir()
    (state / "conflicts").write_text("a file where the conflicts folder belongs\n", encoding="utf-8")
    quiet = make_app(workspace_dir / "rashomon.json", watch=False)
    async with quiet.run_test(size=SIZE) as pilot:  # the store reads no records from a file: nothing fails
        await pilot.app.workers.wait_for_complete()
        assert quiet.is_running and isinstance(quiet.screen, ChapterScreen)

    def unreadable(self: ChapterSession) -> None:  # the failure the conflicts folder used to cause
        raise NotADirectoryError(20, "Not a directory", str(state / "conflicts" / "x"))

    monkeypatch.setattr(ChapterSession, "refresh_conflicts", unreadable)
    messages = Messages()
    app = make_app(workspace_dir / "rashomon.json", watch=False)
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        await wait_for(pilot, lambda: bool(errors(messages)), what="the failure to be reported")
        [shown] = errors(messages)
        assert "conflicts" in shown and "NotADirectoryError" in shown and "log file" in shown
        assert all(not m.notification.markup for m in messages.of(Notify))
        screen = app.screen
        assert isinstance(screen, ChapterScreen) and app.is_running
        await pilot.press("down")  # still answering keys
        assert screen.table.cursor == 1
    assert app.return_code in (None, 0)
    logged = log_file.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in logged and "NotADirectoryError" in logged


async def test_a_worker_failure_is_shown_as_text_and_a_cancelled_worker_is_not_a_failure(
    review_path: Path, log_file: Path
) -> None:
    messages = Messages()
    app = make_app(review_path, watch=False)

    async def fails() -> None:
        raise ValueError("[bold]x[/bold] \x1b[31m")

    async def waits() -> None:
        await asyncio.Event().wait()

    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        screen = app.screen
        waiting = screen.run_worker(waits(), exit_on_error=False)
        await pilot.pause()
        waiting.cancel()
        await wait_for(pilot, lambda: waiting.state is WorkerState.CANCELLED, what="the cancel")
        # A worker started without exit_on_error=False still never ends the app.
        failing = screen.run_worker(fails(), name="fails")
        await wait_for(pilot, lambda: bool(errors(messages)), what="the failure to be reported")
        assert failing.state is WorkerState.ERROR and app.is_running
        [shown] = errors(messages)
        assert "[bold]x[/bold] \\x1b[31m" in shown and "fails" in shown
    assert "ValueError" in log_file.read_text(encoding="utf-8")


def test_every_node_of_ours_that_starts_workers_reports_their_failures() -> None:
    """Through Textual's public API: a class of ours that starts a worker (``@work`` or ``run_worker``) mixes in
    ``ReportsWorkerFailures``, directly or, for a plain mixin, in every app, screen and widget that uses it."""
    from tui.app import ProofdeskApp
    from tui.worker_failures import ReportsWorkerFailures

    classes = [c for c in ProofdeskApp.binding_classes() if c.__module__.startswith("tui.")]
    pending = list(DOMNode.__subclasses__())
    while pending:
        klass = pending.pop()
        pending.extend(klass.__subclasses__())
        if klass.__module__.startswith("tui.") and klass not in classes:
            classes.append(klass)
    starts = [c for c in classes if re.search(r"@work\b|\brun_worker\(", inspect.getsource(c))]
    assert ProofdeskApp in starts and ChapterScreen in [u for c in starts for u in (c, *c.__subclasses__())]
    concrete = (App, Screen, Widget)
    users = {u for c in starts for u in (c, *_all_subclasses(c)) if issubclass(u, concrete)}
    assert users
    unreported = sorted(u.__qualname__ for u in users if not issubclass(u, ReportsWorkerFailures))
    assert not unreported, f"start workers without ReportsWorkerFailures: {unreported}"
    # after the Textual base: default CSS is inherited along the first base only
    assert not [u for u in users if u.__bases__[0] is ReportsWorkerFailures]


def _all_subclasses(klass: type) -> list[type]:
    found = list(klass.__subclasses__())
    for sub in list(found):
        found.extend(_all_subclasses(sub))
    return found


# -- markup never eats text ---------------------------------------------------------------------------------------


@pytest.mark.slow
async def test_brackets_from_data_and_labels_are_shown_as_they_are(tmp_path: Path) -> None:
    chapter = review_chapter()
    para = Paragraph(
        id="[bold]x[/bold]",
        text="[i]原文[/i]",
        translations=(version("v0000009", "[b]t[/b]"),),
        selected_translation_id="v0000009",
    )
    chapter = chapter.replace(title="[bold]Title[/bold]", paragraphs=(para, *chapter.paragraphs[1:]))
    path = write(tmp_path / "brackets.json", chapter)
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        assert isinstance(app.screen, PromptScreen)
        assert "Go to an index ([n]) or a paragraph ID" in screen_text(app)
        await pilot.press("escape", "e")
        assert isinstance(app.screen, EditScreen)
        shown = screen_text(app)
        assert "Edit the translation of [1] [bold]x[/bold]" in shown and "[i]原文[/i]" in shown
        await pilot.press("escape")
        await pilot.resize_terminal(160, 24)  # wide enough for the status line's title (left out first at 80)
        await pilot.pause()
        assert "[bold]Title[/bold]" in screen_text(app)
        await pilot.resize_terminal(*SIZE)
        await pilot.pause()
        await pilot.press("ctrl+p", *"Go to")
        await palette_offers(pilot, "Go to")
        assert "Go to [n] or ID" in screen_text(app)


# -- a modal prompt owns every key typed after it opens -------------------------------------------------------------


async def test_keys_pressed_right_after_g_go_to_the_prompt(review_path: Path) -> None:
    messages = Messages()
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        await pilot.press("g", "1", "2", "b", "enter")
        await wait_for(pilot, lambda: bool(messages.notifications()), what="the answer to the go-to")
        assert isinstance(app.screen, ChapterScreen)
        assert messages.notifications() == ["No paragraph [12b] and no ID starting with '12b'."]


@pytest.mark.parametrize(
    ("opener", "keys", "answer"),
    [
        ("g", ["1", "2", "b", "enter"], "No paragraph [12b] and no ID starting with '12b'."),
        ("slash", ["q", "b", "x", "enter"], "No paragraph contains 'qbx'"),
    ],
)
async def test_a_burst_of_keys_after_the_opening_key_goes_to_the_prompt(
    review_path: Path, opener: str, keys: list[str], answer: str
) -> None:
    """As a terminal delivers keys typed (or pasted) quickly: all at once, before the first one is handled."""
    messages = Messages()
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        await pilot.pause()
        for key in (opener, *keys):
            app.simulate_key(key)
        await wait_for(pilot, lambda: bool(messages.notifications()), what="the answer to the prompt")
        assert isinstance(app.screen, ChapterScreen)
        [shown] = messages.notifications()
        assert shown.startswith(answer)


async def test_a_burst_of_keys_after_e_is_typed_into_the_editor(review_path: Path) -> None:
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down")
        for key in ("e", "a", "b", "c"):
            app.simulate_key(key)
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, EditScreen) and app.screen.query_one("#edit-area").text.endswith("abc"),
            what="abc in the editor",
        )


# -- the palette, the theme ------------------------------------------------------------------------------------------


def palette_prompts(app: App[object]) -> list[str]:
    screen = app.screen
    assert isinstance(screen, CommandPalette)
    commands = screen.query_one(CommandList)
    return [str(commands.get_option_at_index(i).prompt) for i in range(commands.option_count)]


async def test_the_palette_keeps_textuals_commands_and_lists_only_ours(review_path: Path) -> None:
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, CommandPalette) and len(palette_prompts(app)) > 10,
            what="the palette's commands",
        )
        prompts = palette_prompts(app)
        for system in ("Keys", "Screenshot", "Maximize", "Theme", "Quit"):
            assert any(p.startswith(system) for p in prompts), system
        assert any(p.startswith("Translate") for p in prompts)
        # Textual's widget keys (the scrolling of every scrollable pane) are not commands; nor is each theme.
        textuals = ("Scroll Left", "Scroll Right", "Scroll Home", "Page Left", "Theme:")
        assert not [p for p in prompts if p.startswith(textuals)]


@pytest.mark.slow
async def test_a_theme_chosen_in_textuals_picker_is_kept_for_the_next_start(review_path: Path) -> None:
    from tui.theme import theme_state_path

    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        assert app.theme == "proofdesk"
        await pilot.press("ctrl+p", *"Theme")
        assert not theme_state_path().exists()  # nothing is written until a theme is chosen
        await palette_offers(pilot, "Theme")
        await pilot.press("enter")
        await pilot.press(*"ansi-light")
        await palette_offers(pilot, "ansi-light")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.theme == "ansi-light", what="the theme switch")
        await wait_for(pilot, lambda: theme_state_path().exists(), what="the theme to be saved")
    assert json.loads(theme_state_path().read_text(encoding="utf-8"))["theme"] == "ansi-light"
    again = make_app(review_path, watch=False)
    assert again.theme == "ansi-light"


def test_a_theme_set_in_the_config_after_the_choice_wins(review_path: Path, isolated_dirs: Path) -> None:
    from tui.theme import save_theme, theme_state_path

    save_theme("ansi-light", None)
    assert make_app(review_path, watch=False).theme == "ansi-light"
    config = isolated_dirs / "config" / "proofdesk" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('theme = "nord"\n', encoding="utf-8")
    assert make_app(review_path, watch=False).theme == "nord"  # the config changed since the choice
    theme_state_path().write_text("{not json", encoding="utf-8")
    assert make_app(review_path, watch=False).theme == "nord"


# -- the focused pane shows it -------------------------------------------------------------------------------------


async def test_the_focused_pane_has_a_border_in_the_accent_colour(review_path: Path) -> None:
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        panes: list[Widget] = [
            screen.query_one(ParagraphTable),
            screen.query_one(DetailPane),
            screen.query_one(LogPane),
        ]
        accent = Color.parse(app.get_css_variables()["accent"])
        for pane in panes:
            pane.focus()
            await pilot.pause()
            for other in panes:
                edge, colour = other.styles.border_left
                assert edge, f"{type(other).__name__} has no left border"
                if other is pane:
                    assert colour == accent, type(other).__name__
                else:
                    assert colour != accent and colour.a > 0, type(other).__name__


# -- newcomer traps ------------------------------------------------------------------------------------------------


def test_a_plain_text_file_is_refused_with_what_to_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "chapter.txt"
    text.write_text("羅生門\nある日の暮方の事である。\n", encoding="utf-8")
    assert main([str(text)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid JSON" not in err
    assert "plain-text file" in err and f"proofdesk import {text}" in err
