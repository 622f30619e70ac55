"""Opening a workspace or a chapter, and moving through a chapter, at 80x24 with the keyboard only."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.loader import load_chapter
from tests.tui.conftest import SIZE, make_app, screen_text, wait_for
from tui.screens.chapter import ChapterScreen
from tui.screens.chapter_list import ChapterListScreen
from tui.widgets.log_pane import LogPane
from tui.widgets.paragraph_table import ParagraphTable


async def test_workspace_folder_lists_chapters_and_opens_one(workspace_dir: Path) -> None:
    second = workspace_dir / "b-second.json"
    second.write_bytes((workspace_dir / "rashomon.json").read_bytes().replace(b'"id": "rashomon"', b'"id": "two"'))
    (workspace_dir / "notes.txt").write_text("not a chapter", encoding="utf-8")
    app = make_app(workspace_dir)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, ChapterListScreen)
        await wait_for(pilot, lambda: not app.seeding, what="the first scan")
        await wait_for(
            pilot,
            lambda: "b-second.json" in screen_text(app) and "0/39" in screen_text(app),
            what="the rows of the first scan",
        )
        text = screen_text(app)
        assert "b-second.json" in text and "rashomon.json" in text and "notes.txt" not in text
        assert "0/39" in text  # translated / non-empty paragraphs
        await pilot.press("down", "enter")
        assert isinstance(app.screen, ChapterScreen)
        assert app.screen.session.path.name == "rashomon.json"
        assert app.screen.query_one(LogPane).display
        await pilot.press("b")
        assert isinstance(app.screen, ChapterListScreen)


async def test_chapter_file_opens_straight_to_its_view(workspace_dir: Path) -> None:
    app = make_app(workspace_dir / "rashomon.json")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "0/39 done" in screen_text(app), what="the chapter view")
        assert isinstance(app.screen, ChapterScreen)
        assert app.screen.query_one(LogPane).display
        text = screen_text(app)
        assert "[1] 52490097 羅生門" in text
        assert "[3] e94123b9 (empty)" in text  # empty paragraphs are rows, so numbers never skip silently
        assert "── chunk 1/2 · 19 paragraphs · [1]–[21]" in text
        assert "0/39 done" in text
        await pilot.press("l")  # the log pane can be hidden, and shown again
        assert not app.screen.query_one(LogPane).display
        await pilot.press("l")
        assert app.screen.query_one(LogPane).display


async def test_the_list_under_a_chapter_view_counts_once_it_is_shown(workspace_dir: Path) -> None:
    """Started on a chapter, the list under its view checks no chapter (a thread holding the interpreter while
    the view paints): it counts when it is shown."""
    app = make_app(workspace_dir / "rashomon.json")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "0/39 done" in screen_text(app), what="the chapter view")
        await wait_for(pilot, lambda: not app.seeding, what="the first scan")
        await pilot.pause()
        listing = next(s for s in app.screen_stack if isinstance(s, ChapterListScreen))
        assert listing.rows == []
        await pilot.press("b")
        assert app.screen is listing
        await wait_for(pilot, lambda: "0/39" in screen_text(app), what="the rows, counted once shown")


@pytest.mark.slow  # some forty key presses
async def test_moving_through_a_chapter(workspace_dir: Path) -> None:
    chapter = load_chapter(workspace_dir / "rashomon.json")
    app = make_app(workspace_dir / "rashomon.json", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one(ParagraphTable)
        assert table.cursor == 0
        await pilot.press("down", "j", "j")
        assert table.cursor == 3
        await pilot.press("k")
        assert table.cursor == 2
        await pilot.press("end")
        assert table.cursor == len(chapter.paragraphs) - 1
        assert f"[{len(chapter.paragraphs)}]" in screen_text(app)  # scrolled into view
        await pilot.press("home", "pagedown")
        assert table.cursor > 3
        # g: go to an index, then to an ID prefix
        await pilot.press("g", *"12", "enter")
        assert table.cursor == 11
        await pilot.press("g", *chapter.paragraphs[30].id[:6], "enter")
        assert table.cursor == 30
        # /: search source text, from the cursor on, wrapping
        await pilot.press("home", "slash", *"羅生門", "enter")
        hits = [i for i, p in enumerate(chapter.paragraphs) if "羅生門" in p.text]
        assert table.cursor == hits[1]  # the first hit after the cursor ([1] itself is the cursor)
        detail = screen_text(app)
        assert f"[{hits[1] + 1}] {chapter.paragraphs[hits[1]].id}" in detail
        # an index out of range does not move
        await pilot.press("g", *"9999", "enter")
        assert table.cursor == hits[1]


async def test_separators_follow_the_chosen_task(workspace_dir: Path) -> None:
    app = make_app(workspace_dir / "rashomon.json", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        assert screen.separator_task == "translate"
        assert "── chunk 1/2" in screen_text(app)
        await pilot.press("s")  # polish: nothing is translated yet, so no chunks
        assert screen.separator_task == "polish"
        assert "── chunk" not in screen_text(app)


@pytest.mark.slow  # 5,000 paragraphs
async def test_a_big_chapter_is_drawn_as_lines_not_widgets(tmp_path: Path) -> None:
    from tests.bench.chapters import write_chapter

    path = tmp_path / "big.json"
    write_chapter(path, 5000)
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        assert len(screen.query("*")) < 40  # a handful of widgets, whatever the chapter's length
        table = screen.query_one(ParagraphTable)
        # separators of a big chapter are computed in a thread and appear when ready
        assert screen.separator_task == "polish"  # every paragraph is translated
        await wait_for(pilot, lambda: bool(table.model.chunks), what="the chunk separators")
        await pilot.press("end")
        assert table.cursor == 4999
        assert "[5000]" in screen_text(app)
        await pilot.press("g", *"2500", "enter")
        assert table.cursor == 2499 and "[2500]" in screen_text(app)
