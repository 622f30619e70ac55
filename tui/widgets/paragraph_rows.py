"""The rows of the chapter view: one per paragraph, plus a separator before each chunk (pure, no Textual).

Rows are plain integers so a 100,000-paragraph chapter costs one small list: ``>= 0`` is a paragraph's
0-based position, ``< 0`` is the separator of chunk ``-row - 1``. A filtered model (:meth:`RowModel.only`)
holds the rows of some paragraphs only, each chunk's separator kept above its first paragraph shown. Cells
are cut to width by terminal cells (CJK characters are two cells wide), never by characters.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from engine.chunks import Chunk, TaskType, build_chunks
from store.model import Chapter, Paragraph
from tui.terminal_text import visible

Status = Literal["empty", "untranslated", "translated", "run", "reviewed", "stale", "suggested", "conflict"]
STATUSES: tuple[Status, ...] = (
    "empty",
    "untranslated",
    "translated",
    "run",
    "reviewed",
    "stale",
    "suggested",
    "conflict",
)

# Five cells each; the help screen's legend spells them out.
STATUS_LABEL: dict[Status, str] = {
    "empty": "",
    "untranslated": "todo",
    "translated": "done",
    "run": "new",
    "reviewed": "rev✓",
    "stale": "stale",
    "suggested": "sug",
    "conflict": "CONF!",
}
STATUS_MEANING: dict[Status, str] = {
    "untranslated": "no translation yet",
    "translated": "has a selected translation",
    "run": "changed by the last run",
    "reviewed": "marked reviewed",
    "stale": "the source changed since it was translated",
    "suggested": "has pending suggestions: S opens the queue",
    "conflict": "has an unresolved conflict",
}
STATUS_WIDTH = 5
ID_WIDTH = 8
WARNING_MARK = "!"
"""Shown just before the state of a row whose paragraph has QA warnings nobody dismissed (in the space that
otherwise separates the translation from the state, so rows keep their layout)."""


def paragraph_status(para: Paragraph, run_changed: set[str] | frozenset[str], conflict_ids: frozenset[str]) -> Status:
    """The status shown for a paragraph: a conflict wins, then pending suggestions, then a translation made for a
    source that has changed since (stale), then a fresh run result, then review.

    Pending suggestions come before "changed by the last run": the suggestion waits for the editor's decision (as a
    conflict does, which is more urgent still: the file and the run disagree), whichever run made it.
    """
    if para.is_empty:
        return "empty"
    if para.id in conflict_ids:
        return "conflict"
    if para.pending:
        return "suggested"
    if para.stale:  # the translation was made for another source: whoever reviewed it, it needs a look
        return "stale"
    if para.id in run_changed:
        return "run"
    if para.reviewed:
        return "reviewed"
    return "untranslated" if para.selected_translation_id is None else "translated"


@dataclass(frozen=True)
class RowModel:
    """The row list of one chapter state with its chunk separators (perhaps of some paragraphs only)."""

    rows: tuple[int, ...]
    row_of: tuple[int, ...]  # paragraph position -> row number (-1: not shown)
    chunks: tuple[Chunk, ...]
    ids: tuple[str, ...] = ()  # the paragraph IDs the rows were built for, in order
    task: TaskType | None = None
    built_for: int = 0  # id() of the chapter object the separators were computed from
    shown: tuple[int, ...] | None = None  # the positions shown, ascending; None: every paragraph
    id_table: dict[str, int] | None = field(default=None, compare=False, repr=False)  # the chapter's positions

    @classmethod
    def build(cls, chapter: Chapter, task: TaskType | None, chunk_chars: int, *, include_all: bool = False) -> RowModel:
        """Rows for ``chapter``; ``task`` None shows no separators; ``include_all`` as a run's ``--all``."""
        chunks = tuple(build_chunks(chapter, task, chunk_chars=chunk_chars, include_all=include_all)) if task else ()
        starts = {chunk.paragraph_indexes[0] - 1: number for number, chunk in enumerate(chunks)}
        rows: list[int] = []
        row_of: list[int] = []
        for pos in range(len(chapter.paragraphs)):
            number = starts.get(pos)
            if number is not None:
                rows.append(-number - 1)
            row_of.append(len(rows))
            rows.append(pos)
        return cls(
            tuple(rows),
            tuple(row_of),
            chunks,
            tuple(p.id for p in chapter.paragraphs),
            task,
            id(chapter),
            id_table=chapter.positions,
        )

    def only(self, positions: Iterable[int]) -> RowModel:
        """These rows for the paragraphs at ``positions`` only; a chunk's separator stays above its first
        paragraph shown, and separators of chunks with none shown go."""
        keep = set(positions)
        rows: list[int] = []
        row_of = [-1] * len(self.row_of)
        separator: int | None = None
        for ref in self.rows:
            if ref < 0:
                separator = ref
            elif ref in keep:
                if separator is not None:
                    rows.append(separator)
                    separator = None
                row_of[ref] = len(rows)
                rows.append(ref)
        shown = tuple(ref for ref in rows if ref >= 0)
        return RowModel(
            tuple(rows), tuple(row_of), self.chunks, self.ids, self.task, self.built_for, shown, id_table=self.id_table
        )

    @property
    def positions(self) -> Sequence[int]:
        """The positions of the paragraphs shown, ascending."""
        return range(len(self.row_of)) if self.shown is None else self.shown

    def is_shown(self, position: int) -> bool:
        """Whether the paragraph at ``position`` has a row."""
        return 0 <= position < len(self.row_of) and self.row_of[position] >= 0

    def nearest_shown(self, position: int) -> int | None:
        """The shown position at or after ``position``, else the last one before it; None when none is shown."""
        positions = self.positions
        if not positions:
            return None
        at = bisect_left(positions, position)
        return positions[at] if at < len(positions) else positions[-1]

    def step(self, position: int, count: int) -> int | None:
        """The shown position ``count`` rows of paragraphs after ``position`` (before it when negative), clamped
        to the first and last shown; None when none is shown."""
        positions = self.positions
        if not positions:
            return None
        at = bisect_left(positions, position)
        if count > 0 and (at == len(positions) or positions[at] != position):
            at -= 1  # ``position`` is hidden: the shown one after it is the first step forward
        return positions[min(max(at + count, 0), len(positions) - 1)]

    def fits(self, chapter: Chapter) -> bool:
        """Whether these rows (perhaps with stale separators) still describe ``chapter``'s paragraphs."""
        if self.id_table is not None and chapter.cached("positions") is self.id_table:
            return True  # a version that kept every ID carries the very position table these rows were built from
        paragraphs = chapter.paragraphs
        return len(paragraphs) == len(self.ids) and all(p.id == i for p, i in zip(paragraphs, self.ids, strict=True))

    def chunk_of(self, position: int) -> Chunk | None:
        """The chunk holding the paragraph at ``position``, if it is in the work set."""
        row = self.row_of[position]
        for r in range(row, -1, -1):
            if self.rows[r] < 0:
                chunk = self.chunks[-self.rows[r] - 1]
                return chunk if position + 1 in chunk.paragraph_indexes else None
        return None


def one_line(text: str) -> str:
    """Text for a single row: line breaks and tabs shown as spaces, other control characters escaped."""
    flat = text.replace("\r\n", " ⏎ ").replace("\n", " ⏎ ").replace("\r", " ").replace("\t", " ")
    return visible(flat, newlines=False)


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` terminal cells with an ellipsis, padded with spaces to exactly ``width``."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text + " " * (width - cell_len(text))
    out: list[str] = []
    used = 0
    for ch in text:
        w = cell_len(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…" + " " * (width - 1 - used)


@dataclass(frozen=True)
class Columns:
    """Cell widths of the row columns for a given total width."""

    index: int
    source: int
    translation: int

    @classmethod
    def for_width(cls, width: int, paragraph_count: int) -> Columns:
        """Split ``width`` cells: index, ID, source, translation, status, with one space between."""
        index = len(str(max(paragraph_count, 1))) + 2
        rest = max(width - index - ID_WIDTH - STATUS_WIDTH - 4, 2)
        source = rest // 2
        return cls(index, source, rest - source)


@dataclass(frozen=True)
class RowStyles:
    """Rich styles of the row parts (taken from the widget's component classes, i.e. the theme)."""

    index: Style
    ident: Style
    source: Style
    translation: Style
    empty: Style
    separator: Style
    status: dict[Status, Style]
    warning: Style  # the QA warning mark


def header_text(cols: Columns, style: Style) -> Text:
    """The column heading line."""
    line = " ".join(
        (
            fit("[n]", cols.index),
            fit("id", ID_WIDTH),
            fit("source", cols.source),
            fit("translation", cols.translation),
            fit("state", STATUS_WIDTH),
        )
    )
    return Text(line, style=style, no_wrap=True, end="")


def paragraph_text(
    para: Paragraph, position: int, status: Status, cols: Columns, styles: RowStyles, *, warned: bool = False
) -> Text:
    """One paragraph row; ``warned``: the paragraph has QA warnings (marked before the state)."""
    index = fit(f"[{position + 1}]".rjust(cols.index), cols.index)
    ident = fit(visible(para.id, newlines=False), ID_WIDTH)
    if status == "empty":
        line = f"{index} {ident} " + fit("(empty)", cols.source + cols.translation + STATUS_WIDTH + 2)
        return Text(line, style=styles.empty, no_wrap=True, end="")
    text = Text(no_wrap=True, end="")
    text.append(index, styles.index)
    text.append(" ")
    text.append(ident, styles.ident)
    text.append(" ")
    text.append(fit(one_line(para.text), cols.source), styles.source)
    text.append(" ")
    text.append(fit(one_line(para.selected_text or ""), cols.translation), styles.translation)
    text.append(WARNING_MARK if warned else " ", styles.warning if warned else None)
    text.append(fit(STATUS_LABEL[status], STATUS_WIDTH), styles.status[status])
    return text


def separator_text(chunk: Chunk, width: int, style: Style) -> Text:
    """The separator line before a chunk."""
    heading = chunk.heading()
    return Text(fit(heading + "─" * max(width - cell_len(heading), 0), width), style=style, no_wrap=True, end="")


def find_target(chapter: Chapter, target: str) -> int | None:
    """The position named by ``target``: a 1-based index (``12`` or ``[12]``), or a paragraph ID or ID prefix."""
    wanted = target.strip().strip("[]").strip()
    if not wanted:
        return None
    number = int(wanted) if wanted.isdigit() else 0
    if 1 <= number <= len(chapter.paragraphs):
        return number - 1
    exact = chapter.positions.get(wanted)
    return exact if exact is not None else _by_prefix(chapter, wanted)


def _by_prefix(chapter: Chapter, prefix: str) -> int | None:
    """The first position whose paragraph ID starts with ``prefix``."""
    return min((pos for pid, pos in chapter.positions.items() if pid.startswith(prefix)), default=None)
