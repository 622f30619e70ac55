"""The detail pane under the paragraph table: full source and translation, the versions, and a diff.

The diff compares the version being viewed (stepped with ``[`` / ``]``) with the one before it under the one rule
of :mod:`tui.text_diff` (words in Latin script, characters in CJK; ``rewritten`` when more than half changed).
Long texts are diffed in a thread worker so the cursor never waits for ``SequenceMatcher``.
Everything from the chapter file (IDs, texts, models, timestamps) is shown with control characters escaped.
The paragraph's QA warnings are listed under its title, above the texts, and the place of each in the selected
translation (its span) is highlighted there.

Texts are wrapped by :mod:`tui.widgets.line_break` to the width left once the scrollbar's gutter is
reserved, so a scrollbar appearing never clips a character. From ``SIDE_BY_SIDE_WIDTH`` cells on, source and
translation stand in two columns. The pane zooms itself to the screen's body (:meth:`DetailPane.toggle_zoom`) and
scrolls without the focus (:meth:`DetailPane.scroll_lines`); :class:`tui.widgets.chapter_panes.ChapterPanes`
binds the keys that do it from whichever pane has the focus.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from engine.checks import CheckWarning
from engine.memory.index import MemoryMatch
from store.glossary import GlossaryEntry
from store.model import Paragraph, TranslationVersion
from tui.terminal_text import visible
from tui.text_diff import TextDiff, text_diff
from tui.widgets.line_break import line_breaks
from tui.widgets.paragraph_rows import STATUS_LABEL, STATUS_MEANING, Status
from tui.worker_failures import ReportsWorkerFailures

_INLINE_DIFF_CHARS = 1500  # longer pairs are diffed in a thread
# A text is laid out (wrapped, kinsoku and all) up to this many characters; the rest is named in a line of its own.
# Laying out costs ~3 us a character, so a 5 MB paragraph took the workstation 15-50 s to show; this bounds it.
SHOWN_CHARS = 50_000
_MIN_WIDTH = 10  # before the first layout the pane has no width yet
_TAB_SIZE = 4
SIDE_BY_SIDE_WIDTH = 120
"""From this pane width on (in cells), source and translation stand side by side."""
COLUMN_SEPARATOR = " │ "
"""Drawn between the source column and the translation column."""


def version_label(number: int, version: TranslationVersion, selected: bool) -> str:
    """``v2 polish · deepseek-chat · 2026-11-21T10:00:00Z (selected)``; a suggestion says what became of it
    (``· suggested``, ``· accepted``, ``· rejected``)."""
    parts = [f"v{number}", version.origin]
    if version.model:
        parts.append(version.model)
    parts.append(version.created_at)
    if version.status is not None:
        parts.append(version.status)
    return visible(" · ".join(parts), newlines=False) + (" (selected)" if selected else "")


@dataclass(frozen=True)
class _Pair:
    """Two texts shown side by side when the pane is wide enough, one above the other when not."""

    left: Text
    right: Text


_Block = Text | _Pair


class DetailPane(ScrollView, ReportsWorkerFailures, can_focus=True):
    """Everything about the paragraph under the cursor; scrolls when focused, or from the table (J / K).

    A Line API widget: the text is wrapped to the pane's width here, so showing another paragraph redraws
    the pane without a layout pass of the whole screen (cursor moves stay cheap).
    """

    # The gutter is reserved whether or not the scrollbar shows: the wrap width never changes under the text.
    DEFAULT_CSS = """
    DetailPane {
        scrollbar-gutter: stable;
    }
    """

    BINDINGS = [
        Binding("up,k", "scroll_up", "Scroll up", show=False, id="detail.up"),
        Binding("down,j", "scroll_down", "Scroll down", show=False, id="detail.down"),
    ]

    COMPONENT_CLASSES = {
        "detail-pane--heading",
        "detail-pane--muted",
        "detail-pane--insert",
        "detail-pane--delete",
        "detail-pane--selected",
        "detail-pane--viewed",
        "detail-pane--match",
        "detail-pane--warning",
        "detail-pane--warning-span",
    }

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._token = 0  # bumped on every show(), so a late diff for another paragraph is dropped
        self.highlight: str | None = None  # the search text shown highlighted in source and translation
        self._blocks: list[_Block] = []
        self._diff_at: int | None = None  # the block holding the diff, while it is being computed
        self._lines: list[Strip] = []
        self._laid_out_for: tuple[int, bool] = (0, False)  # (wrap width, side by side)
        self._focus_before_zoom: Widget | None = None

    @property
    def plain(self) -> str:
        """The text shown, without styles (for tests and copying); side by side, the left column comes first."""
        parts: list[str] = []
        for block in self._blocks:
            parts.extend((block.left.plain, block.right.plain) if isinstance(block, _Pair) else (block.plain,))
        return "\n".join(parts)

    @property
    def side_by_side(self) -> bool:
        """Whether the source and the translation stand in two columns (the pane is wide enough)."""
        return self.outer_size.width >= SIDE_BY_SIDE_WIDTH

    def _set(self, blocks: list[_Block], *, keep_scroll: bool = False) -> None:
        self._blocks = blocks
        self._layout_lines()
        if not keep_scroll:
            self.scroll_to(y=0, animate=False)

    # -- layout ---------------------------------------------------------------------------------------------

    def _layout_lines(self) -> None:
        width = max(self.scrollable_content_region.width, _MIN_WIDTH)
        wide = self.side_by_side
        self._laid_out_for = (width, wide)
        lines: list[Strip] = []
        for block in self._blocks:
            if isinstance(block, _Pair):
                if wide:
                    lines.extend(self._columns(block, width))
                else:
                    lines.extend(self._wrap(block.left, width))
                    lines.extend(self._wrap(block.right, width))
            else:
                lines.extend(self._wrap(block, width))
        self._lines = lines
        self.virtual_size = Size(width, len(lines))
        self.refresh()

    def _wrap(self, text: Text, width: int) -> list[Strip]:
        """``text`` as lines of at most ``width`` cells (spaces where a line broke may hang past it)."""
        console = self.app.console
        strips: list[Strip] = []
        for line in text.split("\n", allow_blank=True):
            line.expand_tabs(_TAB_SIZE)
            for piece in line.divide(line_breaks(line.plain, width)):
                strips.append(Strip(piece.render(console)))
        return strips

    def _columns(self, pair: _Pair, width: int) -> list[Strip]:
        gap = cell_len(COLUMN_SEPARATOR)
        left_width = (width - gap) // 2
        right_width = width - gap - left_width
        left, right = self._wrap(pair.left, left_width), self._wrap(pair.right, right_width)
        separator = Strip([Segment(COLUMN_SEPARATOR, self._style("muted"))])
        rows: list[Strip] = []
        for row in range(max(len(left), len(right))):
            cells = [
                left[row].crop_extend(0, left_width, None) if row < len(left) else Strip.blank(left_width),
                separator,
                right[row].crop_extend(0, right_width, None) if row < len(right) else Strip.blank(right_width),
            ]
            rows.append(Strip.join(cells))
        return rows

    def on_resize(self) -> None:
        if (max(self.scrollable_content_region.width, _MIN_WIDTH), self.side_by_side) != self._laid_out_for:
            self._layout_lines()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        row = round(self.scroll_y) + y
        if row >= len(self._lines):
            return Strip.blank(width, base)
        return self._lines[row].apply_style(base).crop_extend(0, width, base)

    # -- scrolling ------------------------------------------------------------------------------------------

    def scroll_lines(self, lines: int) -> None:
        """Scroll by ``lines`` (negative: up), without taking the focus."""
        self.scroll_to(y=self.scroll_y + lines, animate=False)

    def action_scroll_up(self) -> None:
        self.scroll_lines(-1)

    def action_scroll_down(self) -> None:
        self.scroll_lines(1)

    # -- zoom -----------------------------------------------------------------------------------------------

    def toggle_zoom(self) -> None:
        """Fill the screen's body, or go back under the table (escape does that too).

        Zoomed, the pane has the focus (a widget that is not shown cannot keep it), so ``j`` / ``k`` scroll it;
        the focus goes back where it was when the pane is restored.
        """
        screen = self.screen
        if screen.maximized is self:
            screen.minimize()
            return
        self._focus_before_zoom = screen.focused
        if screen.maximize(self, container=False):
            self.focus()

    def on_mount(self) -> None:
        self.watch(self.screen, "maximized", self._maximized_changed, init=False)

    def _maximized_changed(self, previous: Widget | None, maximized: Widget | None) -> None:
        if maximized is None and previous is self:
            before, self._focus_before_zoom = self._focus_before_zoom, None
            if before is not None and before.is_attached:
                before.focus()

    # -- content ----------------------------------------------------------------------------------------------

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"detail-pane--{name}")

    def show(
        self,
        para: Paragraph | None,
        position: int,
        status: Status,
        viewed: int | None,
        warnings: Sequence[CheckWarning] = (),
        terms: Sequence[GlossaryEntry] = (),
        memory: Callable[[], MemoryMatch | None] | None = None,
    ) -> None:
        """Show ``para``; ``viewed`` is the 0-based index of the version being looked at (None: selected);
        ``warnings`` are the QA warnings of its selected translation; ``terms`` the glossary entries its source
        mentions; ``memory`` looks up its best earlier translation (called in a thread, shown under the glossary
        when it comes back)."""
        self._token += 1
        self._diff_at = None
        if para is None:
            self._set([Text("No paragraph.", style=self._style("muted"), end="")])
            return
        title, source = self._title(para, position, status), self._source(para)
        glossary = [self._terms(terms)] if terms else []
        if not para.translations:
            self._set([title, _Pair(source, Text("No translation yet.", self._style("muted"), end="")), *glossary])
            self._memory_later_at(memory, len(self._blocks))
            return
        index = viewed_index(para, viewed)
        selected = para.translations[index].id == para.selected_translation_id
        translation = self._translation(para, index, selected, warnings)
        if self.highlight:
            for text in (source, translation):
                text.highlight_words([self.highlight], self._style("match"), case_sensitive=False)
        blocks: list[_Block] = [*self._heading(title, warnings, selected), _Pair(source, translation), *glossary]
        memory_at = len(blocks)
        blocks.extend(self._diff_blocks(para, index, len(blocks)))
        blocks.append(self._versions(para, index))
        self._set(blocks)
        self._memory_later_at(memory, memory_at)

    def _memory_later_at(self, memory: Callable[[], MemoryMatch | None] | None, at: int) -> None:
        if memory is not None:
            self._memory_later(memory, at, self._token)

    # Not exclusive: a cancelled thread runs to its end anyway, and the token drops a late answer.
    @work(thread=True, group="memory", description="memory of the paragraph", exit_on_error=False)
    def _memory_later(self, memory: Callable[[], MemoryMatch | None], at: int, token: int) -> None:
        match = memory()
        if match is not None:
            self.app.call_from_thread(self._finish_memory, match, at, token)

    def _finish_memory(self, match: MemoryMatch, at: int, token: int) -> None:
        """Insert the memory line at block ``at`` (the diff's place, if it is still computing, moves down)."""
        if token != self._token:
            return
        blocks = list(self._blocks)
        blocks.insert(at, self._memory(match))
        if self._diff_at is not None and self._diff_at >= at:
            self._diff_at += 1
        self._set(blocks, keep_scroll=True)

    def _memory(self, match: MemoryMatch) -> Text:
        """``Memory: ≈ 87%: earlier source → earlier translation``."""
        text = Text(end="")
        text.append("Memory: ", self._style("heading"))
        sign = "=" if match.exact else "≈"
        text.append(f"{sign} {match.percent}%: ", self._style("muted"))
        text.append(visible(f"{match.entry.source} → {match.entry.target}", newlines=False))
        return text

    def _title(self, para: Paragraph, position: int, status: Status) -> Text:
        meaning = STATUS_MEANING.get(status, "empty paragraph")
        label = STATUS_LABEL[status] or "empty"
        heading = f"[{position + 1}] {visible(para.id, newlines=False)} · {label} ({meaning})"
        return Text(heading, self._style("heading"), end="")

    def _source(self, para: Paragraph) -> Text:
        source = Text(end="")
        source.append("Source: ", self._style("heading"))
        source.append(visible(para.text[:SHOWN_CHARS]) if para.text else "(empty)")
        self._rest(source, para.text)
        return source

    def _rest(self, text: Text, raw: str) -> None:
        """After a text cut at ``SHOWN_CHARS``: how much more there is and where to read it whole."""
        if len(raw) > SHOWN_CHARS:
            more = len(raw) - SHOWN_CHARS
            text.append(f"\n… {more:,} more characters (E shows the whole text in $EDITOR)", self._style("muted"))

    def _translation(self, para: Paragraph, index: int, selected: bool, warnings: Sequence[CheckWarning]) -> Text:
        version = para.translations[index]
        translation = Text(end="")
        translation.append(f"Translation {version_label(index + 1, version, selected)}: ", self._style("heading"))
        # Spans are places in the selected text: another version shown has none of them.
        spans = [w.span for w in warnings if w.span is not None] if selected else []
        append_marked(translation, version.text[:SHOWN_CHARS], spans, self._style("warning-span"))
        self._rest(translation, version.text)
        return translation

    def _heading(self, title: Text, warnings: Sequence[CheckWarning], selected: bool) -> list[_Block]:
        """The title, and under it the warnings: a short pane shows what is wrong before any long text."""
        if not warnings:
            return [title]
        count = len(warnings)
        suffix = f" · {count} warning{'' if count == 1 else 's'}{'' if selected else ' on the selected version'}"
        # Rich draws a Text without spans in no style at all: the title keeps that look beside the new part.
        title = Text.assemble(title.plain, (suffix + " (d dismisses)", self._style("warning")), end="")
        return [title, self._warnings(warnings)]

    def _diff_blocks(self, para: Paragraph, index: int, at: int) -> list[_Block]:
        """The diff of the version shown with the one before it (none for the first), as block ``at``; a long
        pair is diffed in a thread and shows "computing…" until then."""
        if index == 0:
            return []
        old, new = para.translations[index - 1].text, para.translations[index].text
        if len(old) + len(new) <= _INLINE_DIFF_CHARS:
            return [self._diff(index, text_diff(old, new))]
        self._diff_at = at
        self._diff_later(index, old, new, self._token)
        return [self._diff(index, None)]

    def _terms(self, terms: Sequence[GlossaryEntry]) -> Text:
        """``Glossary: 下人 → the servant · 老婆 → the old woman (proposed)`` (G opens the glossary)."""
        text = Text(end="")
        text.append("Glossary: ", self._style("heading"))
        text.append(
            " · ".join(
                visible(f"{e.source} → {e.target}" + (" (proposed)" if e.status == "proposed" else ""), newlines=False)
                for e in terms
            )
        )
        return text

    def _warnings(self, warnings: Sequence[CheckWarning]) -> Text:
        """One line per warning: code, severity, message."""
        text = Text(end="")
        for i, w in enumerate(warnings):
            text.append("\n" if i else "")
            text.append(w.code, self._style("warning"))
            text.append(f" · {w.severity} · ", self._style("muted"))
            text.append(visible(w.message, newlines=False))  # messages quote the texts: shown escaped
        return text

    def _versions(self, para: Paragraph, viewed: int) -> Text:
        text = Text(end="")
        text.append(f"Versions ({len(para.translations)}): [ ] step · enter selects", self._style("heading"))
        for i, v in enumerate(para.translations):
            marker = "▶" if i == viewed else " "
            selected = v.id == para.selected_translation_id
            style = (
                self._style("viewed")
                if i == viewed
                else (self._style("selected") if selected else self._style("muted"))
            )
            text.append(f"\n{marker} {version_label(i + 1, v, selected)}", style)
        return text

    def _diff(self, viewed: int, diff: TextDiff | None) -> Text:
        """``Diff v1 → v2:`` (``· rewritten`` when more than half changed) and the pieces (None: still being
        computed)."""
        text = Text(end="")
        text.append(f"Diff v{viewed} → v{viewed + 1}", self._style("heading"))
        if diff is not None and diff.rewritten:
            text.append(" · rewritten", self._style("warning"))
        text.append(": ", self._style("heading"))
        if diff is None:
            text.append("(computing…)", self._style("muted"))
            return text
        insert, delete = self._style("insert"), self._style("delete")
        if not diff.pieces:
            text.append("(no change)", self._style("muted"))
        for op, chunk in diff.pieces:  # diffed as they are, shown escaped (each control escapes on its own)
            text.append(visible(chunk), insert if op == "insert" else delete if op == "delete" else Style())
        return text

    @work(thread=True, exclusive=True, group="detail-diff", description="text diff", exit_on_error=False)
    def _diff_later(self, viewed: int, old: str, new: str, token: int) -> None:
        diff = text_diff(old, new)
        self.app.call_from_thread(self._finish_diff, viewed, diff, token)

    def _finish_diff(self, viewed: int, diff: TextDiff, token: int) -> None:
        at = self._diff_at
        if token != self._token or at is None:
            return
        blocks = list(self._blocks)
        blocks[at] = self._diff(viewed, diff)
        self._diff_at = None
        self._set(blocks, keep_scroll=True)


def viewed_index(para: Paragraph, viewed: int | None) -> int:
    """The version to show: ``viewed`` when it is one of ``para``'s, else the selected one (else the last)."""
    versions = para.translations
    if viewed is not None and 0 <= viewed < len(versions):
        return viewed
    return next((i for i, v in enumerate(versions) if v.id == para.selected_translation_id), len(versions) - 1)


def append_marked(text: Text, raw: str, spans: Sequence[tuple[int, int]], style: Style) -> None:
    """Append ``raw`` to ``text`` shown escaped, with the characters inside any of ``spans`` (offsets in
    ``raw``) in ``style``. Each piece is escaped on its own, so an escape never splits a marked place."""
    places = _places(spans, len(raw))
    cuts = sorted({0, len(raw), *(edge for place in places for edge in place)})
    for a, b in pairwise(cuts):
        marked = any(s <= a and b <= e for s, e in places)
        text.append(visible(raw[a:b]), style if marked else None)


def _places(spans: Sequence[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    """``spans`` kept within ``[0, size]``, the empty ones left out."""
    clamped = [(min(max(a, 0), size), min(max(b, 0), size)) for a, b in spans]
    return [(a, b) for a, b in clamped if a < b]
