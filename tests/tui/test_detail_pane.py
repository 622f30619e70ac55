"""The detail pane: every character of the source and translation shown at any width, kinsoku, a height that
grows with the terminal, zoom, scrolling from the table, and two columns from 120 cells on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot

from store.loader import load_chapter
from store.model import Chapter
from tests.tui.chapters import version, write
from tests.tui.conftest import make_app, wait_for
from tui.screens.chapter import ChapterScreen
from tui.widgets.detail_pane import COLUMN_SEPARATOR, DetailPane, version_label
from tui.widgets.line_break import NO_START
from tui.widgets.paragraph_table import ParagraphTable

SIZES = [(80, 24), (120, 40)]
EMPTY = 2  # [3] of the sample is an empty paragraph: a short pane, no scrollbar


def chapter_screen(app: App[Any]) -> ChapterScreen:
    screen = app.screen
    assert isinstance(screen, ChapterScreen)
    return screen


def pane_lines(pane: DetailPane) -> list[str]:
    """Every line of the pane as it draws it, scrolled from top to bottom, without the padding at line ends."""
    height = pane.scrollable_content_region.height
    total = pane.virtual_size.height
    rows: dict[int, str] = {}
    top = 0
    while len(rows) < total:
        pane.scroll_to(y=top, animate=False, immediate=True)
        first = round(pane.scroll_y)
        for y in range(min(height, total - first)):
            rows[first + y] = pane.render_line(y).text.rstrip(" ")
        top += height
    pane.scroll_to(y=0, animate=False, immediate=True)
    return [rows[row] for row in range(total)]


def columns(lines: list[str]) -> tuple[list[str], list[str]] | None:
    """The left and right column of the side-by-side rows, or None when the pane is stacked."""
    separator = COLUMN_SEPARATOR.rstrip(" ")  # a row with an empty right column ends there
    rows = [
        (left, right[len(COLUMN_SEPARATOR) - len(separator) :])
        for left, right in (line.split(separator, 1) for line in lines if separator in line)
    ]
    if not rows:
        return None

    def trimmed(column: list[str]) -> list[str]:
        while column and not column[-1]:
            column.pop()
        return column

    return trimmed([left.rstrip(" ") for left, _ in rows]), trimmed([right.rstrip(" ") for _, right in rows])


def block(lines: list[str], start: str, ends: tuple[str, ...]) -> list[str]:
    """The stacked lines from the one starting with ``start`` to the one before the next starting with ``ends``
    (none when no line starts with ``start``)."""
    starts = [i for i, line in enumerate(lines) if line.startswith(start)]
    if not starts:
        return []
    first = starts[0]
    last = next((i for i in range(first + 1, len(lines)) if lines[i].startswith(ends)), len(lines))
    return lines[first:last]


def shown_texts(pane: DetailPane) -> tuple[list[str], list[str]]:
    """The rendered lines of the source and of the translation, labels included."""
    lines = pane_lines(pane)
    found = columns(lines)
    if found is not None:
        return found
    return (
        block(lines, "Source:", ("Translation v", "No translation yet.")),
        block(lines, "Translation v", ("Diff v", "Versions (")),
    )


def read_back(lines: list[str], expected: str) -> None:
    """The rendered lines, one after the other, are ``expected`` exactly, but for the spaces where a line
    broke (they hang at the end of a line, where padding looks the same)."""
    pos = 0
    for number, line in enumerate(lines):
        assert expected.startswith(line, pos), (
            f"line {number} {line!r} is not the text at {pos}: {expected[pos : pos + len(line) + 4]!r}"
        )
        pos += len(line)
        while expected[pos : pos + 1] == " ":
            pos += 1
    assert pos == len(expected), f"not shown: {expected[pos:]!r}"


async def show(pilot: Pilot, position: int) -> DetailPane:
    """Move the cursor to ``position`` from the empty paragraph (so the pane grows a scrollbar on the way)."""
    screen = chapter_screen(pilot.app)
    table = screen.query_one(ParagraphTable)
    for pos in (EMPTY, position):
        table.move_to(pos)
        await pilot.pause()
    return screen.query_one(DetailPane)


async def test_characters_at_wrapped_line_ends_are_not_clipped(workspace_dir: Path) -> None:
    chapter = load_chapter(workspace_dir / "rashomon.json")
    app = make_app(workspace_dir / "rashomon.json", watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("g", "3", "enter", "g", "7", "enter")
        pane = chapter_screen(app).query_one(DetailPane)
        await wait_for(pilot, lambda: pane.plain.startswith("[7]"), what="[7] in the detail pane")
        source, _ = shown_texts(pane)
        read_back(source, "Source: " + chapter.paragraphs[6].text)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
async def test_every_source_of_the_sample_reads_back_whole(workspace_dir: Path, size: tuple[int, int]) -> None:
    chapter = load_chapter(workspace_dir / "rashomon.json")
    app = make_app(workspace_dir / "rashomon.json", watch=False)
    async with app.run_test(size=size) as pilot:
        checked = 0
        for pos, para in enumerate(chapter.paragraphs):
            if para.is_empty:
                continue
            pane = await show(pilot, pos)
            source, _ = shown_texts(pane)
            read_back(source, "Source: " + para.text)
            for line in source[1:]:
                assert line[:1] not in NO_START, f"[{pos + 1}] a line starts with {line[:1]!r}"
            checked += 1
        assert checked == 39


def long_translations(sample: Chapter) -> Chapter:
    """Two paragraphs of the sample with long English translations (spaces, punctuation, a long word)."""
    english = (
        "It was one evening at dusk. A servant was waiting under the Rashomon gate for the rain to stop. "
        "Under the wide gate there was nobody but this man (a cricket sat on a great round pillar, "
        "where the vermilion lacquer had peeled here and there) — and "
        "supercalifragilisticexpialidociouslyunbreakablewordthatislongerthanacolumn, then more words."
    )
    paragraphs = list(sample.paragraphs[:8])
    for pos in (3, 7):
        para = paragraphs[pos]
        versions = (version(f"t{pos:07d}", english + f" ({pos})", model=None),)
        paragraphs[pos] = para.replace(translations=versions, selected_translation_id=versions[0].id)
    return sample.replace(paragraphs=tuple(paragraphs))


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
async def test_source_and_translation_read_back_whole(workspace_dir: Path, size: tuple[int, int]) -> None:
    path = write(workspace_dir / "rashomon.json", long_translations(load_chapter(workspace_dir / "rashomon.json")))
    chapter = load_chapter(path)
    app = make_app(path, watch=False)
    async with app.run_test(size=size) as pilot:
        for pos in (3, 7):
            para = chapter.paragraphs[pos]
            pane = await show(pilot, pos)
            source, translation = shown_texts(pane)
            read_back(source, "Source: " + para.text)
            selected = para.translations[0]
            read_back(translation, f"Translation {version_label(1, selected, True)}: {selected.text}")


async def test_the_source_label_and_the_text_share_a_line(workspace_dir: Path) -> None:
    app = make_app(workspace_dir / "rashomon.json", watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = await show(pilot, 3)  # [4] starts with an ideographic space
        source, _ = shown_texts(pane)
        assert source[0].startswith("Source: \u3000ある日の暮方の事である。")


@pytest.mark.parametrize(("size", "least"), [((80, 24), 7), ((120, 40), 11), ((120, 60), 17)])
async def test_the_detail_pane_grows_with_the_terminal(workspace_dir: Path, size: tuple[int, int], least: int) -> None:
    app = make_app(workspace_dir / "rashomon.json", watch=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = chapter_screen(app)
        assert screen.query_one(DetailPane).size.height >= least
        assert screen.query_one(ParagraphTable).size.height >= 9  # a header and eight paragraphs


async def test_side_by_side_from_120_cells_stacked_below_and_back(workspace_dir: Path) -> None:
    chapter = load_chapter(workspace_dir / "rashomon.json")
    app = make_app(workspace_dir / "rashomon.json", watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = await show(pilot, 5)
        lines = pane_lines(pane)
        found = columns(lines)
        assert found is not None
        left, right = found
        assert left[0].startswith("Source: ") and right == ["No translation yet."]
        assert lines[0].startswith("[6] ")  # the heading stays above, over the whole width
        await pilot.resize_terminal(100, 40)
        await wait_for(pilot, lambda: columns(pane_lines(pane)) is None, what="the stacked layout at 100 cells")
        source, _ = shown_texts(pane)
        read_back(source, "Source: " + chapter.paragraphs[5].text)
        await pilot.resize_terminal(130, 40)
        await wait_for(pilot, lambda: columns(pane_lines(pane)) is not None, what="two columns again at 130")


async def test_z_zooms_the_detail_pane_and_z_or_escape_restores_it(workspace_dir: Path) -> None:
    app = make_app(workspace_dir / "rashomon.json", watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = chapter_screen(app)
        table = screen.query_one(ParagraphTable)
        pane = await show(pilot, 7)
        normal = pane.size.height
        for restore in ("z", "escape"):
            await pilot.press("z")
            await wait_for(pilot, lambda: pane.size.height > normal, what="the zoomed pane")
            assert screen.maximized is pane
            assert pane.outer_size.height == 23  # everything but the footer
            assert app.focused is pane  # the hidden table cannot keep the focus
            await pilot.press(restore)
            await wait_for(pilot, lambda: pane.size.height == normal, what=f"{restore} restoring the pane")
            assert screen.maximized is None
            assert app.focused is table
            assert table.cursor == 7


@pytest.mark.slow
async def test_j_and_k_scroll_the_zoomed_pane(workspace_dir: Path) -> None:
    app = make_app(workspace_dir / "rashomon.json", watch=False)
    async with app.run_test(size=(40, 16)) as pilot:
        pane = await show(pilot, 7)  # [8]: 434 characters, more lines than even the zoomed pane shows
        await pilot.press("z")
        await wait_for(pilot, lambda: chapter_screen(app).maximized is pane, what="the zoomed pane")
        assert pane.max_scroll_y > 2
        await pilot.press("j", "j", "J", "k")
        assert pane.scroll_y == 2
        await pilot.press("z")
        assert chapter_screen(app).query_one(ParagraphTable).cursor == 7


async def test_shift_j_and_k_scroll_the_pane_while_the_table_keeps_the_focus(workspace_dir: Path) -> None:
    app = make_app(workspace_dir / "rashomon.json", watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        table = chapter_screen(app).query_one(ParagraphTable)
        pane = await show(pilot, 7)  # [8]: 434 characters, more lines than the pane shows
        assert pane.max_scroll_y > 2
        await pilot.press("J", "J")
        assert pane.scroll_y == 2
        await pilot.press("K")
        assert pane.scroll_y == 1
        await pilot.press("ctrl+down", "ctrl+down")
        assert pane.scroll_y == 3
        await pilot.press("ctrl+up")
        assert pane.scroll_y == 2
        assert app.focused is table and table.cursor == 7
        lines = pane_lines(pane)  # what J shows is the text further down
        pane.scroll_to(y=2, animate=False, immediate=True)
        assert pane.render_line(0).text.rstrip(" ") == lines[2]


async def test_a_long_diff_computed_in_a_thread_takes_its_place_below_the_texts(workspace_dir: Path) -> None:
    sample = load_chapter(workspace_dir / "rashomon.json")
    old, new = "word " * 200, "word " * 100 + "CHANGED " + "word " * 100  # more than the pane diffs inline
    versions = (version("t0000001", old, model=None), version("t0000002", new, "polish", model=None))
    para = sample.paragraphs[3].replace(translations=versions, selected_translation_id="t0000002")
    path = write(workspace_dir / "rashomon.json", sample.replace(paragraphs=(*sample.paragraphs[:3], para)))
    app = make_app(path, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = await show(pilot, 3)
        await app.workers.wait_for_complete()
        await wait_for(pilot, lambda: "(computing…)" not in pane.plain, what="the diff from the thread")
        lines = pane_lines(pane)
        diff = block(lines, "Diff v1 → v2: ", ("Versions (",))
        read_back(diff, "Diff v1 → v2: " + new)  # the words kept and the one inserted, in the text's order
        assert lines[-2:] == [
            "  v1 · translation · 2026-11-21T10:00:00Z",
            "▶ v2 · polish · 2026-11-21T10:00:00Z (selected)",
        ]


async def test_a_huge_paragraph_shows_its_start_and_names_the_rest(tmp_path: Path) -> None:
    """A 2 MB paragraph (a whole novel pasted as one) is laid out up to SHOWN_CHARS, with a line saying how much more
    there is and where to read it: showing it no longer costs the workstation seconds per megabyte."""
    from store.model import Paragraph, append_version
    from tui.widgets.detail_pane import SHOWN_CHARS

    size = 2_000_000
    text = ("下人は羅生門の下で雨やみを待っていた。" * (size // 19 + 1))[:size]
    para, _ = append_version(Paragraph(id="big", text=text), "w " * (size // 2), origin="translation", model="m")
    path = write(tmp_path / "big.json", Chapter(id="c", source_language="ja", target_language="en", paragraphs=(para,)))
    app = make_app(path, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = chapter_screen(app).query_one(DetailPane)
        await wait_for(pilot, lambda: "more characters" in pane.plain, what="the huge paragraph shown")
        plain = pane.plain
        assert f"… {size - SHOWN_CHARS:,} more characters (E shows the whole text in $EDITOR)" in plain
        assert plain.count("more characters") == 2  # the source and the translation
        assert len(plain) < 3 * SHOWN_CHARS
