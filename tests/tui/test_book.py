"""Book-level work without leaving the workstation (issue 25.15): the chapter list's counts (warnings, unreviewed,
pending suggestions) and running marks, computed off the event loop; and the palette's book commands: translate or
polish every chapter in book order (x cancels), check the book, export it (EPUB, bilingual EPUB, text formats)
never onto a file of the workspace."""

from __future__ import annotations

import threading
import zipfile
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from store.books.epub_import import import_epub
from store.books.text_export import render
from store.loader import load_chapter
from tests.store.books.epub_builder import build_epub
from tests.tui.chapters import review_chapter, small_chapter, write
from tests.tui.conftest import SIZE, Messages, make_app, palette_offers, screen_text, wait_for
from tests.tui.test_status_line import busy_chapter, footer_fits, hints_fit
from tui.app import ProofdeskApp
from tui.controllers.book import BookControl
from tui.messages import RunProgressed
from tui.screens.chapter import ChapterScreen
from tui.screens.chapter_list import ChapterListScreen
from tui.screens.prompt import PromptScreen
from tui.screens.text_view import TextViewScreen
from tui.session import ChapterSession


@pytest.fixture
def book(tmp_path: Path) -> Path:
    """``book/``: ch001 the review chapter, ch002 the busy one (3 warnings, a suggestion), ch003 a small one."""
    folder = tmp_path / "book"
    folder.mkdir()
    write(folder / "ch001.json", review_chapter())
    write(folder / "ch002.json", busy_chapter())
    write(folder / "ch003.json", small_chapter())
    return folder


def chapter_list(app: ProofdeskApp) -> ChapterListScreen:
    screen = app.screen_stack[1]
    assert isinstance(screen, ChapterListScreen)
    return screen


def row_of(app: ProofdeskApp, name: str) -> list[str]:
    """The cells of a chapter's row as shown (the table is above the log): split on spaces."""
    line = next(line for line in screen_text(app).splitlines() if f" {name} " in line)
    return line.split()


async def counted(pilot: Pilot) -> ChapterListScreen:
    """The chapter list once every row has its counts, the warnings too."""
    screen = chapter_list(pilot.app)  # type: ignore[arg-type]
    await wait_for(
        pilot,
        lambda: len(screen.rows) == 3 and all(row.warnings is not None for row in screen.rows),
        what="the counts of every chapter",
    )
    await pilot.pause()
    return screen


async def palette(pilot: Pilot, command: str) -> None:
    await pilot.press("ctrl+p", *command)
    await palette_offers(pilot, command)
    await pilot.press("enter")


# -- the chapter list ------------------------------------------------------------------------------------------------


async def test_the_chapter_list_counts_what_waits_for_the_editor_at_80x24(
    book: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    on_loop: list[bool] = []
    count = ChapterSession.count_warnings

    def spied(self: ChapterSession, terms: tuple[object, ...]) -> int | None:
        on_loop.append(threading.current_thread() is threading.main_thread())
        return count(self, terms)  # type: ignore[arg-type]

    monkeypatch.setattr(ChapterSession, "count_warnings", spied)
    app = make_app(book)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: not app.seeding, what="the first scan")
        await counted(pilot)
        header = next(line for line in screen_text(app).splitlines() if "file" in line)
        assert header.split() == ["file", "translated", "unrev.", "warn.", "sug.", "title"]
        # file, translated, unreviewed, warnings, suggestions, title (an empty count is blank)
        assert row_of(app, "ch001.json") == ["ch001.json", "3/5", "60%", "2", "Review", "test"]
        assert row_of(app, "ch002.json")[:6] == ["ch002.json", "2/5", "40%", "2", "3", "1"]
        assert row_of(app, "ch003.json") == ["ch003.json", "0/3", "0%", "Small"]
    assert on_loop and not any(on_loop)  # the checks ran in a thread, never on the event loop


async def test_a_chapter_with_a_run_going_on_is_marked_in_the_list(book: Path) -> None:
    app = make_app(book)
    app.demo_delay = 0.2  # the demo model, slowed: the run still goes on when the list is looked at
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: not app.seeding, what="the first scan")
        await counted(pilot)
        await pilot.press("end", "enter", "t", "b")  # ch003: translate it, back to the list while it goes on
        view = next(s for s in app._chapter_views.values() if s.session.path.name == "ch003.json")
        assert view.run_in_progress and isinstance(app.screen, ChapterListScreen)
        await wait_for(pilot, lambda: row_of(app, "ch003.json")[0] == "▶", what="the running mark")
        assert row_of(app, "ch001.json")[0] == "ch001.json"  # no mark
        app.open_chapter(view.session)
        await pilot.press("x")
        await wait_for(pilot, lambda: not view.run_in_progress, what="the run to stop")
        await pilot.press("b")
        await wait_for(pilot, lambda: row_of(app, "ch003.json")[0] == "ch003.json", what="the mark gone")


# -- a run of the book -----------------------------------------------------------------------------------------------


async def test_translate_the_book_from_the_palette_runs_every_chapter_in_file_name_order(book: Path) -> None:
    messages = Messages()
    app = make_app(book)  # the offline demo model, asked for
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        await wait_for(pilot, lambda: not app.seeding, what="the first scan")
        control = chapter_list(app).book
        await palette(pilot, "Book: translate every chapter")
        await wait_for(pilot, lambda: control.progress.stopped == "complete", timeout=30, what="the book run")
        started = [m.path.name for m in messages.of(RunProgressed)]
        assert list(dict.fromkeys(started)) == ["ch001.json", "ch002.json", "ch003.json"]
        status = str(chapter_list(app).query_one("#book-status", Static).render())
        assert status.startswith("book translate complete")
        await counted(pilot)
        assert row_of(app, "ch003.json")[1:3] == ["3/3", "100%"]
    for name in ("ch001.json", "ch002.json", "ch003.json"):
        chapter = load_chapter(book / name)
        assert all(p.is_empty or p.selected_text for p in chapter.paragraphs), name  # every paragraph translated
    assert load_chapter(book / "ch003.json").paragraphs[0].selected_text == "[demo en] 一つ目の文。"


async def test_x_on_the_chapter_list_cancels_the_book_run(book: Path) -> None:
    before = {name: (book / name).read_bytes() for name in ("ch002.json", "ch003.json")}
    app = make_app(book)
    app.demo_delay = 0.2
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: not app.seeding, what="the first scan")
        control = chapter_list(app).book
        await palette(pilot, "Book: polish every chapter")
        await wait_for(pilot, lambda: control.current == book.resolve() / "ch001.json", what="the first chapter")
        await wait_for(pilot, lambda: control.progress.run.chunk is not None, what="its first chunk")
        await pilot.pause()
        assert footer_fits(app)  # "x Cancel the book run" with the list's keys, within 80 columns
        await pilot.press("x")
        await wait_for(pilot, lambda: not control.running, timeout=15, what="the book run to stop")
        assert control.progress.stopped == "cancelled"
        assert "ch002.json" not in control.progress.ended and "ch003.json" not in control.progress.ended
    assert {name: (book / name).read_bytes() for name in before} == before  # no later chapter was started


async def test_the_book_run_refuses_without_a_model(book: Path) -> None:
    from engine.config import load_config, resolve_model

    messages = Messages()
    app = make_app(book)
    assert app.workspace is not None
    app.workspace.settings = resolve_model(load_config())  # nothing configured, the demo model not asked for
    before = (book / "ch003.json").read_bytes()
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        await palette(pilot, "Book: translate every chapter")
        await wait_for(pilot, lambda: any("No model" in n for n in messages.notifications()), what="the refusal")
        assert not chapter_list(app).book.running
    assert (book / "ch003.json").read_bytes() == before


# -- checking the book -----------------------------------------------------------------------------------------------


async def test_check_the_book_lists_the_warnings_of_every_chapter(book: Path) -> None:
    app = make_app(book)
    async with app.run_test(size=SIZE) as pilot:
        await palette(pilot, "Book: check every chapter")
        await wait_for(pilot, lambda: isinstance(app.screen, TextViewScreen), what="the report")
        report = app.screen
        assert isinstance(report, TextViewScreen)
        assert report.title_text == "QA warnings of the book: 3 warnings in 1 of 3 chapters"
        lines = report.text.splitlines()
        assert lines[0] == "ch001.json: no warnings" and lines[1] == "ch002.json: 3 warnings"
        codes = [line.split(" · ")[1].split(" ")[0] for line in lines[2:5]]
        assert codes == ["KANA_LEFT", "CJK_LEFT", "NUMBERS_DIFFER"]
        assert lines[2].startswith("  [1] p0000001") and lines[5] == "ch003.json: no warnings"


# -- exporting the book ----------------------------------------------------------------------------------------------


async def export(pilot: Pilot, command: str, typed: str) -> BookControl:
    await palette(pilot, command)
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, PromptScreen), what="the question where")
    await pilot.pause()
    assert not hints_fit(pilot.app)  # type: ignore[arg-type]  # the question's hint fits 80 columns
    await pilot.press(*typed, "enter")
    control = chapter_list(pilot.app).book  # type: ignore[arg-type]
    await wait_for(pilot, lambda: not any(w.group == "book-export" for w in control.workers), what="the export")
    return control


async def test_export_the_book_as_text_markdown_and_one_file_per_chapter(book: Path, tmp_path: Path) -> None:
    chapters = [load_chapter(book / f"ch00{i}.json") for i in (1, 2, 3)]
    app = make_app(book)
    async with app.run_test(size=SIZE) as pilot:
        await export(pilot, "Book: export as text", str(tmp_path / "book.txt"))
        await export(pilot, "Book: export as Markdown", str(tmp_path / "book.md"))
        await export(pilot, "Book: export as bilingual text", str(tmp_path / "each") + "/")
    assert (tmp_path / "book.txt").read_text(encoding="utf-8") == "".join(render(c, "text") for c in chapters)
    assert (tmp_path / "book.md").read_text(encoding="utf-8") == "\n".join(render(c, "markdown") for c in chapters)
    for i, chapter in enumerate(chapters, 1):
        written = (tmp_path / "each" / f"ch00{i}.bilingual.txt").read_text(encoding="utf-8")
        assert written == render(chapter, "bilingual")


@pytest.mark.parametrize(
    "where", ["ch001.json", "glossary.json", ".proofdesk/out.txt", "sub/../ch002.json", "new.json", "taken.txt"]
)
async def test_an_export_never_writes_onto_the_workspaces_files(book: Path, where: str) -> None:
    (book / "glossary.json").write_text('{"entries": []}\n', encoding="utf-8")
    (book / "sub").mkdir()
    (book / "taken.txt").write_text("a person's notes\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in book.rglob("*") if p.is_file()}
    messages = Messages()
    app = make_app(book, watch=False)
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        await export(pilot, "Book: export as text", str(book / where))
        await wait_for(pilot, lambda: any("xport" in n for n in messages.notifications()), what="the refusal")
        [said] = [n for n in messages.notifications() if "xport" in n or "exists" in n]
        assert said.startswith("not exported:")
    after = {p: p.read_bytes() for p in book.rglob("*") if p.is_file() and ".proofdesk" not in p.parts}
    assert after == {p: b for p, b in before.items() if ".proofdesk" not in p.parts}
    assert not (book / "new.json").exists()


async def test_translate_then_export_an_imported_book_as_epub_and_bilingual_epub(tmp_path: Path) -> None:
    source = build_epub(
        tmp_path / "in.epub",
        [("ch1.xhtml", "一", "<p>一つ目の文。</p>"), ("ch2.xhtml", "二", "<p>二つ目の文。</p>")],
    )
    ws = tmp_path / "ws"
    import_epub(source, ws, target_language="en")
    app = make_app(ws)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: not app.seeding, what="the first scan")
        control = chapter_list(app).book
        await palette(pilot, "Book: translate every chapter")
        await wait_for(pilot, lambda: control.progress.stopped == "complete", timeout=30, what="the book run")
        await export(pilot, "Book: export as EPUB", str(tmp_path / "out.epub"))
        await export(pilot, "Book: export as bilingual EPUB", str(tmp_path / "both.epub"))
    with zipfile.ZipFile(tmp_path / "out.epub") as out:
        ch2 = out.read("OEBPS/ch2.xhtml").decode()
    assert "[demo en] 二つ目の文。" in ch2 and ">二つ目の文。<" not in ch2
    with zipfile.ZipFile(tmp_path / "both.epub") as both:
        ch1 = both.read("OEBPS/ch1.xhtml").decode()
    assert ">一つ目の文。<" in ch1 and "[demo en] 一つ目の文。" in ch1


async def test_a_book_run_commit_shows_in_an_open_view_of_that_chapter(book: Path) -> None:
    app = make_app(book)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: not app.seeding, what="the first scan")
        await pilot.press("end", "enter")
        view = app.screen
        assert isinstance(view, ChapterScreen) and view.session.path.name == "ch003.json"
        await palette(pilot, "Book: translate every chapter")
        control = chapter_list(app).book
        await wait_for(pilot, lambda: control.progress.stopped == "complete", timeout=30, what="the book run")
        await wait_for(pilot, lambda: "3/3 done" in str(view.query_one("#chapter-status", Static).render()))
        assert view.table.status_of(view.table.chapter.paragraphs[0]) == "run"  # type: ignore[union-attr]


async def test_export_the_book_for_a_cat_tool_xliff_and_po(book: Path, tmp_path: Path) -> None:
    from tests.store.formats.xliff_schemas import problems, xliff2_schema

    app = make_app(book)
    async with app.run_test(size=SIZE) as pilot:
        await export(pilot, "Book: export as XLIFF 2.1", str(tmp_path / "book.xlf"))
        await export(pilot, "Book: export as PO, one file per chapter", str(tmp_path / "po") + "/")
    data = (tmp_path / "book.xlf").read_bytes()
    assert problems(xliff2_schema(), data) == [] and data.count(b"<file ") == 3
    assert sorted(p.name for p in (tmp_path / "po").iterdir()) == ["ch001.po", "ch002.po", "ch003.po"]


async def test_the_chapter_list_is_in_natural_order(tmp_path: Path) -> None:
    folder = tmp_path / "natural"
    folder.mkdir()
    names = ["ch10.json", "ch2.json", "ch1000.json", "ch100.json", "ch1.json"]
    for name in names:
        write(folder / name, small_chapter())
    app = make_app(folder)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: not app.seeding, what="the first scan")
        screen = chapter_list(app)
        await wait_for(pilot, lambda: len(screen.rows) == 5, what="every chapter listed")
        shown = [row.summary.path.name for row in screen.rows]
        assert shown == ["ch1.json", "ch2.json", "ch10.json", "ch100.json", "ch1000.json"]
        lines = screen_text(app).splitlines()
        places = [next(n for n, line in enumerate(lines) if f" {name} " in line) for name in shown]
        assert places == sorted(places)  # shown top to bottom in that order
