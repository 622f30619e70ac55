"""The SVG snapshot of the review queue at 80x24 (pytest-textual-snapshot): a suggestion that is rewritten and
outdated, its reason, the source, and the current text and the suggestion with the change marked on each side.

Like ``test_snapshots.py`` it records one Textual version (``snapshots_textual_version.txt``) and fails with one
message when another is installed; re-record with ``pytest tests/tui/test_snapshots_queue.py --snapshot-update``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot

from tests.tui.chapters import write
from tests.tui.conftest import make_app, wait_for, workers_done
from tests.tui.queue_chapters import queue_chapter
from tests.tui.snapshot_guard import same_textual_version  # noqa: F401 (an autouse fixture)
from tui.screens.suggestions import SuggestionsScreen


def test_the_review_queue(snap_compare: Callable[..., bool], tmp_path: Path) -> None:
    path = write(tmp_path / "queue.json", queue_chapter())

    async def before(pilot: Pilot) -> None:
        await workers_done(pilot)
        await pilot.press("S")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, SuggestionsScreen), what="the queue")
        await pilot.press("k")  # the last one, [5]: rewritten and outdated

    assert snap_compare(make_app(path, watch=False), run_before=before, terminal_size=(80, 24))
