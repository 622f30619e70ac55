"""The chapter view's QA warnings follow the glossary: after another program's edit, an edit on the glossary screen
and an approval there, the count shown equals ``proofdesk check``'s for the files on disk (GLOSSARY_NOT_APPLIED
is checked again with the approved terms now)."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from store.glossary import GlossaryEntry
from store.glossary_commit import GlossaryStore, add_entry, approve_entries
from store.model import Chapter, Paragraph
from store.workspace import Workspace
from tests.tui.chapters import version, write
from tests.tui.conftest import SIZE, make_app, wait_for
from tui.app import ProofdeskApp
from tui.cli import main
from tui.screens.chapter import ChapterScreen
from tui.screens.glossary import GlossaryScreen


def _para(n: int, source: str, translation: str) -> Paragraph:
    v = version(f"v{n:07d}", translation)
    return Paragraph(id=f"p{n:07d}", text=source, translations=(v,), selected_translation_id=v.id)


def servant_chapter() -> Chapter:
    """Rashomon's servant and old woman, translated with and without the glossary's words."""
    pairs = [
        ("　下人は雨やみを待っていた。", "The servant waited for the rain to stop."),
        ("　老婆は笑った。", "The crone laughed."),
        ("　下人は老婆を見た。", "The servant looked at the old woman."),
        ("　老婆は黙った。", "She said nothing."),
        ("　下人は梯子を上った。", "The lackey climbed the ladder."),
    ]
    return Chapter(
        id="servant",
        title="Servant",
        source_language="ja",
        target_language="en",
        paragraphs=tuple(_para(n, s, t) for n, (s, t) in enumerate(pairs, 1)),
    )


@pytest.fixture
def servant_path(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    store = GlossaryStore(Workspace(folder))
    store.change(add_entry(GlossaryEntry(id="e1", source="下人", target="the servant")))
    store.change(add_entry(GlossaryEntry(id="e2", source="老婆", target="the old woman", status="proposed")))
    return write(folder / "servant.json", servant_chapter())


def check_count(path: Path) -> int:
    """How many warnings ``proofdesk check CHAPTER --json`` reports for the files on disk."""
    out = io.StringIO()
    with redirect_stdout(out):  # the app under test holds sys.stdout: the command writes here
        main(["check", str(path), "--json"])
    return len(json.loads(out.getvalue()))


def shown(app: ProofdeskApp) -> int:
    """The warning count the chapter view shows (-1 while its checks are not those of the chapter yet)."""
    view = next(s for s in app.screen_stack if isinstance(s, ChapterScreen))
    return view.checks.warnings.count if not view.checks.checking else -1


async def _settled(pilot: Pilot, app: ProofdeskApp, want: int, what: str) -> None:
    await wait_for(pilot, lambda: shown(app) == want, what=f"{what}: {want} warnings (shown {shown(app)})")


async def test_another_programs_approval_reaches_the_warnings(servant_path: Path) -> None:
    app = make_app(servant_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        before = check_count(servant_path)
        await _settled(pilot, app, before, "the first checks")
        GlossaryStore(Workspace(servant_path.parent)).change(approve_entries(["e2"]))  # another program's edit
        after = check_count(servant_path)
        assert after == before + 2  # [2] and [4] miss "the old woman"
        await _settled(pilot, app, after, "the checks with the approved old woman")


async def test_an_approval_on_the_glossary_screen_reaches_the_warnings(servant_path: Path) -> None:
    app = make_app(servant_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        before = check_count(servant_path)
        await _settled(pilot, app, before, "the first checks")
        await pilot.press("G")
        await wait_for(pilot, lambda: isinstance(app.screen, GlossaryScreen), what="the glossary screen")
        await pilot.press("down", "v")
        store = GlossaryStore(Workspace(servant_path.parent))
        await wait_for(pilot, lambda: store.load().by_id("e2").status == "approved", what="e2 approved")  # type: ignore[union-attr]
        await pilot.press("b")
        after = check_count(servant_path)
        assert after == before + 2
        await _settled(pilot, app, after, "the checks after the approval")


async def test_an_edit_on_the_glossary_screen_reaches_the_warnings(servant_path: Path) -> None:
    app = make_app(servant_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        before = check_count(servant_path)
        await _settled(pilot, app, before, "the first checks")
        await pilot.press("G")
        await wait_for(pilot, lambda: isinstance(app.screen, GlossaryScreen), what="the glossary screen")
        await pilot.press("e", *"the lackey", "enter")  # e1: 下人 → the lackey ([5] applies it, [1] and [3] not)
        store = GlossaryStore(Workspace(servant_path.parent))
        await wait_for(pilot, lambda: store.load().by_id("e1").target == "the lackey", what="e1 edited")  # type: ignore[union-attr]
        after = check_count(servant_path)
        assert after == before + 1
        await _settled(pilot, app, after, "the checks with the edited target")


async def test_terms_that_change_before_the_first_frame_are_the_ones_checked(
    servant_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first computation waits for the first frame; a glossary read before it must not leave the view
    "checking" for good. (It did when a computation with the newer terms was still running at that frame: the
    first one, of the older terms, replaced it and was then dropped as stale.)"""
    import threading

    from engine.checks.incremental import NO_TERMS, NO_WARNINGS, ChapterChecks

    update = ChapterChecks.update
    released = threading.Event()  # set once the first frame's callbacks ran (the deferred computation is started)

    def held_with_terms(self: ChapterChecks, chapter: Chapter, glossary: object = None, **kw: Any) -> object:
        if glossary is not NO_TERMS:  # the newer computation: still running when the first frame comes
            while not released.wait(0.01):  # an event, looked at with the worker's cancel flag
                if kw["stop"]():
                    return None
            if kw["stop"]():  # replaced by the deferred computation: gives up, as a big chapter's does
                return None
        return update(self, chapter, glossary, **kw)  # type: ignore[arg-type]

    app = make_app(servant_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        before = check_count(servant_path)
        await _settled(pilot, app, before, "the first checks")
        view = next(s for s in app.screen_stack if isinstance(s, ChapterScreen))
        control, real, chapter = view.checks, view.checks.glossary_terms, view.session.chapter
        monkeypatch.setattr(ChapterChecks, "update", held_with_terms)
        # As at mount: nothing shown yet, and the next computation is the first, started after a frame.
        control._wanted, control.warnings, control._shown_terms = None, NO_WARNINGS, NO_TERMS
        control.glossary_terms = lambda: NO_TERMS  # the glossary not read yet
        control.want(chapter)
        control.glossary_terms = real  # read before the first frame: the same chapter wanted with its terms
        control.want(chapter)
        control.call_after_refresh(released.set)  # runs after the deferred start, registered before it
        await _settled(pilot, app, before, "the checks with the glossary read")
