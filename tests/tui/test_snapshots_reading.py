"""SVG snapshots of reading a paragraph: source and translation side by side at 120x40, and the detail pane
zoomed at 80x24 (pytest-textual-snapshot).

Like ``test_snapshots.py`` they record one Textual version (``snapshots_textual_version.txt``) and fail with one
message when another is installed; re-record with ``pytest tests/tui/test_snapshots_reading.py --snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from store.loader import parse_chapter
from tests.tui.chapters import showcase_chapter, write
from tests.tui.conftest import make_app, sample_bytes, wait_for, workers_done
from tests.tui.snapshot_guard import same_textual_version  # noqa: F401 (an autouse fixture)
from tui.screens.chapter import ChapterScreen
from tui.widgets.detail_pane import DetailPane


@pytest.fixture
def showcase(tmp_path: Path) -> Path:
    """The first 14 paragraphs of the sample in every state; [4] has two versions, [8] a long source."""
    folder = tmp_path / "book"
    folder.mkdir()
    return write(folder / "rashomon.json", showcase_chapter(parse_chapter(sample_bytes(), "rashomon.json")))


async def settled_on(pilot: Pilot, index: str) -> DetailPane:
    """Go to paragraph ``[index]`` and wait until the pane shows it and every worker is done."""
    screen = pilot.app.screen
    assert isinstance(screen, ChapterScreen)
    await workers_done(pilot)
    await pilot.press("g", *index, "enter")
    pane = screen.query_one(DetailPane)
    await wait_for(pilot, lambda: pane.plain.startswith(f"[{index}]"), what=f"[{index}] in the detail pane")
    return pane


def test_source_and_translation_side_by_side(snap_compare: Callable[..., bool], showcase: Path) -> None:
    async def before(pilot: Pilot) -> None:
        pane = await settled_on(pilot, "4")  # two versions: the diff stands below the columns
        assert pane.side_by_side

    assert snap_compare(make_app(showcase, watch=False), run_before=before, terminal_size=(120, 40))


def test_detail_pane_zoomed(snap_compare: Callable[..., bool], showcase: Path) -> None:
    async def before(pilot: Pilot) -> None:
        pane = await settled_on(pilot, "8")  # 434 characters: far more than the pane shows under the table
        await pilot.press("z")
        await wait_for(pilot, lambda: pane.is_maximized and pane.size.height > 7, what="the zoomed pane")

    assert snap_compare(make_app(showcase, watch=False), run_before=before, terminal_size=(80, 24))
