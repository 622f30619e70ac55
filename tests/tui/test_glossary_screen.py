"""The glossary in the workstation: its screen (80x24, keyboard only) and the entries of the paragraph under the
cursor in the detail pane; every change checked on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from store.glossary import GlossaryEntry
from store.glossary_commit import GlossaryStore, add_entry
from store.workspace import Workspace
from tests.tui.conftest import SIZE, Messages, make_app, wait_for
from tui.messages import GlossaryChanged
from tui.screens.chapter import ChapterScreen
from tui.screens.glossary import GlossaryScreen
from tui.widgets.detail_pane import DetailPane


def seed(folder: Path) -> GlossaryStore:
    store = GlossaryStore(Workspace(folder))
    store.change(add_entry(GlossaryEntry(id="e1", source="段落", target="paragraph", note="the unit")))
    store.change(add_entry(GlossaryEntry(id="e2", source="四つ目", target="fourth", status="proposed", origin="model")))
    return store


async def test_the_detail_pane_shows_the_paragraph_s_glossary_entries(review_path: Path) -> None:
    seed(review_path.parent)
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        detail = screen.query_one(DetailPane)
        await wait_for(pilot, lambda: "Glossary: 段落 → paragraph" in detail.plain, what="the first paragraph's terms")
        for _ in range(3):  # [4] 四つ目の段落です。 (the empty [3] is skipped or passed over)
            await pilot.press("down")
        await wait_for(pilot, lambda: "四つ目 → fourth (proposed)" in detail.plain, what="[4]'s terms")
        assert "Glossary: 四つ目 → fourth (proposed) · 段落 → paragraph" in detail.plain  # order of mention


@pytest.mark.slow
async def test_add_edit_approve_filter_remove_at_80x24(review_path: Path) -> None:
    store = seed(review_path.parent)
    app = make_app(review_path, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("G")
        await wait_for(pilot, lambda: isinstance(app.screen, GlossaryScreen), what="the glossary screen")
        screen = app.screen
        assert isinstance(screen, GlossaryScreen)
        assert [e.id for e in screen.shown] == ["e1", "e2"]
        # a: source, then its translation
        await pilot.press("a", *"一つ目", "enter")
        await pilot.press(*"first", "enter")
        await wait_for(pilot, lambda: store.load().by_source("一つ目") is not None, what="the new entry on disk")
        added = store.load().by_source("一つ目")
        assert added is not None and added.target == "first" and added.status == "approved"
        # v approves the proposed entry under the cursor, e edits its target
        await wait_for(pilot, lambda: len(screen.shown) == 3, what="the list with the new entry")
        await pilot.press("down")
        assert screen.current is not None and screen.current.id == "e2"
        await pilot.press("v")
        await wait_for(pilot, lambda: store.load().by_id("e2").status == "approved", what="e2 approved")  # type: ignore[union-attr]
        await pilot.press("e", *"the fourth", "enter")  # the old value is selected: typing replaces it
        await wait_for(pilot, lambda: store.load().by_id("e2").target == "the fourth", what="e2 edited")  # type: ignore[union-attr]
        # / filters, d removes (after asking)
        await pilot.press("slash", *"first", "enter")
        await wait_for(pilot, lambda: [e.id for e in screen.shown] == [added.id], what="the filter")
        await pilot.press("d", "enter")
        await wait_for(pilot, lambda: store.load().by_source("一つ目") is None, what="the entry removed")
        assert [e.id for e in store.load().entries] == ["e1", "e2"]
        # a second entry for a source already there is refused in one sentence, nothing written
        before = store.path.read_bytes()
        await pilot.press("slash", "backspace", "enter")
        await pilot.press("a", *"段落", "enter", *"section", "enter")
        await wait_for(
            pilot,
            lambda: any("already has '段落'" in str(n.message) for n in app._notifications),
            what="the conflict notice",
        )
        assert store.path.read_bytes() == before
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, ChapterScreen), what="back to the chapter")


@pytest.mark.slow
async def test_the_screen_follows_an_edit_made_outside(review_path: Path) -> None:
    store = seed(review_path.parent)
    app = make_app(review_path, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("G")
        await wait_for(pilot, lambda: isinstance(app.screen, GlossaryScreen), what="the glossary screen")
        screen = app.screen
        data = json.loads(store.path.read_text(encoding="utf-8"))
        data["entries"].append({"id": "x1", "source": "六つ目", "target": "sixth", "note": "by hand"})
        store.path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        await wait_for(pilot, lambda: [e.id for e in screen.shown] == ["e1", "e2", "x1"], what="the hand edit")
        store.path.write_text("{broken", encoding="utf-8")
        await wait_for(pilot, lambda: "invalid JSON" in screen.status_text, what="the broken file named")
        assert [e.id for e in screen.shown] == ["e1", "e2", "x1"]  # the last good glossary stays


async def test_an_edit_on_the_glossary_screen_reaches_the_chapter_view(review_path: Path) -> None:
    """The edit is adopted without reading the file again, so the app tells every screen (the chapter view's
    entries and checks follow) instead of a reload doing it."""
    store = seed(review_path.parent)
    messages = Messages()
    app = make_app(review_path, watch=False)
    async with app.run_test(size=(80, 24), message_hook=messages) as pilot:
        chapter = app.screen
        assert isinstance(chapter, ChapterScreen)
        await wait_for(pilot, lambda: bool(messages.of(GlossaryChanged)), what="the first read of the glossary")
        await pilot.app.workers.wait_for_complete()
        before = len(messages.of(GlossaryChanged))
        await pilot.press("G")
        await wait_for(pilot, lambda: isinstance(app.screen, GlossaryScreen), what="the glossary screen")
        await pilot.press("a", *"三つ目", "enter", *"third", "enter")
        await wait_for(pilot, lambda: store.load().by_source("三つ目") is not None, what="the entry on disk")
        await wait_for(pilot, lambda: len(messages.of(GlossaryChanged)) > before, what="the screens told")
        assert "三つ目" in [e.source for e in app.workspace.glossary.snapshot.glossary.entries]  # type: ignore[union-attr]
