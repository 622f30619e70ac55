"""Edits made outside the app while it is open: reloads with a notice; invalid files kept, never written over."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from store.loader import load_chapter
from store.model import append_version
from store.serialize import chapter_bytes
from tests.tui.chapters import review_chapter, write
from tests.tui.conftest import SIZE, make_app, screen_text, wait_for, workers_done
from tui.screens.chapter import ChapterScreen
from tui.screens.chapter_list import ChapterListScreen
from tui.widgets.log_pane import LogPane


def save_like_an_editor(path: Path, data: bytes) -> None:
    """Write a sibling file and rename it over the chapter, as most editors save."""
    temp = path.with_name(path.name + ".swp~")
    temp.write_bytes(data)
    os.replace(temp, path)


def notices(screen: ChapterScreen) -> list[str]:
    return [e.text for e in screen.query_one(LogPane).visible_entries if e.kind == "notice"]


@pytest.mark.slow
async def test_external_edit_reloads_with_a_notice(review_path: Path) -> None:
    app = make_app(review_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        await wait_for(pilot, lambda: not app.seeding, what="the watcher to start")
        chapter = load_chapter(review_path)
        para, _ = append_version(chapter.paragraphs[0], "Edited elsewhere.", origin="manual", model=None)
        save_like_an_editor(review_path, chapter_bytes(chapter.with_paragraphs({0: para})))
        await wait_for(
            pilot, lambda: any("changed on disk; reloaded" in n for n in notices(screen)), what="the reload notice"
        )
        await wait_for(pilot, lambda: "Edited elsewhere." in screen_text(app), what="the row to show the edit")
        assert screen.session.chapter is not None
        assert screen.session.chapter.paragraphs[0].selected_text == "Edited elsewhere."


@pytest.mark.slow  # the watcher's re-reads before a file counts as invalid, twice
async def test_invalid_file_is_reported_kept_and_never_written_over(review_path: Path) -> None:
    app = make_app(review_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        await wait_for(pilot, lambda: not app.seeding, what="the watcher to start")
        broken = review_path.read_bytes()[:-40]  # truncated JSON
        save_like_an_editor(review_path, broken)
        await wait_for(
            pilot,
            lambda: any("is not valid on disk" in n for n in notices(screen)),
            timeout=15,
            what="the invalid-file notice",
        )
        assert "FILE INVALID ON DISK" in screen_text(app)
        assert "p0000001" in screen_text(app)  # the last good state stays on screen
        # Edits are refused: review, edit, select — the person's file is never overwritten.
        await pilot.press("down", "m")
        await pilot.press("e", "ctrl+u", *"nope", "ctrl+s")
        await pilot.press("left_square_bracket", "enter")
        # each of the three commits ran and reported its refusal; only then is "never written" a finding
        await workers_done(pilot)
        await wait_for(pilot, lambda: sum("not saved" in n for n in notices(screen)) == 3, what="three refusals")
        assert review_path.read_bytes() == broken
        # A run is refused too.
        await pilot.press("t")
        assert not screen.run_in_progress
        # Once fixed on disk, the chapter reloads and edits work again.
        save_like_an_editor(review_path, chapter_bytes(review_chapter()))
        await wait_for(pilot, lambda: screen.session.invalid is None, timeout=15, what="the fixed file")
        await pilot.press("m")
        await wait_for(pilot, lambda: load_chapter(review_path).paragraphs[1].reviewed, what="the review on disk")


@pytest.mark.slow
async def test_chapter_list_marks_changes_and_invalid_files(review_path: Path) -> None:
    other = write(review_path.with_name("other.json"), review_chapter().replace(id="other"))
    app = make_app(review_path.parent)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, ChapterListScreen)
        await wait_for(pilot, lambda: not app.seeding, what="the first scan")
        save_like_an_editor(other, b"{ not json")
        chapter = load_chapter(review_path)
        save_like_an_editor(review_path, chapter_bytes(chapter.replace(title="Renamed outside")))
        await wait_for(pilot, lambda: "Renamed outside" in screen_text(app), timeout=15, what="the new title")
        await wait_for(pilot, lambda: "invalid" in screen_text(app), timeout=15, what="the invalid mark")
        text = screen_text(app)
        assert "● " in text or "●" in text  # changed on disk
        assert "✗" in text
        assert other.read_bytes() == b"{ not json"


@pytest.mark.slow
async def test_an_outside_revert_of_a_runs_commits_is_told_at_once_and_can_be_restored(small_path: Path) -> None:
    from tui.screens.conflicts import ConflictsScreen

    original = small_path.read_bytes()
    app = make_app(small_path)  # the offline demo model, the watcher on
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        await wait_for(pilot, lambda: not app.seeding, what="the watcher to start")
        await pilot.press("t")
        await wait_for(pilot, lambda: (screen.run_label or "").startswith("last run: complete"), what="the run")
        written = set(screen.session.run_changed)
        assert written  # the rows say "changed by the run"
        save_like_an_editor(small_path, original)  # a stale editor buffer saved over the run's commits
        await wait_for(
            pilot, lambda: any("REVERTED_ON_DISK" in n for n in notices(screen)), what="the revert, told at once"
        )
        assert not screen.session.run_changed & written  # the markers went
        await wait_for(pilot, lambda: len(screen.session.conflicts) == len(written), what="the conflicts recorded")
        assert {c.record.paragraph_id for c in screen.session.conflicts} == written
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictsScreen), what="the conflicts list")
        await pilot.press("o")  # keep ours: the run's text back
        await wait_for(pilot, lambda: len(screen.session.conflicts) == len(written) - 1, what="one resolved")
    restored = [p for p in load_chapter(small_path).paragraphs if p.selected_text]
    assert len(restored) == 1 and restored[0].selected_text.startswith("[demo")  # type: ignore[union-attr]
