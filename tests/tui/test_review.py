"""Review keys: version stepping with a diff, selecting a version, editing, marking reviewed — each a commit,
checked in the file on disk."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from store.loader import load_chapter
from store.model import Paragraph
from tests.tui.conftest import SIZE, Messages, make_app, screen_text, wait_for
from tui.screens.chapter import ChapterScreen
from tui.screens.edit import EditScreen
from tui.widgets.paragraph_table import ParagraphTable


def on_disk(path: Path, pid: str) -> Paragraph:
    para = load_chapter(path).paragraph(pid)
    assert para is not None
    return para


@pytest.mark.slow  # four commits through the keys, each awaited on disk and on screen
async def test_versions_diff_select_edit_and_review(review_path: Path) -> None:
    app = make_app(review_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        table = screen.query_one(ParagraphTable)
        await pilot.press("down")
        assert table.current_paragraph is not None and table.current_paragraph.id == "p0000002"
        text = screen_text(app)
        assert "v2 · polish · test-model" in text and "(selected)" in text
        assert "Diff v1 → v2" in text

        # [ steps to the older version; enter selects it (a commit)
        await pilot.press("left_square_bracket")
        assert screen.viewed_version == 0
        assert "▶ v1 · translation" in screen_text(app)
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: on_disk(review_path, "p0000002").selected_translation_id == "v0000001",
            what="the selection on disk",
        )
        assert len(on_disk(review_path, "p0000002").translations) == 2  # selecting adds no version

        # e edits in place: a manual version, appended and selected
        await pilot.press("e")
        assert isinstance(app.screen, EditScreen)
        await pilot.press("ctrl+u", *"Second, by hand.", "ctrl+s")
        await wait_for(
            pilot, lambda: len(on_disk(review_path, "p0000002").translations) == 3, what="the manual version on disk"
        )
        para = on_disk(review_path, "p0000002")
        assert para.selected is not None and para.selected.origin == "manual"
        assert para.selected_text == "Second, by hand."
        await wait_for(pilot, lambda: "Second, by hand." in screen_text(app), what="the row to show the edit")

        # ] past the end stays on the newest version; the diff compares it with the one before
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert screen.viewed_version == 2
        assert "Diff v2 → v3" in screen_text(app)

        # m marks reviewed, m again unmarks
        await pilot.press("m")
        await wait_for(pilot, lambda: on_disk(review_path, "p0000002").reviewed, what="reviewed on disk")
        await wait_for(pilot, lambda: "rev✓" in screen_text(app), what="the reviewed state in the row")
        await pilot.press("m")
        await wait_for(pilot, lambda: not on_disk(review_path, "p0000002").reviewed, what="unreviewed on disk")


@pytest.mark.slow
async def test_edit_can_be_cancelled_and_saved_without_ctrl_keys(review_path: Path) -> None:
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("e", *"xyz", "escape")
        assert isinstance(app.screen, ChapterScreen)
        # tab to the Save button, enter: no ctrl key needed (tmux and some terminals swallow them)
        await pilot.press("e", "ctrl+u", *"First.", "tab", "enter")
        await wait_for(pilot, lambda: on_disk(review_path, "p0000001").selected_text == "First.", what="the saved edit")
        await app.workers.wait_for_complete()
        # the cancelled edit wrote nothing: the save made after it is the paragraph's only version
        assert [v.text for v in on_disk(review_path, "p0000001").translations] == ["First."]
        assert b"xyz" not in review_path.read_bytes()


@pytest.mark.slow
async def test_next_to_review_and_refusals(review_path: Path) -> None:
    app = make_app(review_path, watch=False)
    messages = Messages()
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        table = app.screen.query_one(ParagraphTable)
        await pilot.press("n")
        assert table.current_paragraph.id == "p0000002"  # translated, not reviewed
        await pilot.press("n")
        assert table.current_paragraph.id == "p0000005"  # p4 is reviewed, p3 empty, both skipped
        await pilot.press("n")
        assert table.current_paragraph.id == "p0000002"  # wraps
        await pilot.press("N")
        assert table.current_paragraph.id == "p0000005"
        # nothing to review on an untranslated or empty paragraph: no commit
        before = review_path.read_bytes()
        await pilot.press("home", "m", "down", "down", "m")
        await wait_for(
            pilot,
            lambda: messages.notifications().count("Nothing to review: this paragraph has no translation.") == 2,
            what="both refusals",
        )
        await app.workers.wait_for_complete()
        assert review_path.read_bytes() == before


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script as $EDITOR")
async def test_edit_in_external_editor(review_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    editor = tmp_path / "fake-editor.sh"
    editor.write_text('#!/bin/sh\nprintf "Fifth, from the editor.\\n" > "$1"\n', encoding="utf-8")
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("VISUAL", str(editor))
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g", "5", "enter", "E")
        await wait_for(
            pilot,
            lambda: on_disk(review_path, "p0000005").selected_text == "Fifth, from the editor.",
            what="the external edit on disk",
        )
        para = on_disk(review_path, "p0000005")
        assert para.selected is not None and para.selected.origin == "manual"
    assert os.access(editor, os.X_OK)


@pytest.mark.slow
async def test_a_polish_run_never_changes_a_text_the_editor_reviewed(review_path: Path) -> None:
    app = make_app(review_path, watch=False)  # the offline demo model polishes the odd-numbered paragraphs
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        table = screen.query_one(ParagraphTable)
        await pilot.press("n", "n", "m")
        assert table.current_paragraph is not None and table.current_paragraph.id == "p0000005"
        await wait_for(pilot, lambda: on_disk(review_path, "p0000005").reviewed, what="p5 marked on disk")
        await pilot.press("p")
        await wait_for(pilot, lambda: screen.run_label.startswith("last run: complete"), what="the polish run")
        p5 = on_disk(review_path, "p0000005")
        # The editor's reviewed text stays selected and reviewed; the polish waits as a suggestion with its reason.
        assert p5.selected is not None and p5.selected.text == "The fifth paragraph." and p5.reviewed is True
        (suggestion,) = p5.pending
        assert suggestion.origin == "polish" and suggestion.reason and suggestion.based_on == p5.selected.id
        p4 = on_disk(review_path, "p0000004")
        assert p4.reviewed is True and p4.selected is not None and p4.selected.origin == "translation"
        await pilot.press("home", "n", "n")  # a pending suggestion needs the editor: n stops there
        assert table.current_paragraph is not None and table.current_paragraph.id == "p0000005"


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script as $EDITOR")
async def test_external_editor_shows_the_source_and_a_failed_exit_saves_nothing(
    review_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = tmp_path / "seen.txt"
    editor = tmp_path / "edit.sh"
    # Keeps the note lines, edits the translation line, and exits with the status in $EDIT_STATUS.
    editor.write_text(
        f'#!/bin/sh\ncp "$1" {seen}\nsed -i "s/The fifth paragraph./Fifth, edited./" "$1"\n'
        'exit "${EDIT_STATUS:-0}"\n',
        encoding="utf-8",
    )
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("VISUAL", str(editor))
    monkeypatch.setenv("EDIT_STATUS", "1")  # as vim's :cq
    before = review_path.read_bytes()
    app = make_app(review_path, watch=False)
    messages = Messages()
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        await pilot.press("g", "5", "enter", "E")
        await wait_for(
            pilot,
            lambda: any("exited with status 1; nothing was saved" in n for n in messages.notifications()),
            what="the refusal",
        )
        assert review_path.read_bytes() == before
        shown = seen.read_text(encoding="utf-8").splitlines()
        assert shown[1:3] == ["#| Source:", "#| 五つ目の段落です。"] and shown[-1] == "The fifth paragraph."
        monkeypatch.setenv("EDIT_STATUS", "0")
        await pilot.press("E")
        await wait_for(
            pilot,
            lambda: on_disk(review_path, "p0000005").selected_text == "Fifth, edited.",
            what="the edit without the note lines",
        )
