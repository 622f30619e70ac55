"""A translation made for a source that changed since shows as stale, with its SOURCE_CHANGED warning."""

from __future__ import annotations

from pathlib import Path

from store.model import Chapter, Paragraph, append_version
from tests.tui.chapters import write
from tests.tui.conftest import make_app, wait_for
from tui.screens.chapter import ChapterScreen
from tui.widgets.detail_pane import DetailPane
from tui.widgets.paragraph_table import ParagraphTable


async def test_a_changed_source_shows_stale_and_its_warning(tmp_path: Path) -> None:
    fresh, _ = append_version(Paragraph(id="p1", text="一つ目。"), "The first.", origin="translation", model="m")
    old, _ = append_version(Paragraph(id="p2", text="二つ目。"), "The second.", origin="translation", model="m")
    stale = old.replace(text="二つ目の段落。", reviewed=True)  # edited after it was translated (and reviewed)
    chapter = Chapter(id="c", source_language="ja", target_language="en", paragraphs=(fresh, stale))
    app = make_app(write(tmp_path / "c.json", chapter), watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        table = screen.query_one(ParagraphTable)
        assert table.chapter is not None
        assert [table.status_of(p) for p in table.chapter.paragraphs] == ["translated", "stale"]
        await pilot.press("down")
        pane = screen.query_one(DetailPane)
        await wait_for(pilot, lambda: "SOURCE_CHANGED" in pane.plain, what="the stale paragraph's warning")
        assert "stale (the source changed since it was translated)" in pane.plain
