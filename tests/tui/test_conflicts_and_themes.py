"""Conflicts from the store listed and resolved (keep ours / keep theirs / edit), and the themes: built-ins,
ansi-dark / ansi-light, and NO_COLOR."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.config import Config
from store.conflicts import ConflictRecord, list_conflicts, write_conflicts
from store.loader import load_chapter
from store.workspace import Workspace
from tests.tui.chapters import STAMP, review_chapter, version, write
from tests.tui.conftest import SIZE, make_app, sample_bytes, screen_text, wait_for
from tui.screens.chapter import ChapterScreen
from tui.screens.conflicts import ConflictsScreen


@pytest.fixture
def chapter_path(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    chapter = review_chapter()
    para = chapter.paragraphs[1]
    # the run appended v3 without taking the selection: a person had chosen v2
    kept = para.replace(translations=(*para.translations, version("v0000009", "The second, by the model.")))
    path = write(folder / "review.json", chapter.with_paragraphs({1: kept}))
    write_conflicts(
        Workspace(folder),
        path,
        [
            ConflictRecord(
                chapter_file=path.name,
                chapter_id="review",
                paragraph_id="p0000002",
                kind="selection_kept",
                base_source=para.text,
                current_source=para.text,
                our_text="The second, by the model.",
                our_version_id="v0000009",
                their_selected_id="v0000002",
                their_text="This is the 2nd paragraph, polished.",
                origin="translation",
                model="m",
                created_at=STAMP,
            ),
            ConflictRecord(
                chapter_file=path.name,
                chapter_id="review",
                paragraph_id="p0000005",
                kind="stale_source",
                base_source="五つ目の古い段落。",
                current_source="五つ目の段落です。",
                our_text="The old fifth.",
                origin="translation",
                model="m",
                created_at=STAMP,
            ),
        ],
    )
    return path


@pytest.mark.slow  # two records resolved two ways, each awaited on disk
async def test_conflicts_are_listed_and_resolved_through_the_store(chapter_path: Path) -> None:
    app = make_app(chapter_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        await wait_for(pilot, lambda: "2 conflicts" in screen_text(app), what="the conflicts to load")
        statuses = [screen.table.status_of(p) for p in load_chapter(chapter_path).paragraphs]
        assert statuses[1] == "conflict" and statuses[4] == "conflict"
        await pilot.press("c")
        assert isinstance(app.screen, ConflictsScreen)
        await wait_for(pilot, lambda: "your selection was kept" in screen_text(app), what="the first record")
        await pilot.press("o")  # keep ours: select the run's version
        await wait_for(
            pilot,
            lambda: load_chapter(chapter_path).paragraphs[1].selected_translation_id == "v0000009",
            what="our version selected on disk",
        )
        await wait_for(pilot, lambda: "source text changed on disk" in screen_text(app), what="the second record")
        await pilot.press("e", "ctrl+u", *"The fifth, merged by hand.", "ctrl+s")
        await wait_for(
            pilot,
            lambda: load_chapter(chapter_path).paragraphs[4].selected_text == "The fifth, merged by hand.",
            what="the edited resolution on disk",
        )
        await wait_for(
            pilot,
            lambda: not list_conflicts(Workspace(chapter_path.parent), chapter_path),
            what="both records resolved",
        )
        await pilot.press("escape")
        assert app.screen is screen
        await wait_for(pilot, lambda: "conflict" not in screen_text(app), what="the statuses to clear")
        assert load_chapter(chapter_path).paragraphs[4].selected.origin == "manual"


@pytest.mark.parametrize(
    "theme",
    [
        *(
            pytest.param(name, marks=pytest.mark.slow)  # the default one in the quick loop
            for name in ("ansi-dark", "ansi-light", "textual-light")
        ),
        "proofdesk",
    ],
)
async def test_every_theme_renders(tmp_path: Path, theme: str) -> None:
    path = tmp_path / "rashomon.json"
    path.write_bytes(sample_bytes())
    app = make_app(path, config=Config(theme=theme), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "question_mark")
        assert app.theme == theme
        assert "Keys — Chapter" in screen_text(app)


async def test_no_color_renders_in_greys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    path = tmp_path / "rashomon.json"
    path.write_bytes(sample_bytes())
    app = make_app(path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down")
        svg = app.export_screenshot()
    frame = {"#ff5f57", "#febc2e", "#28c840", "#c5c8c6"}  # the SVG frame: window buttons, default text
    colours = set(re.findall(r'fill="#([0-9a-f]{6})"', svg)) - {c[1:] for c in frame}
    assert colours and all(c[0:2] == c[2:4] == c[4:6] for c in colours), colours
