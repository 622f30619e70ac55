"""A run in the workstation commits through the chapter session's own store: the view shows what was committed
without reading its own writes back, and the watcher, seeded from the same store, parses nothing of ours."""

from __future__ import annotations

from pathlib import Path

import pytest

from store import commit, watch_read
from store.loader import load_chapter, parse_chapter
from store.model import Chapter
from tests.tui.conftest import SIZE, make_app, wait_for
from tui.screens.chapter import ChapterScreen


async def test_a_run_shows_its_commits_without_parsing_the_file_again(
    workspace_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = workspace_dir / "rashomon.json"
    parsed: list[str] = []

    def counting_parse(data: bytes, where: object) -> Chapter:
        parsed.append(str(where))
        return parse_chapter(data, where)  # type: ignore[arg-type]

    monkeypatch.setattr(commit, "parse_chapter", counting_parse)
    monkeypatch.setattr(watch_read, "parse_chapter", counting_parse)
    app = make_app(path)  # the watcher on, the offline demo model
    assert len(parsed) == 1  # the chapter view's own load
    parsed.clear()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        await wait_for(pilot, lambda: not app.seeding, what="the watcher's seed")
        assert parsed == []  # the watcher was seeded from the session's store: no second parse at start
        await pilot.press("t")
        await wait_for(pilot, lambda: screen.run_label.startswith("last run: complete"), what="the translate run")
        on_disk = load_chapter(path)
        shown = screen.session.chapter
        assert shown is not None and shown == on_disk  # what is shown is what was committed
        assert all(p.selected_text is not None for p in on_disk.paragraphs if not p.is_empty)
        assert parsed == []  # neither the view nor the watcher read our own commits back
