"""The chapter view's parts own their keys: remappable by id like the screen's, working from whichever pane has the
focus; redraws of the view come from one message, however many of them come in a row."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.conftest import SIZE, make_app, wait_for
from tests.tui.test_checks_view import checked, checks_path  # noqa: F401 (a fixture)
from tui.controllers.checks import ChecksControl
from tui.controllers.runs import RunControl
from tui.messages import ChapterStateChanged
from tui.screens.chapter import ChapterScreen
from tui.widgets.chapter_panes import ChapterPanes
from tui.widgets.detail_pane import DetailPane
from tui.widgets.log_pane import LogPane
from tui.widgets.paragraph_table import ParagraphTable


async def test_a_part_key_remapped_by_id(checks_path: Path, isolated_dirs: Path) -> None:  # noqa: F811
    config = isolated_dirs / "config" / "proofdesk" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[keymap]\n"chapter.next_warning" = "v"\n', encoding="utf-8")
    app = make_app(checks_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await checked(pilot)
        await pilot.press("w")
        assert screen.table.cursor == 0  # w no longer steps to a warning
        await pilot.press("v")
        assert screen.table.cursor == 2


async def test_the_parts_hold_the_panes_and_their_keys_work_from_the_log(checks_path: Path) -> None:  # noqa: F811
    app = make_app(checks_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await checked(pilot)
        panes = screen.query_one(ChapterPanes)
        for pane in (ParagraphTable, DetailPane, LogPane):
            assert screen.query_one(pane).parent is panes
        assert panes.parent is screen.query_one(ChecksControl)
        assert screen.query_one(ChecksControl).parent is screen.query_one(RunControl)
        log = screen.query_one(LogPane)
        log.focus()
        await pilot.pause()
        await pilot.press("w")  # the checks' key, with the log focused
        assert screen.table.cursor == 2
        await pilot.press("z")  # the detail pane's key
        assert screen.maximized is screen.query_one(DetailPane)
        await pilot.press("z")
        assert screen.maximized is None and screen.focused is log  # the focus went back where it was


async def test_redraws_in_a_row_are_one(checks_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    app = make_app(checks_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await checked(pilot)
        assert isinstance(screen, ChapterScreen)
        drawn: list[bool] = []
        redraw = screen._redraw

        def counting(*, rows: bool = False) -> None:
            drawn.append(rows)
            redraw(rows=rows)

        monkeypatch.setattr(screen, "_redraw", counting)  # counts the redraws the messages lead to
        for _ in range(5):
            screen.post_message(ChapterStateChanged())
        screen.post_message(ChapterStateChanged("rows"))
        await wait_for(pilot, lambda: True in drawn, what="the redraw with the rows")
        assert drawn.count(True) == 1 and drawn.count(False) < 5
