"""Keys behave as editors expect (issue 25.13): keys typed after a prompt's Enter go to the chapter view, the chapter
list's Home/End move the cursor, the edit modal selects all on ctrl+a (and F7) and lists its keys, English versions
are diffed word by word, the separators are the run's chunks from its start, and the copy toast is honest under
tmux."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.style import Style
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from store.loader import load_chapter
from store.model import Paragraph
from tests.tui.chapters import review_chapter, version, write
from tests.tui.conftest import SIZE, Messages, make_app, sample_bytes, wait_for
from tui.clipboard import TMUX_SETTING, copied_message
from tui.screens.chapter import ChapterScreen
from tui.screens.chapter_list import ChapterListScreen
from tui.screens.edit import EditScreen
from tui.screens.help import HelpScreen
from tui.widgets.detail_pane import DetailPane
from tui.widgets.paragraph_table import ParagraphTable


def chapter_screen(pilot: Pilot) -> ChapterScreen:
    screen = pilot.app.screen
    assert isinstance(screen, ChapterScreen)
    return screen


def reviewed_on_disk(path: Path, pid: str) -> bool:
    para = load_chapter(path).paragraph(pid)
    return para is not None and para.reviewed


# -- a prompt takes no key after its Enter ---------------------------------------------------------------------------


@pytest.mark.parametrize("burst", [True, False], ids=["terminal-burst", "pilot-press"])
async def test_keys_typed_right_after_the_prompts_enter_go_to_the_chapter_view(review_path: Path, burst: bool) -> None:
    messages = Messages()
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        screen = chapter_screen(pilot)
        keys = ("g", "5", "enter", "m", "j")  # go to [5], mark it reviewed, one row down
        if burst:  # as a terminal delivers keys typed quickly: all at once, before the first one is handled
            await pilot.pause()
            for key in keys:
                app.simulate_key(key)
        else:
            await pilot.press(*keys)
        await wait_for(pilot, lambda: reviewed_on_disk(review_path, "p0000005"), what="[5] marked on disk")
        await wait_for(pilot, lambda: screen.table.cursor == 5, what="the cursor one row below [5]")
        assert app.screen is screen
        assert not [n for n in messages.notifications() if "No paragraph" in n]


async def test_a_correction_in_a_burst_is_made_where_it_was_typed(review_path: Path) -> None:
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for key in ("g", "4", "backspace", "5", "enter", "m"):  # 4, corrected to 5
            app.simulate_key(key)
        await wait_for(pilot, lambda: reviewed_on_disk(review_path, "p0000005"), what="[5] marked on disk")


async def test_keys_typed_right_after_saving_an_edit_are_not_saved(review_path: Path) -> None:
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = chapter_screen(pilot)
        await pilot.press("g", "5", "enter")
        await pilot.pause()
        for key in ("e", "ctrl+a", "N", "e", "w", "ctrl+s", "k", "k"):
            app.simulate_key(key)
        await wait_for(pilot, lambda: screen.table.cursor == 2, what="k k on the chapter view")
        await wait_for(
            pilot,
            lambda: load_chapter(review_path).paragraph("p0000005").selected_text == "New",  # type: ignore[union-attr]
            what="the text saved without the keys after ctrl+s",
        )


# -- the chapter list's Home and End ------------------------------------------------------------------------------


async def test_home_and_end_move_the_chapter_lists_cursor(workspace_dir: Path) -> None:
    for i in range(40):  # more chapters than the list shows at 80x24
        (workspace_dir / f"ch{i:03d}.json").write_bytes(sample_bytes().replace(b'"rashomon"', f'"c{i}"'.encode(), 1))
    app = make_app(workspace_dir, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterListScreen)
        table = screen.query_one(DataTable)
        await wait_for(pilot, lambda: table.row_count == 41, what="the chapters")
        await pilot.press("end")
        assert table.cursor_row == 40
        await pilot.press("home")
        assert table.cursor_row == 0
        await pilot.press("greater_than_sign")
        assert table.cursor_row == 40
        await pilot.press("less_than_sign")
        assert table.cursor_row == 0


# -- the edit modal: select all, its keys listed -------------------------------------------------------------------


async def test_ctrl_a_selects_all_in_the_edit_modal_and_f1_lists_it(review_path: Path) -> None:
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g", "5", "enter", "e")
        await wait_for(pilot, lambda: isinstance(app.screen, EditScreen), what="the edit modal")
        edit = app.screen
        await pilot.press("ctrl+a", *"Replaced")
        area = edit.query_one("#edit-area")
        assert area.text == "Replaced"  # type: ignore[attr-defined]
        await pilot.press("f7", "delete", *"Again")
        assert area.text == "Again"  # type: ignore[attr-defined]
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="the keys of the modal")
        listed = str(app.screen.query_one("#help-text", Static).render())
        [line] = [row for row in listed.splitlines() if "Select all" in row]
        assert "^a" in line and "f7" in line and "edit.select_all" in line  # ^a: ctrl+a as Textual writes it
        assert "Save" in listed and "Cancel" in listed
        await pilot.press("escape", "ctrl+s")
        await wait_for(
            pilot,
            lambda: load_chapter(review_path).paragraph("p0000005").selected_text == "Again",  # type: ignore[union-attr]
            what="the edit saved",
        )


# -- English versions: a word diff ---------------------------------------------------------------------------------


def styled(pane: DetailPane, style: Style) -> list[str]:
    """The runs of text the pane draws with ``style``'s decoration (strike: deleted, underline: inserted); the
    pane shows all of its text."""
    assert pane.virtual_size.height <= pane.size.height
    runs: list[str] = []
    for y in range(pane.size.height):
        line = pane.render_line(y)
        current = ""
        for segment in line:
            marked = segment.style is not None and (
                (style.strike and segment.style.strike) or (style.underline and segment.style.underline)
            )
            if marked:
                current += segment.text
            elif current:
                runs.append(current)
                current = ""
        if current:
            runs.append(current)
    return runs


async def test_english_versions_are_diffed_word_by_word_in_the_detail_pane(tmp_path: Path) -> None:
    chapter = review_chapter()
    versions = (
        version("v0000011", "The servant waited under the gate for the rain to stop."),
        version("v0000012", "The servant stood under the gate until the rain stopped.", "polish"),
    )
    para = Paragraph(id="p0000009", text="下人は門の下で雨やみを待っていた。", translations=versions)
    para = para.replace(selected_translation_id="v0000012")
    path = write(tmp_path / "en.json", chapter.replace(paragraphs=(para, *chapter.paragraphs)))
    app = make_app(path, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = chapter_screen(pilot).query_one(DetailPane)
        await wait_for(pilot, lambda: "Diff v1 → v2" in pane.plain, what="the diff")
        assert styled(pane, Style(strike=True)) == ["waited", "for", "to stop"]
        assert styled(pane, Style(underline=True)) == ["stood", "until", "stopped"]
        assert "rewritten" not in pane.plain


# -- the separators at a run's start -------------------------------------------------------------------------------


async def test_the_separators_are_the_runs_chunks_from_its_start(review_path: Path) -> None:
    app = make_app(review_path, watch=False)
    app.demo_delay = 0.2  # the demo model, slowed: the run is still at its start when the table is looked at
    async with app.run_test(size=SIZE) as pilot:
        screen = chapter_screen(pilot)
        table = screen.query_one(ParagraphTable)
        assert table.model.task == "translate" and table.model.chunk_of(1) is None  # [2] is translated already
        shown: list[object] = []
        await pilot.press("u")  # retranslate every paragraph: one chunk of all five
        shown.append(table.model)
        assert screen.run_in_progress and not screen.session.run_changed  # nothing committed yet
        chunk = table.model.chunk_of(1)
        assert chunk is not None and chunk.paragraph_ids == ("p0000001", "p0000002", "p0000004", "p0000005", "p0000006")
        assert shown == [screen.runs.run_rows]
        await pilot.press("x")
        await wait_for(pilot, lambda: not screen.run_in_progress, what="the run to stop")


# -- the copy toast under tmux ---------------------------------------------------------------------------------------


def test_the_copy_message_names_the_tmux_setting_under_tmux() -> None:
    assert copied_message("the translation", {}) == "Copied the translation (OSC 52)."
    under_tmux = copied_message("the translation", {"TMUX": "/tmp/tmux-1000/default,123,0"})
    assert "may not have arrived" in under_tmux and TMUX_SETTING in under_tmux
    assert not under_tmux.startswith("Copied")


async def test_y_under_tmux_says_the_copy_may_not_have_arrived(
    review_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMUX", "/tmp/tmux-1000/default,4242,0")
    messages = Messages()
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        await pilot.press("j", "y")
        await wait_for(pilot, lambda: bool(messages.notifications()), what="the toast")
        [said] = messages.notifications()
        assert "tmux" in said and "set -g set-clipboard on" in said and "Copied" not in said
