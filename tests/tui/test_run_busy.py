"""A chapter another run is working on: the workstation says who, and runs anyway only when asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.lock import RunLock
from store.workspace import Workspace
from tests.tui.conftest import SIZE, make_app, wait_for
from tui.screens.chapter import ChapterScreen
from tui.screens.choice import ChoiceScreen


@pytest.mark.slow
async def test_a_busy_chapter_asks_before_running_anyway(small_path: Path) -> None:
    held = RunLock(Workspace(small_path.parent), small_path)
    held.acquire("translate")  # as a headless `proofdesk run` in another terminal would
    try:
        app = make_app(small_path, watch=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, ChapterScreen)
            await pilot.press("t")
            await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the question")
            question = app.screen
            assert isinstance(question, ChoiceScreen)
            assert "another run is translating small.json" in question.title_text.lower()
            assert "--force" not in question.title_text
            await pilot.press("down", "enter")  # "Do not run"
            await wait_for(pilot, lambda: app.screen is screen, what="back to the chapter")
            assert screen.session.chapter is not None
            assert all(p.selected_text is None for p in screen.session.chapter.paragraphs)  # nothing ran
            await pilot.press("t")
            await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the question again")
            await pilot.press("enter")  # "Run anyway"
            await wait_for(
                pilot,
                lambda: screen.run_label is not None and screen.run_label.startswith("last run: complete"),
                what="the forced run",
            )
            texts = [p.selected_text for p in screen.session.chapter.paragraphs if p.text.strip()]
            assert texts and all(texts)
    finally:
        held.release()
