"""QA warnings on the chapter view: computed off the UI loop, marked on rows, jumped to with w / W, counted in
"needs review", listed with their places highlighted in the detail pane, dismissed with d (a commit checked on
disk), and used to filter the rows with o."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Static
from textual.worker import WorkerState

from engine.checks import check_chapter, dismiss, fingerprint, incremental
from engine.checks.dismissal import KEY as DISMISSED_KEY
from engine.checks.incremental import ChapterChecks
from store.edits import needs_review
from store.loader import load_chapter
from store.model import Chapter, Paragraph
from tests.bench.chapters import make_chapter, write_chapter
from tests.tui.chapters import review_chapter, showcase_chapter, version, write
from tests.tui.conftest import Messages, make_app, sample_bytes, screen_text, wait_for
from tui.screens.chapter import ChapterScreen
from tui.screens.choice import ChoiceScreen
from tui.widgets.detail_pane import DetailPane, _Pair
from tui.widgets.paragraph_rows import RowModel

SIZES = [(80, 24), (120, 40)]


def _para(pid: str, text: str, translation: str | None = None, *, reviewed: bool = False) -> Paragraph:
    if translation is None:
        return Paragraph(id=pid, text=text)
    v = version("v" + pid[1:], translation)
    return Paragraph(id=pid, text=text, translations=(v,), selected_translation_id=v.id, reviewed=reviewed)


def checks_chapter() -> Chapter:
    """Japanese into English, eight paragraphs: [1] lost its quotes (QUOTES_LOST), [2] has a number in kanji (no
    warning), [3] lost a full-width number (NUMBERS_DIFFER), [4] is reviewed but kept kana and kanji (KANA_LEFT,
    CJK_LEFT, each with its place), [5] is empty, [6] and [8] are clean, [7] is not translated."""
    return Chapter(
        id="checks",
        title="Checks test",
        source_language="ja",
        target_language="en",
        paragraphs=(
            _para("p0000001", "「おはよう」と彼は言った。", "Good morning, he said."),
            _para("p0000002", "三人の男が門の下に来た。", "Three men came under the gate."),
            _para("p0000003", "彼は１２時に家へ帰った。", "He went home at two o'clock."),
            _para(
                "p0000004",
                "下人は羅生門の下で雨やみを待っていた。",
                "The servant waited under the 羅生門 for the rain to stop, まだ.",
                reviewed=True,
            ),
            _para("p0000005", ""),
            _para(
                "p0000006",
                "雨は、羅生門をつつんで、遠くから、ざあっと云う音をあつめて来る。",
                "The rain wrapped the Rashomon gate and gathered a roaring sound from far away.",
            ),
            _para("p0000007", "「どこへ行く？」"),
            _para(
                "p0000008",
                "夕闇は次第に空を低くして行った。",
                "Little by little the dusk lowered the sky.",
                reviewed=True,
            ),
        ),
    )


@pytest.fixture
def checks_path(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return write(folder / "checks.json", checks_chapter())


def chapter_screen(app: App[Any]) -> ChapterScreen:
    screen = app.screen
    assert isinstance(screen, ChapterScreen)
    return screen


async def checked(pilot: Pilot) -> ChapterScreen:
    """The chapter view once the warnings of the chapter as it is now are shown."""
    screen = chapter_screen(pilot.app)
    await wait_for(
        pilot, lambda: screen.warnings.chapter is screen.session.chapter is not None, what="the warnings of the chapter"
    )
    return screen


def on_disk(path: Path, pid: str) -> Paragraph:
    para = load_chapter(path).paragraph(pid)
    assert para is not None
    return para


def status(screen: ChapterScreen) -> str:
    content = screen.query_one("#chapter-status", Static).content
    return content.plain if isinstance(content, Text) else str(content)


def row_of(app: App[Any], index: int) -> str:
    """The row of paragraph ``[index]`` as shown."""
    return next(line for line in screen_text(app).splitlines() if f"[{index}] p{index:07d} " in line)  # the table's


# -- computing (no app) --------------------------------------------------------------------------------------------


def grouped(warnings: list[Any]) -> dict[str, tuple[Any, ...]]:
    out: dict[str, list[Any]] = {}
    for w in warnings:
        out.setdefault(w.paragraph_id, []).append(w)
    return {pid: tuple(ws) for pid, ws in out.items()}


def test_warnings_are_check_chapters_and_reuse_the_findings_of_unchanged_texts() -> None:
    sample = load_sample()
    noisy = make_chapter(300)
    first = noisy.paragraphs[0]
    assert first.selected_text is not None
    noisy = noisy.with_paragraphs({0: dismiss(first, "KANA_LEFT", first.selected_text)})
    for chapter in (checks_chapter(), showcase_chapter(sample), noisy, review_chapter()):
        result = ChapterChecks.of(chapter)
        warnings = result.warnings
        assert dict(warnings.by_id) == grouped(check_chapter(chapter))
        assert warnings.count == len(check_chapter(chapter))
        assert list(warnings.positions) == sorted(chapter.positions[pid] for pid in warnings.by_id)
        again = result.update(chapter)
        assert again is not None and again.warnings.by_id == warnings.by_id
    assert "KANA_LEFT" not in [w.code for w in warnings_of(noisy, first.id)]  # dismissed: left out

    # The next state reuses the findings of every pair it still holds and checks the changed one only.
    chapter = checks_chapter()
    result = ChapterChecks.of(chapter)
    para = chapter.paragraphs[3]
    fixed = para.replace(
        translations=(version("v0000099", "The servant waited under the Rashomon gate."),),
        selected_translation_id="v0000099",
    )
    edited = chapter.with_paragraphs({3: fixed})
    seen: list[tuple[str, str]] = []
    real = incremental.findings

    def counting(source: str, translation: str, *args: Any) -> Any:
        seen.append((source, translation))
        return real(source, translation, *args)

    incremental.findings = counting  # type: ignore[assignment]
    try:
        after = result.update(edited)
    finally:
        incremental.findings = real  # type: ignore[assignment]
    assert after is not None and seen == [(fixed.text, fixed.selected_text)]
    assert "p0000004" not in after.warnings.by_id and after.warnings.count == 2
    assert result.update(edited, stop=lambda: True) is None  # no longer wanted: nothing


def warnings_of(chapter: Chapter, pid: str) -> tuple[Any, ...]:
    return ChapterChecks.of(chapter).warnings.by_id.get(pid, ())


def load_sample() -> Chapter:
    from store.loader import parse_chapter

    return parse_chapter(sample_bytes(), "rashomon.json")


def test_a_paragraph_with_warnings_needs_review_even_when_marked_reviewed() -> None:
    chapter = checks_chapter()
    reviewed = chapter.paragraphs[3]
    assert reviewed.reviewed and not needs_review(reviewed, frozenset())
    assert needs_review(reviewed, frozenset(), frozenset({reviewed.id}))
    untranslated = chapter.paragraphs[6]
    assert not needs_review(untranslated, frozenset(), frozenset({untranslated.id}))  # nothing to check yet
    assert not needs_review(chapter.paragraphs[4], frozenset(), frozenset({"p0000005"}))  # empty


def test_filtered_rows_keep_the_separator_of_each_chunk_shown() -> None:
    # rows: [sep 0] 0 1 2 [sep 1] 3 4 [sep 2] 5
    model = RowModel((-1, 0, 1, 2, -2, 3, 4, -3, 5), (1, 2, 3, 5, 6, 8), (), tuple("abcdef"))
    only = model.only([1, 4])
    assert only.rows == (-1, 1, -2, 4) and only.row_of == (-1, 1, -1, -1, 3, -1)
    assert list(only.positions) == [1, 4] and only.is_shown(4) and not only.is_shown(0)
    assert only.step(1, 1) == 4 and only.step(4, 1) == 4 and only.step(4, -5) == 1
    assert only.step(2, 1) == 4 and only.step(2, -1) == 1  # from a hidden position: the next / previous shown
    assert only.nearest_shown(2) == 4 and only.nearest_shown(5) == 4 and only.nearest_shown(0) == 1
    assert list(model.positions) == [0, 1, 2, 3, 4, 5] and model.step(0, 3) == 3
    assert model.only([]).rows == () and model.only([]).nearest_shown(0) is None


# -- the chapter view ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
async def test_rows_with_warnings_are_marked_and_counted(checks_path: Path, size: tuple[int, int]) -> None:
    app = make_app(checks_path, watch=False)
    async with app.run_test(size=size) as pilot:
        screen = await checked(pilot)
        await wait_for(pilot, lambda: "4 warnings: w" in status(screen), what="the count in the status line")
        for index in (1, 3, 4):
            assert "!done" in row_of(app, index) or "!rev✓" in row_of(app, index), row_of(app, index)
        for index in (2, 6, 7):
            assert "!" not in row_of(app, index).split()[-1], row_of(app, index)
        assert screen.table.warned == frozenset({"p0000001", "p0000003", "p0000004"})


async def test_w_and_shift_w_jump_between_warnings_and_wrap(checks_path: Path) -> None:
    messages = Messages()
    app = make_app(checks_path, watch=False)
    async with app.run_test(size=(80, 24), message_hook=messages) as pilot:
        screen = await checked(pilot)
        table = screen.table
        visits = []
        for _ in range(4):
            await pilot.press("w")
            visits.append(table.cursor)
        assert visits == [2, 3, 0, 2]  # from [1]: [3], [4], wrapped to [1], [3]
        assert "Wrapped to the first warning." in messages.notifications()
        await pilot.press("W", "W", "W")
        assert table.cursor == 2  # from [3]: [1], wrapped to [4], [3]
        assert "Wrapped to the last warning." in messages.notifications()


async def test_w_says_so_when_there_is_no_warning(tmp_path: Path) -> None:
    messages = Messages()
    path = write(tmp_path / "review.json", review_chapter())
    app = make_app(path, watch=False)
    async with app.run_test(size=(80, 24), message_hook=messages) as pilot:
        screen = await checked(pilot)
        await pilot.press("w")
        assert screen.table.cursor == 0
        assert "No warnings in this chapter." in messages.notifications()
        assert "warning" not in status(screen)


@pytest.mark.slow
async def test_next_to_review_stops_at_a_reviewed_paragraph_with_warnings(checks_path: Path) -> None:
    messages = Messages()
    app = make_app(checks_path, watch=False)
    async with app.run_test(size=(80, 24), message_hook=messages) as pilot:
        screen = await checked(pilot)
        table = screen.table
        await pilot.press("n")
        assert table.cursor == 1  # [2]: translated, not reviewed
        await pilot.press("n", "n")
        assert table.cursor == 3  # [3], then [4]: reviewed, but its warnings need a look
        await pilot.press("n")
        assert table.cursor == 5  # [6]; [8] is reviewed and clean
        await pilot.press("N", "N")
        assert table.cursor == 2
        # a marks reviewed and moves on, and says the warnings are still there
        await pilot.press("a")
        await wait_for(pilot, lambda: on_disk(checks_path, "p0000003").reviewed, what="[3] reviewed on disk")
        assert table.cursor == 3
        assert any("[3] still has 1 warning:" in n for n in messages.notifications())


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
async def test_detail_pane_lists_warnings_and_highlights_their_places(checks_path: Path, size: tuple[int, int]) -> None:
    app = make_app(checks_path, watch=False)
    async with app.run_test(size=size) as pilot:
        screen = await checked(pilot)
        screen.table.move_to(3)
        pane = screen.query_one(DetailPane)
        await wait_for(pilot, lambda: "· 2 warnings (d dismisses)" in pane.plain, what="the warnings of [4]")
        plain = pane.plain
        assert "KANA_LEFT · error · Japanese kana left in the translation: “まだ”" in plain
        assert "CJK_LEFT · error · Han characters left in the translation: “羅生門”" in plain
        translation = next(b.right for b in pane._blocks if isinstance(b, _Pair))
        style = pane.get_component_rich_style("detail-pane--warning-span")
        marked = sorted(translation.plain[s.start : s.end] for s in translation.spans if s.style == style)
        assert marked == ["まだ", "羅生門"]
        assert plain.splitlines()[:2] == [
            "[4] p0000004 · rev✓ (marked reviewed) · 2 warnings (d dismisses)",
            "KANA_LEFT · error · Japanese kana left in the translation: “まだ”",
        ]
        assert "KANA_LEFT · error" in screen_text(app)  # seen in the pane without scrolling
        screen.table.move_to(0)  # the list follows the cursor
        await wait_for(pilot, lambda: "QUOTES_LOST · warning" in pane.plain, what="the warning of [1]")


async def test_d_dismisses_the_only_warning_at_once_and_it_stays_dismissed(checks_path: Path) -> None:
    messages = Messages()
    app = make_app(checks_path, watch=False)
    async with app.run_test(size=(80, 24), message_hook=messages) as pilot:
        screen = await checked(pilot)
        await pilot.press("d")  # [1]: QUOTES_LOST only
        await wait_for(
            pilot,
            lambda: DISMISSED_KEY in on_disk(checks_path, "p0000001").extra,
            what="the dismissal on disk",
        )
        para = on_disk(checks_path, "p0000001")
        assert para.extra == {
            DISMISSED_KEY: [{"code": "QUOTES_LOST", "fingerprint": fingerprint(para.text, "Good morning, he said.")}]
        }
        await wait_for(pilot, lambda: "3 warnings: w" in status(screen), what="one warning fewer")
        assert "!" not in row_of(app, 1).split()[-1]
        assert "warning" not in screen.query_one(DetailPane).plain
        await pilot.press("d")
        assert "No warning on this paragraph." in messages.notifications()

    app = make_app(checks_path, watch=False)  # opened again: still dismissed
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await checked(pilot)
        assert "p0000001" not in screen.warnings.by_id and screen.warnings.count == 3


@pytest.mark.slow
async def test_d_asks_which_warning_when_there_are_several(checks_path: Path) -> None:
    app = make_app(checks_path, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await checked(pilot)
        screen.table.move_to(3)
        await pilot.pause()
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the choice of warnings")
        choice = app.screen
        assert isinstance(choice, ChoiceScreen)
        assert [c.split(" · ")[0] for c in choice.choices] == [
            "KANA_LEFT",
            "CJK_LEFT",
            "All 2 warnings of this paragraph",
        ]
        await pilot.press("escape")
        assert app.screen is screen
        assert "p0000004" in screen.warnings.by_id

        await pilot.press("d", "j", "enter")  # the second: CJK_LEFT
        await wait_for(
            pilot,
            lambda: [w.code for w in screen.warnings.by_id.get("p0000004", ())] == ["KANA_LEFT"],
            what="CJK_LEFT dismissed",
        )
        assert [e["code"] for e in on_disk(checks_path, "p0000004").extra[DISMISSED_KEY]] == ["CJK_LEFT"]
        await pilot.press("d")  # one left: dismissed at once
        await wait_for(pilot, lambda: "p0000004" not in screen.warnings.by_id, what="KANA_LEFT dismissed")
        assert app.screen is screen
        assert [e["code"] for e in on_disk(checks_path, "p0000004").extra[DISMISSED_KEY]] == [
            "CJK_LEFT",
            "KANA_LEFT",
        ]


async def test_a_burst_of_keys_after_d_goes_to_the_choice(checks_path: Path) -> None:
    """Typed quickly, ``d j enter`` reach proofdesk in one read: j and enter choose in the list, they never move
    the chapter's cursor."""
    app = make_app(checks_path, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await checked(pilot)
        screen.table.move_to(3)  # the cursor is set at once; `d` reads it, not the detail pane
        row = screen.table.cursor
        for key in ("d", "j", "enter"):
            app.simulate_key(key)
        await wait_for(
            pilot,
            lambda: [w.code for w in screen.warnings.by_id.get("p0000004", ())] == ["KANA_LEFT"],
            what="CJK_LEFT dismissed",
        )
        assert app.screen is screen and screen.table.cursor == row


async def test_d_can_dismiss_every_warning_of_the_paragraph_at_once(checks_path: Path) -> None:
    app = make_app(checks_path, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await checked(pilot)
        await pilot.press("w", "w")  # [4]
        assert screen.table.cursor == 3
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the choice of warnings")
        await pilot.press("end", "enter")  # the last choice: all of them, in one commit
        await wait_for(pilot, lambda: "p0000004" not in screen.warnings.by_id, what="both dismissed")
        stored = on_disk(checks_path, "p0000004")
        assert [e["code"] for e in stored.extra[DISMISSED_KEY]] == ["KANA_LEFT", "CJK_LEFT"]
        assert screen.warnings.count == 2 and "2 warnings: w" in status(screen)


def test_a_dismissal_is_of_the_text_seen(checks_path: Path) -> None:
    """A translation changed on disk between seeing a warning and dismissing it keeps its own warning."""
    session = make_app(checks_path, watch=False).start_chapter
    assert session is not None
    seen = "Good morning, he said."
    chapter = load_chapter(checks_path)
    para = chapter.paragraphs[0]
    other = version("v0000077", "Good morning again, he said.", "manual", None)
    write(
        checks_path,
        chapter.with_paragraphs(
            {0: para.replace(translations=(*para.translations, other), selected_translation_id=other.id)}
        ),
    )
    session.dismiss_warnings("p0000001", ("QUOTES_LOST",), seen)
    stored = on_disk(checks_path, "p0000001")
    assert stored.selected_text == other.text
    assert stored.extra == {DISMISSED_KEY: [{"code": "QUOTES_LOST", "fingerprint": fingerprint(para.text, seen)}]}
    assert [w.code for w in check_chapter(load_chapter(checks_path)) if w.paragraph_id == "p0000001"] == ["QUOTES_LOST"]


@pytest.mark.slow
async def test_o_filters_the_rows_by_code_and_o_again_shows_all(checks_path: Path) -> None:
    messages = Messages()
    app = make_app(checks_path, watch=False)
    async with app.run_test(size=(80, 24), message_hook=messages) as pilot:
        screen = await checked(pilot)
        table = screen.table
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the choice of codes")
        choice = app.screen
        assert isinstance(choice, ChoiceScreen)
        assert choice.choices == (
            "any warning (3 paragraphs)",
            "KANA_LEFT (1 paragraph) · error",
            "CJK_LEFT (1 paragraph) · error",
            "QUOTES_LOST (1 paragraph) · warning",
            "NUMBERS_DIFFER (1 paragraph) · warning",
        )
        await pilot.press("enter")  # any warning
        await wait_for(pilot, lambda: table.only_ids is not None, what="the filter")
        assert [r for r in table._shown.rows if r >= 0] == [0, 2, 3]
        # at 80 columns, beside the demo model's warning, the filter is said shortly (25.12)
        assert "only any warning (o: all) · 4 warnings: w" in status(screen)
        text = screen_text(app)
        assert "[2] " not in text and "[6] " not in text and "[4] " in text
        await pilot.press("down")
        assert table.cursor == 2
        await pilot.press("end")
        assert table.cursor == 3
        await pilot.press("o")
        assert table.only_ids is None and "only" not in status(screen)
        assert "[6] " in screen_text(app)

        # by one code; dismissing its last warning ends the filter
        await pilot.press("o", "j", "j", "j", "enter")  # QUOTES_LOST
        await wait_for(pilot, lambda: table.filter_label == "QUOTES_LOST", what="the QUOTES_LOST filter")
        assert table.cursor == 0 and [r for r in table._shown.rows if r >= 0] == [0]
        await pilot.press("d")
        await wait_for(pilot, lambda: table.only_ids is None, what="the filter to end")
        assert "No paragraph is left with QUOTES_LOST: showing every paragraph." in messages.notifications()
        assert "only" not in status(screen)


async def test_going_to_a_hidden_paragraph_ends_the_filter(checks_path: Path) -> None:
    messages = Messages()
    app = make_app(checks_path, watch=False)
    async with app.run_test(size=(80, 24), message_hook=messages) as pilot:
        screen = await checked(pilot)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the choice of codes")
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.table.only_ids is not None, what="the filter")
        await pilot.press("g", "6", "enter")
        await wait_for(pilot, lambda: screen.table.cursor == 5, what="[6]")
        assert screen.table.only_ids is None and "[2] " in screen_text(app)
        assert "Showing every paragraph again: [6] was hidden by the filter." in messages.notifications()
        assert "only" not in status(screen)


async def test_o_says_so_when_there_is_nothing_to_filter(tmp_path: Path) -> None:
    messages = Messages()
    path = write(tmp_path / "review.json", review_chapter())
    app = make_app(path, watch=False)
    async with app.run_test(size=(80, 24), message_hook=messages) as pilot:
        await checked(pilot)
        await pilot.press("o")
        assert "No warnings in this chapter: nothing to filter." in messages.notifications()
        assert isinstance(app.screen, ChapterScreen)


@pytest.fixture
def held_checks(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """The checks wait in their thread until the event is set (so a test sees the app while they run)."""
    release = threading.Event()
    real: Callable[..., Any] = ChapterChecks.update

    def held(*args: Any, **kwargs: Any) -> Any:
        release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(ChapterChecks, "update", held)
    yield release
    release.set()


async def test_keys_work_while_a_big_chapter_is_checked(tmp_path: Path, held_checks: threading.Event) -> None:
    path = tmp_path / "big.json"
    write_chapter(path, 10_000)
    app = make_app(path, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ChapterScreen), what="the chapter view")
        screen = chapter_screen(app)
        await wait_for(pilot, lambda: any(w.group == "checks" for w in screen.workers), what="the checks worker")
        worker = next(w for w in screen.workers if w.group == "checks")
        await pilot.press("down", "down", "down")
        assert screen.table.cursor == 3
        assert worker.state is WorkerState.RUNNING and "checking…" in status(screen)
        held_checks.set()
        screen = await checked(pilot)
        assert screen.warnings.count > 10_000
        assert "checking…" not in status(screen)
