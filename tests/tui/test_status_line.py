"""The chapter view's status line fits the terminal (issue 25.12): its parts in priority order — run state, cost,
search, warnings (the demo model's among them), suggestions, conflicts; the progress, the model, the separators,
the file and the title last — the lowest shortened or left out first, two lines when what must be said needs
them; and every hint line (the footer, the prompts' and the modals' hints) within 80 columns."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.text import Text
from textual.app import App
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Footer, Label, Static
from textual.widgets._footer import FooterKey

from store.merge import BatchItem, merge_batch
from store.model import Chapter, Paragraph
from tests.tui.chapters import STAMP, version, write
from tests.tui.conftest import make_app, screen_text, wait_for
from tui.screens.chapter import ChapterScreen
from tui.screens.text_view import TextViewScreen
from tui.status_fit import Part, fit_lines


def _translated(pid: str, source: str, text: str) -> Paragraph:
    v = version("v" + pid[1:], text)
    return Paragraph(id=pid, text=source, translations=(v,), selected_translation_id=v.id)


def busy_chapter() -> Chapter:
    """Japanese into English: [1] kept kana and kanji (two warnings) and has a pending suggestion, [2] lost its
    number (a warning), [3]–[5] wait for a translation (a run has work to do); "門" is in [1], [2] and [4]."""
    base = Chapter(
        id="busy",
        title="羅生門 — the long title of a busy chapter",
        source_language="ja",
        target_language="en",
        paragraphs=(
            _translated(
                "p0000001", "下人は羅生門の下で雨やみを待っていた。", "The servant waited at the 羅生門, まだ."
            ),
            _translated("p0000002", "彼は１２時に門へ帰った。", "He went back to the gate at two."),
            Paragraph(id="p0000003", text="雨は遠くから音をあつめて来る。"),
            Paragraph(id="p0000004", text="夕闇は門の上の空を低くして行った。"),
            Paragraph(id="p0000005", text="下人は雨を眺めていた。"),
        ),
    )
    item = BatchItem.based_on(base.paragraphs[1], "He went back to the gate at twelve.", category="mistranslation")
    return merge_batch(base, [item], origin="proofreading", model="model-a", apply=False, created_at=STAMP).chapter


# -- fitting (no app) ----------------------------------------------------------------------------------------------


def test_parts_stay_in_order_and_the_lowest_go_first() -> None:
    parts = [Part.of("running translate · chunk 1/3", "translate 1/3"), Part.of("12 warnings: w")]
    parts += [Part.of("file.json", droppable=True), Part.of("A title", droppable=True)]
    assert fit_lines(parts, 200) == ["running translate · chunk 1/3 · 12 warnings: w · file.json · A title"]
    assert fit_lines(parts, 60) == ["running translate · chunk 1/3 · 12 warnings: w · file.json"]
    assert fit_lines(parts, 48) == ["running translate · chunk 1/3 · 12 warnings: w"]
    assert fit_lines(parts, 30) == ["translate 1/3 · 12 warnings: w"]
    # what must stay does not fit one line even shortened: two lines, from the full wordings again
    assert fit_lines(parts, 29) == ["running translate · chunk 1/3", "12 warnings: w · file.json"]


def test_cells_are_counted_not_characters() -> None:
    parts = [Part.of("1 of 6"), Part.of("羅生門羅生門羅生門", "羅生…", droppable=True)]
    assert fit_lines(parts, 27) == ["1 of 6 · 羅生門羅生門羅生門"]  # 6 + 3 + 18 cells
    assert fit_lines(parts, 26) == ["1 of 6 · 羅生…"]
    assert fit_lines([Part.of("x" * 30)], 20) == ["x" * 30]  # nothing fits: the widget cuts it


# -- the chapter view at 80, 120 and 200 columns -----------------------------------------------------------------


def status_lines(screen: ChapterScreen) -> list[str]:
    content = screen.query_one("#chapter-status", Static).content
    assert isinstance(content, Text)
    return content.plain.split("\n")


def in_order(text: str, markers: list[str]) -> bool:
    """Whether every marker is in ``text``, each after the one before."""
    at = 0
    for marker in markers:
        found = text.find(marker, at)
        if found < 0:
            return False
        at = found + len(marker)
    return True


async def busy_view(pilot: Pilot) -> ChapterScreen:
    """A run going (the demo model, slowed down), a search, warnings, a suggestion, the demo warning."""
    screen = pilot.app.screen
    assert isinstance(screen, ChapterScreen)
    await wait_for(pilot, lambda: screen.warnings.count == 3, what="the warnings")
    await pilot.press("slash", *"門", "enter")
    await wait_for(pilot, lambda: screen.search is not None, what="the search")
    await pilot.press("t")
    run = screen.runs.run_status
    await wait_for(pilot, lambda: run.running and run.turn >= 2 and bool(run.spent()), what="a run that spent tokens")
    await pilot.pause()
    return screen


EVERY_PART = ["translate", "tok", " of 3", "DEMO MODEL", "3 warnings: w", "1 sug: S"]
IN_FULL = ["running translate · chunk 1/1", "tok", "search '門': 2 of 3", "DEMO MODEL: writes placeholder text"]


@pytest.mark.parametrize(
    ("width", "lines", "shown", "left_out"),
    [
        (60, 2, EVERY_PART, ["羅生門"]),
        (80, 1, EVERY_PART, ["busy.json", "羅生門", "model demo", "done", "turn"]),
        (120, 1, [*EVERY_PART, "2/5 done"], ["busy.json", "羅生門"]),
        (200, 1, [*IN_FULL, "3 warnings: w", "1 sug: S", "2/5 done · 0 reviewed", "model demo"], ["busy.json"]),
    ],
)
async def test_the_status_line_keeps_what_matters_at_any_width(
    tmp_path: Path, width: int, lines: int, shown: list[str], left_out: list[str]
) -> None:
    (tmp_path / "ws").mkdir()
    path = write(tmp_path / "ws" / "busy.json", busy_chapter())
    app = make_app(path, watch=False)  # no model configured: the offline demo model, asked for
    app.demo_delay = 0.2
    async with app.run_test(size=(width, 30)) as pilot:
        screen = await busy_view(pilot)
        said = status_lines(screen)
        on_screen = screen_text(app).splitlines()[: len(said)]
        await pilot.press("x")
        await wait_for(pilot, lambda: not screen.run_in_progress, what="the run to stop")
    assert len(said) == lines
    assert all(cell_len(line) <= width for line in said)  # nothing is cut off
    assert [line.rstrip() for line in on_screen] == said
    whole = " · ".join(said)
    assert in_order(whole, shown), whole
    assert not [part for part in left_out if part in whole], whole


def test_what_is_left_out_comes_back_where_shortening_made_room() -> None:
    parts = [Part.of("x" * 20, "x" * 5), Part.of("yyyy", droppable=True)]
    assert fit_lines(parts, 12) == ["xxxxx · yyyy"]


# -- hint lines ------------------------------------------------------------------------------------------------------


def hints_fit(app: App[Any]) -> list[str]:
    """The hint lines of the screen shown that do not fit their one line (wrapped, or cut)."""
    bad = []
    for label in app.screen.query(".modal-hint, #queue-hint").results(Label):
        text = str(label.render())
        room = label.parent.content_region.width if isinstance(label.parent, Widget) else app.size.width
        if label.size.height != 1 or cell_len(text) > min(label.size.width, room):
            bad.append(text)
    return bad


def footer_fits(app: App[Any]) -> bool:
    """Whether every key of the footer is shown whole, none under another."""
    keys = sorted((key.region for key in app.screen.query(FooterKey)), key=lambda r: r.x)
    return all(a.right <= b.x for a, b in itertools.pairwise(keys)) and all(r.right <= app.size.width for r in keys)


async def test_every_hint_line_and_the_footer_fit_80_columns(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    path = write(tmp_path / "ws" / "busy.json", busy_chapter())
    app = make_app(path, watch=False)
    app.demo_delay = 0.2
    async with app.run_test(size=(80, 24)) as pilot:
        screen = pilot.app.screen
        assert isinstance(screen, ChapterScreen)
        await wait_for(pilot, lambda: screen.warnings.count == 3, what="the warnings")
        assert footer_fits(app)
        for keys in (["slash"], ["g"], ["e"], ["A"], ["question_mark"], ["o"], ["c"], ["S"]):
            await pilot.press(*keys)
            await wait_for(pilot, lambda: app.screen is not screen, what=f"the screen of {keys}")
            await pilot.pause()
            assert not hints_fit(app), (keys, hints_fit(app))
            assert not app.screen.query(Footer) or footer_fits(app), keys
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen, what="the chapter again")
        app.push_screen(TextViewScreen("Log: tool_result", "text"))
        await pilot.pause()
        assert not hints_fit(app)
        app.pop_screen()
        await pilot.press("t")
        await wait_for(pilot, lambda: screen.run_in_progress, what="the run")
        await pilot.pause()
        assert footer_fits(app)  # "x Cancel" is there too
        await pilot.press("x")
        await wait_for(pilot, lambda: not screen.run_in_progress, what="the run to stop")
