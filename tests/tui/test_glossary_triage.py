"""Glossary triage on G (80x24, keyboard only): mark entries (m: the one under the cursor, M: every one the filter
shows), approve or remove the marked ones in one commit, set an entry's kind and gender from a short list; every
change checked on disk, and every key listed by ? within 80 columns."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from store.glossary import Glossary, GlossaryEntry
from store.glossary_commit import GlossaryStore, add_entries
from store.workspace import Workspace
from tests.tui.conftest import make_app, wait_for
from tui.app import ProofdeskApp
from tui.screens.choice import ChoiceScreen
from tui.screens.glossary import GlossaryScreen
from tui.screens.help import HelpScreen

SIZE = (80, 24)


def _entry(entry_id: str, source: str, target: str = "", **fields: Any) -> GlossaryEntry:
    if not target:
        fields = {"status": "proposed", "origin": "extract", "note": "found 3 times", **fields}
    return GlossaryEntry(id=entry_id, source=source, target=target, created_at="2026-11-23T10:00:00Z", **fields)


@pytest.fixture
def store(review_path: Path) -> GlossaryStore:
    """The review chapter's workspace with an approved entry, four candidates from extract (two already given a
    target by hand) and a model's proposal."""
    store = GlossaryStore(Workspace(review_path.parent))
    store.change(
        add_entries(
            [
                _entry("e1", "段落", "paragraph"),
                _entry("c1", "下人"),
                _entry("c2", "老婆"),
                _entry("c3", "羅生門", "Rashomon", status="proposed", origin="extract"),
                _entry("c4", "太刀", "the sword", status="proposed", origin="extract"),
                _entry("m1", "四つ目", "fourth", status="proposed", origin="model"),
            ]
        )
    )
    return store


async def open_glossary(pilot: Pilot, app: ProofdeskApp) -> GlossaryScreen:
    await pilot.press("G")
    await wait_for(pilot, lambda: isinstance(app.screen, GlossaryScreen), what="the glossary screen")
    screen = app.screen
    assert isinstance(screen, GlossaryScreen)
    await wait_for(pilot, lambda: len(screen.shown) == 6, what="the six entries")
    return screen


async def filter_by(pilot: Pilot, screen: GlossaryScreen, text: str, count: int) -> None:
    await pilot.press("slash", *(text or ["backspace"]), "enter")
    await wait_for(pilot, lambda: len(screen.shown) == count, what=f"the filter {text!r}: {count} entries")


def counting_changes(store_of: GlossaryStore, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that gets one item per locked glossary commit of ``store_of`` (the screen's view)."""
    calls: list[int] = []
    real: Callable[..., Glossary] = store_of.change

    def change(edit: Callable[[Glossary], Glossary]) -> Glossary:
        calls.append(1)
        return real(edit)

    monkeypatch.setattr(store_of, "change", change)
    return calls


async def test_m_marks_the_entry_under_the_cursor_and_shift_m_every_one_shown(store: GlossaryStore) -> None:
    app = make_app(store.path.parent / "review.json", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_glossary(pilot, app)
        await pilot.press("m")  # marks 段落 and moves to the next entry
        assert screen.marked == {"e1"} and screen.current is not None and screen.current.id == "c1"
        await pilot.press("m", "up", "up", "m")  # marks 下人, then unmarks 段落
        assert screen.marked == {"c1"}
        assert "1 marked" in screen.status_text
        assert screen.line_of("c1").startswith("*") and not screen.line_of("e1").startswith("*")
        await filter_by(pilot, screen, "extract", 4)  # the filter looks at the origin too
        await pilot.press("M")
        assert screen.marked == {"c1", "c2", "c3", "c4"} and "4 marked" in screen.status_text
        await pilot.press("M")  # all shown were marked: M unmarks them
        assert screen.marked == set()
        await pilot.press("M")
        await filter_by(pilot, screen, "", 6)  # the filter cleared (typing replaces the old one): the marks stay
        assert screen.marked == {"c1", "c2", "c3", "c4"} and "4 marked" in screen.status_text


async def test_v_approves_every_marked_entry_with_a_target_in_one_commit(
    store: GlossaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(store.path.parent / "review.json", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_glossary(pilot, app)
        commits = counting_changes(screen.view.store, monkeypatch)
        await filter_by(pilot, screen, "extract", 4)
        await pilot.press("M", "v")
        await wait_for(pilot, lambda: store.load().by_id("c3").status == "approved", what="the approval on disk")  # type: ignore[union-attr]
        on_disk = {e.id: e.status for e in store.load().entries}
        assert on_disk == {
            "e1": "approved",
            "c1": "proposed",  # no target yet: left proposed, and said so
            "c2": "proposed",
            "c3": "approved",
            "c4": "approved",
            "m1": "proposed",
        }
        assert commits == [1]
        await wait_for(pilot, lambda: screen.marked == set(), what="the marks used")
        notes = [str(n.message) for n in app._notifications]
        assert any("approved 2" in n and "2 without a translation" in n for n in notes)


async def test_d_removes_every_marked_entry_in_one_commit_after_asking(
    store: GlossaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(store.path.parent / "review.json", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_glossary(pilot, app)
        commits = counting_changes(screen.view.store, monkeypatch)
        await filter_by(pilot, screen, "extract", 4)
        await pilot.press("M", "d")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the question")
        question = app.screen
        assert isinstance(question, ChoiceScreen) and question.title_text == "Remove the 4 marked entries?"
        await pilot.press("escape")  # kept: nothing written
        await wait_for(pilot, lambda: app.screen is screen, what="back on the list")
        assert len(store.load().entries) == 6 and screen.marked == {"c1", "c2", "c3", "c4"}
        await pilot.press("d", "enter")
        await wait_for(pilot, lambda: len(store.load().entries) == 2, what="the removal on disk")
        assert [e.id for e in store.load().entries] == ["e1", "m1"] and commits == [1]
        await wait_for(pilot, lambda: screen.shown == [] and screen.marked == set(), what="the list after")


async def test_k_and_g_set_kind_and_gender_from_a_short_list(
    store: GlossaryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(store.path.parent / "review.json", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_glossary(pilot, app)
        await pilot.press("down", "down")  # 老婆
        assert screen.current is not None and screen.current.id == "c2"
        await pilot.press("k")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the kinds")
        assert list(app.screen.choices) == ["term (now)", "character", "place", "do_not_translate"]  # type: ignore[attr-defined]
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: store.load().by_id("c2").kind == "character", what="the kind on disk")  # type: ignore[union-attr]
        await pilot.press("g")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the genders")
        assert list(app.screen.choices) == ["female", "male", "other", "none (now)"]  # type: ignore[attr-defined]
        await pilot.press("enter")
        await wait_for(pilot, lambda: store.load().by_id("c2").gender == "female", what="the gender on disk")  # type: ignore[union-attr]
        # with marks, k sets the kind of every marked entry in one commit
        commits = counting_changes(screen.view.store, monkeypatch)
        await pilot.press("up", "m", "m")  # 下人 and 老婆 marked
        assert screen.marked == {"c1", "c2"}
        await pilot.press("k")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the kinds")
        assert app.screen.title_text == "Kind of the 2 marked entries"  # type: ignore[attr-defined]
        await pilot.press("down", "down", "enter")
        await wait_for(pilot, lambda: store.load().by_id("c1").kind == "place", what="the kinds on disk")  # type: ignore[union-attr]
        assert store.load().by_id("c2").kind == "place" and store.load().by_id("c2").gender == "female"  # type: ignore[union-attr]
        assert commits == [1]


async def test_help_lists_the_glossary_keys_within_80_columns(store: GlossaryStore) -> None:
    app = make_app(store.path.parent / "review.json", watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_glossary(pilot, app)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.render_help().plain
        ids = [b.id for b in GlossaryScreen.BINDINGS]  # type: ignore[attr-defined]
        assert {"glossary.mark", "glossary.mark_shown", "glossary.kind", "glossary.gender"} <= set(ids)
        assert all(i in text for i in ids)
        assert max(len(line) for line in text.splitlines()) <= 80
