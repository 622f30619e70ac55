"""SVG snapshots of QA warnings on the chapter view (pytest-textual-snapshot): rows marked, the count in the status
line, the warnings of the paragraph under the cursor with their places highlighted in the translation at 80x24,
and the rows filtered to paragraphs with warnings at 120x40 (source and translation side by side).

Like ``test_snapshots.py`` they record one Textual version (``snapshots_textual_version.txt``) and fail with one
message when another is installed; re-record with ``pytest tests/tui/test_snapshots_checks.py --snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.tui.chapters import write
from tests.tui.conftest import make_app, wait_for, workers_done
from tests.tui.snapshot_guard import same_textual_version  # noqa: F401 (an autouse fixture)
from tests.tui.test_checks_view import checks_chapter
from tui.app import ProofdeskApp
from tui.screens.chapter import ChapterScreen
from tui.screens.choice import ChoiceScreen
from tui.widgets.detail_pane import DetailPane


@pytest.fixture
def checks_path(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return write(folder / "checks.json", checks_chapter())


def checks_app(path: Path) -> ProofdeskApp:
    """The app on the chapter with a named model (no run is made): the demo model on a chapter that is not the
    bundled sample turns the status line red, which is not what these snapshots show."""
    return make_app(path, watch=False, model="test-model", base_url="http://127.0.0.1:1/v1")


async def checked(pilot: Pilot) -> ChapterScreen:
    """The chapter view once its warnings are shown and every worker is done."""
    screen = pilot.app.screen
    assert isinstance(screen, ChapterScreen)
    await wait_for(
        pilot, lambda: screen.warnings.chapter is screen.session.chapter is not None, what="the warnings of the chapter"
    )
    await workers_done(pilot)
    return screen


def test_chapter_view_with_warnings(snap_compare: Callable[..., bool], checks_path: Path) -> None:
    async def before(pilot: Pilot) -> None:
        screen = await checked(pilot)
        await pilot.press("w", "w")  # [4]: KANA_LEFT and CJK_LEFT, each with its place in the translation
        pane = screen.query_one(DetailPane)
        await wait_for(pilot, lambda: pane.plain.startswith("[4]"), what="[4] in the detail pane")

    assert snap_compare(checks_app(checks_path), run_before=before, terminal_size=(80, 24))


def test_rows_filtered_to_warnings_side_by_side(snap_compare: Callable[..., bool], checks_path: Path) -> None:
    async def before(pilot: Pilot) -> None:
        screen = await checked(pilot)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ChoiceScreen), what="the choice of codes")
        await pilot.press("enter")  # any warning
        await wait_for(pilot, lambda: screen.table.only_ids is not None, what="the filter")
        await pilot.press("end")  # [4]
        pane = screen.query_one(DetailPane)
        await wait_for(pilot, lambda: pane.plain.startswith("[4]") and pane.side_by_side, what="[4] side by side")

    assert snap_compare(checks_app(checks_path), run_before=before, terminal_size=(120, 40))
