"""Search: every match highlighted in the table and the detail pane, "k of n", stepping with ; and , without
reopening the prompt, and limiting it to the source or the translation."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.loader import load_chapter
from tests.tui.chapters import review_chapter, write
from tests.tui.conftest import SIZE, make_app, screen_text, wait_for
from tui.screens.chapter import ChapterScreen
from tui.search import Search
from tui.widgets.detail_pane import DetailPane
from tui.widgets.paragraph_table import ParagraphTable


def test_search_finds_steps_and_counts(tmp_path: Path) -> None:
    chapter = load_chapter(write(tmp_path / "r.json", review_chapter()))
    both = Search.parse("PARAGRAPH")  # case is ignored; the translations say "paragraph"
    assert both is not None and both.matches(chapter) == [1, 3, 4]
    assert both.step(chapter, 1, 1) == 3 and both.step(chapter, 4, 1) == 1  # wraps
    assert both.step(chapter, 1, -1) == 4 and both.step(chapter, 2, -1) == 1
    assert both.rank(chapter, 3) == (2, 3) and both.rank(chapter, 2) == (0, 3)
    assert both.describe(chapter, 3) == "search 'PARAGRAPH': 2 of 3"
    source = Search.parse("src: 段落")
    assert source is not None and source.scope == "source" and source.matches(chapter) == [0, 1, 3, 4]
    assert Search.parse("tr:段落").matches(chapter) == []  # type: ignore[union-attr]
    assert Search.parse("src:") is None and Search.parse("  ") is None


@pytest.mark.slow
async def test_search_highlights_and_steps_without_the_prompt(tmp_path: Path) -> None:
    path = write(tmp_path / "r.json", review_chapter())
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        table = screen.query_one(ParagraphTable)
        await pilot.press("slash", *"fourth", "enter")
        await wait_for(pilot, lambda: table.cursor == 3, what="the first match")
        assert "search 'fourth': 1 of 1" in screen_text(app)
        assert table.highlight == "fourth" and screen.query_one(DetailPane).highlight == "fourth"
        await pilot.press("slash", "ctrl+u", *"paragraph", "enter")
        await wait_for(pilot, lambda: table.cursor == 4, what="the first match after the cursor")
        await pilot.press("semicolon")
        assert table.cursor == 1  # wrapped to the first match
        assert "search 'paragraph': 1 of 3" in screen_text(app)
        await pilot.press("comma")
        assert table.cursor == 4
        # a match off the cursor row is highlighted in the table: its cells carry the match style
        style = table.get_component_rich_style("paragraph-table--match")
        row = table.render_line(table.model.row_of[3] + 1 - round(table.scroll_y))  # "The fourth paragraph."
        marked = "".join(seg.text for seg in row if seg.style is not None and seg.style.bgcolor == style.bgcolor)
        assert marked == "paragraph"
        await pilot.press("slash", "ctrl+u", "enter")  # an empty search clears it
        await wait_for(pilot, lambda: table.highlight is None, what="the highlight to go")
        assert "search '" not in screen_text(app)
