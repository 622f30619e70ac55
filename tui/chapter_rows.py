"""The chapter list's rows: what each column says about a chapter, and how wide the columns are (pure: no
Textual).

Columns, the counts before the title so a narrow terminal cuts only the title: the marks (``▶`` a run goes on,
``✗`` invalid on disk, ``⌫`` deleted, ``●`` changed on disk, ``!`` conflicts), the file, how much is translated,
the paragraphs translated but not reviewed, the QA warnings (``…`` while they are counted), the pending
suggestions, the title.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text

from tui.session import ChapterSummary
from tui.terminal_text import visible

# key, header, width (None: the file takes its longest name up to FILE_CELLS, the title the rest)
COLUMNS: tuple[tuple[str, str, int | None], ...] = (
    ("marks", "", 3),
    ("file", "file", None),
    ("done", "translated", 10),
    ("unreviewed", "unrev.", 6),
    ("warnings", "warn.", 5),
    ("suggestions", "sug.", 4),
    ("title", "title", None),
)
CELL_PADDING = 1  # the table's, each side of a cell
FILE_CELLS = (10, 24)  # the file column's least and most width
MIN_TITLE = 8


@dataclass(frozen=True)
class ChapterRow:
    """One chapter as the list shows it."""

    summary: ChapterSummary
    warnings: int | None = None  # None: not counted yet (or not countable: no chapter read)
    running: bool = False


def widths(screen_width: int, rows: Sequence[ChapterRow]) -> dict[str, int]:
    """Each column's width: the file's longest name (within ``FILE_CELLS``), the title what the others leave of
    the screen (a cell for the scroll bar)."""
    out = {key: width for key, _, width in COLUMNS if width is not None}
    longest = max((cell_len(visible(r.summary.path.name, newlines=False)) for r in rows), default=0)
    out["file"] = min(max(longest, FILE_CELLS[0]), FILE_CELLS[1])
    used = sum(out.values()) + 2 * CELL_PADDING * len(COLUMNS) + 1
    out["title"] = max(MIN_TITLE, screen_width - used)
    return out


def marks(row: ChapterRow) -> str:
    """The marks of a chapter (see the module docstring)."""
    s = row.summary
    flags = (
        (row.running, "▶"),
        (bool(s.invalid), "✗"),
        (s.deleted, "⌫"),
        (s.changed_on_disk, "●"),
        (bool(s.conflicts), "!"),
    )
    return "".join(mark for on, mark in flags if on)


def _count(n: int | None, *, hide_zero: bool = True) -> Text:
    shown = "…" if n is None else ("" if n == 0 and hide_zero else str(n))
    return Text(shown, justify="right")


def cells(row: ChapterRow, *, reading: bool) -> dict[str, Text]:
    """The cells of a row by column key; ``reading``: the workspace's first scan goes on. Names and titles come
    from files: shown escaped, never as markup (Text, not str)."""
    s = row.summary
    out = {
        "marks": Text(marks(row), no_wrap=True),
        "file": Text(visible(s.path.name, newlines=False), no_wrap=True, overflow="ellipsis"),
        "title": Text(visible(s.title or "", newlines=False), no_wrap=True, overflow="ellipsis"),
    }
    if s.invalid or s.chapter_id is None:
        blank = Text("")
        done = "invalid" if s.invalid else ("reading…" if reading else "?")
        return out | {"done": Text(done), "unreviewed": blank, "warnings": blank, "suggestions": blank}
    percent = round(100 * s.translated / s.non_empty) if s.non_empty else 100
    return out | {
        "done": Text(f"{s.translated}/{s.non_empty} {percent:>3}%", no_wrap=True),
        "unreviewed": _count(s.unreviewed),
        "warnings": _count(row.warnings),
        "suggestions": _count(s.suggestions),
    }
