"""The chapter view's paragraph table: a Line API widget that renders only the rows on screen.

No widget per paragraph: ``render_line`` draws the visible rows from the row model, so a chapter of
10,000 or 100,000 paragraphs scrolls as fast as a short one. Colours come from component classes styled
in ``themes/proofdesk.tcss``.

A filter (:meth:`ParagraphTable.set_filter`, a set of paragraph IDs) shows some paragraphs only: the cursor
and the table's own keys stay on the rows shown, and moving the cursor to a hidden paragraph from outside
(search, go to) ends the filter, so the cursor is never on a row nobody sees.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.cache import LRUCache
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from store.model import Chapter, Paragraph
from tui.widgets.paragraph_rows import (
    STATUSES,
    Columns,
    RowModel,
    RowStyles,
    Status,
    header_text,
    paragraph_status,
    paragraph_text,
    separator_text,
)


class ParagraphTable(ScrollView, can_focus=True):
    """One row per paragraph with chunk separators; the cursor is a paragraph position."""

    BINDINGS = [
        Binding("up,k", "cursor_up", "Up", show=False, id="table.up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="table.down"),
        Binding("pageup", "page_up", "Page up", show=False, id="table.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="table.page_down"),
        Binding("home", "first", "First paragraph", show=False, id="table.first"),
        Binding("end", "last", "Last paragraph", show=False, id="table.last"),
    ]

    COMPONENT_CLASSES = {
        "paragraph-table--header",
        "paragraph-table--cursor",
        "paragraph-table--index",
        "paragraph-table--id",
        "paragraph-table--source",
        "paragraph-table--translation",
        "paragraph-table--empty",
        "paragraph-table--separator",
        "paragraph-table--match",
        "paragraph-table--warning",
        *(f"paragraph-table--status-{s}" for s in STATUSES),
    }

    cursor: reactive[int] = reactive(0, always_update=False, init=False)

    class CursorMoved(Message):
        """The cursor is on another paragraph (or the chapter under it changed)."""

        def __init__(self, table: ParagraphTable, position: int, paragraph: Paragraph | None) -> None:
            super().__init__()
            self.table = table
            self.position = position
            self.paragraph = paragraph

        @property
        def control(self) -> ParagraphTable:
            return self.table

    class FilterDropped(Message):
        """The filter ended without being asked to: the cursor went to a hidden paragraph, or none is left."""

        def __init__(self, table: ParagraphTable, label: str | None, reason: str) -> None:
            super().__init__()
            self.table = table
            self.label = label  # what the filter showed
            self.reason = reason  # why it ended, in words

        @property
        def control(self) -> ParagraphTable:
            return self.table

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.chapter: Chapter | None = None
        self.model: RowModel = RowModel((), (), ())
        self.run_changed: frozenset[str] = frozenset()
        self.conflict_ids: frozenset[str] = frozenset()
        self.warned: frozenset[str] = frozenset()  # IDs of paragraphs with QA warnings (marked)
        self.only_ids: frozenset[str] | None = None  # the filter: only these paragraphs have rows
        self.filter_label: str | None = None  # what the filter shows, in words
        self._shown: RowModel = self.model  # the rows drawn: the model, or its rows of the filter's paragraphs
        self._generation = 0
        self._cache: LRUCache[tuple[int, bool, int, int], Strip] = LRUCache(512)
        self._styles: RowStyles | None = None
        self.highlight: str | None = None  # the search text shown highlighted

    # -- data --------------------------------------------------------------------------------------------

    def show(
        self,
        chapter: Chapter,
        model: RowModel,
        *,
        run_changed: frozenset[str] = frozenset(),
        conflict_ids: frozenset[str] = frozenset(),
    ) -> None:
        """Show a (new) state of the chapter; the cursor stays on the same paragraph ID where it can."""
        previous = self.current_paragraph
        self.chapter = chapter
        self.model = model
        self.run_changed = run_changed
        self.conflict_ids = conflict_ids
        if not self._derive_shown():
            self._drop_filter("none of the paragraphs it showed is left")
        self._rows_changed()
        position = self.cursor
        if previous is not None and previous.id in chapter.positions:
            position = chapter.positions[previous.id]
        self._place_cursor(position)

    def _derive_shown(self) -> bool:
        """Rebuild the rows drawn from the model and the filter; False when the filter matches no paragraph."""
        if self.only_ids is None or self.chapter is None:
            self._shown = self.model
            return True
        positions = self.chapter.positions
        found = [positions[i] for i in self.only_ids if i in positions]
        if not found:
            return False
        self._shown = self.model.only(found)
        return True

    def _drop_filter(self, reason: str) -> None:
        label = self.filter_label
        self.only_ids = None
        self.filter_label = None
        self._shown = self.model
        self.post_message(self.FilterDropped(self, label, reason))

    def _rows_changed(self) -> None:
        self._generation += 1
        self._cache.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, len(self._shown.rows) + 1)
        self.refresh()

    def _place_cursor(self, position: int) -> None:
        """The cursor on ``position`` (clamped), or on the nearest paragraph shown when that one is hidden."""
        if self.chapter is None:
            return
        position = min(max(position, 0), max(len(self.chapter.paragraphs) - 1, 0))
        if self.only_ids is not None:
            nearest = self._shown.nearest_shown(position)
            position = position if nearest is None else nearest
        if position != self.cursor:
            self.cursor = position
        else:
            self._scroll_cursor_into_view()
            self.post_message(self.CursorMoved(self, position, self.current_paragraph))

    def set_filter(self, label: str | None, ids: frozenset[str] | None) -> bool:
        """Show only the paragraphs ``ids`` (``label`` says which, in words); None shows every paragraph.

        False (and every paragraph shown) when none of ``ids`` is in the chapter.
        """
        if ids is None:
            self.only_ids = self.filter_label = None
            self._shown = self.model
            ok = True
        else:
            self.only_ids, self.filter_label = ids, label
            ok = self._derive_shown()
            if not ok:
                self.only_ids = self.filter_label = None
                self._shown = self.model
        self._rows_changed()
        self._place_cursor(self.cursor)
        return ok

    def is_shown(self, position: int) -> bool:
        """Whether the paragraph at ``position`` has a row (the filter may hide it)."""
        return self._shown.is_shown(position)

    def set_warned(self, ids: frozenset[str]) -> None:
        """Mark the rows of these paragraphs as having QA warnings."""
        if ids != self.warned:
            self.warned = ids
            self._generation += 1
            self._cache.clear()
            self.refresh()

    def set_highlight(self, needle: str | None) -> None:
        """Highlight every occurrence of ``needle`` (ignoring case) in the rows; None: no highlight."""
        if needle != self.highlight:
            self.highlight = needle
            self._generation += 1
            self._cache.clear()
            self.refresh()

    def set_marks(self, *, run_changed: frozenset[str], conflict_ids: frozenset[str]) -> None:
        """Update which paragraphs the last run changed and which have conflicts (statuses only)."""
        if run_changed == self.run_changed and conflict_ids == self.conflict_ids:
            return
        self.run_changed = run_changed
        self.conflict_ids = conflict_ids
        self._generation += 1
        self._cache.clear()
        self.refresh()

    @property
    def current_paragraph(self) -> Paragraph | None:
        """The paragraph under the cursor."""
        if self.chapter is None or not self.chapter.paragraphs:
            return None
        return self.chapter.paragraphs[min(self.cursor, len(self.chapter.paragraphs) - 1)]

    def status_of(self, para: Paragraph) -> Status:
        """The status shown for ``para`` in this view."""
        return paragraph_status(para, self.run_changed, self.conflict_ids)

    def move_to(self, position: int) -> None:
        """Put the cursor on the paragraph at ``position`` (clamped); a filter hiding it ends."""
        if self.chapter is None or not self.chapter.paragraphs:
            return
        position = min(max(position, 0), len(self.chapter.paragraphs) - 1)
        if not self._shown.is_shown(position) and self.only_ids is not None:
            self._drop_filter(f"[{position + 1}] was hidden by the filter")
            self._rows_changed()
        self.cursor = position

    def _step(self, count: int) -> None:
        """Move the cursor ``count`` rows of paragraphs (the rows shown), clamped."""
        target = self._shown.step(self.cursor, count)
        if target is not None:
            self.cursor = target

    def watch_cursor(self, old: int, new: int) -> None:
        self._refresh_position(old)
        self._refresh_position(new)
        self._scroll_cursor_into_view()
        self.post_message(self.CursorMoved(self, new, self.current_paragraph))

    def _refresh_position(self, position: int) -> None:
        if self._shown.is_shown(position):
            self.refresh_line(self._shown.row_of[position] + 1)

    @property
    def _page(self) -> int:
        return max(self.size.height - 2, 1)

    def _scroll_cursor_into_view(self) -> None:
        shown = self._shown
        if not shown.row_of:
            return
        row = shown.row_of[min(self.cursor, len(shown.row_of) - 1)]
        if row < 0:
            return
        # Keep a chunk's separator in view with the chunk's first paragraph.
        top_wanted = row - 1 if row > 0 and shown.rows[row - 1] < 0 else row
        visible = max(self.size.height - 1, 1)
        top = round(self.scroll_y)
        if top_wanted < top:
            self.scroll_to(y=top_wanted, animate=False, force=True)
        elif row >= top + visible:
            self.scroll_to(y=row - visible + 1, animate=False, force=True)

    # -- actions -----------------------------------------------------------------------------------------

    def action_cursor_up(self) -> None:
        self._step(-1)

    def action_cursor_down(self) -> None:
        self._step(1)

    def action_page_up(self) -> None:
        self._step(-self._page)

    def action_page_down(self) -> None:
        self._step(self._page)

    def action_first(self) -> None:
        self._step(-len(self._shown.rows))

    def action_last(self) -> None:
        self._step(len(self._shown.rows))

    def on_click(self, event: Click) -> None:
        rows = self._shown.rows
        row = round(self.scroll_y) + event.y - 1
        if event.y >= 1 and 0 <= row < len(rows) and rows[row] >= 0:
            self.move_to(rows[row])

    # -- rendering ---------------------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None
        self._cache.clear()

    def on_resize(self) -> None:
        self._cache.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, len(self._shown.rows) + 1)
        self._scroll_cursor_into_view()

    def _row_styles(self) -> RowStyles:
        if self._styles is None:
            get = self.get_component_rich_style
            self._styles = RowStyles(
                index=get("paragraph-table--index"),
                ident=get("paragraph-table--id"),
                source=get("paragraph-table--source"),
                translation=get("paragraph-table--translation"),
                empty=get("paragraph-table--empty"),
                separator=get("paragraph-table--separator"),
                status={s: get(f"paragraph-table--status-{s}") for s in STATUSES},
                warning=get("paragraph-table--warning"),
            )
        return self._styles

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base: Style = self.rich_style
        chapter = self.chapter
        count = len(chapter.paragraphs) if chapter is not None else 0
        cols = Columns.for_width(width, count)
        if y == 0:
            text = header_text(cols, self.get_component_rich_style("paragraph-table--header"))
            return self._strip(text, base, width)
        row = round(self.scroll_y) + y - 1
        shown = self._shown
        if chapter is None or row >= len(shown.rows):
            return Strip.blank(width, base)
        ref = shown.rows[row]
        is_cursor = ref >= 0 and ref == self.cursor
        key = (row, is_cursor, width, self._generation)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        if ref < 0:
            text = separator_text(shown.chunks[-ref - 1], width, self._row_styles().separator)
        else:
            text = self._paragraph_row(chapter.paragraphs[ref], ref, cols, is_cursor)
        strip = self._strip(text, base, width)
        self._cache[key] = strip
        return strip

    def _paragraph_row(self, para: Paragraph, position: int, cols: Columns, is_cursor: bool) -> Text:
        """The row of ``para``: its marks, the search highlighted, and the cursor's style on it."""
        status = self.status_of(para)
        text = paragraph_text(para, position, status, cols, self._row_styles(), warned=para.id in self.warned)
        if self.highlight:
            match = self.get_component_rich_style("paragraph-table--match")
            text.highlight_words([self.highlight], match, case_sensitive=False)
        if is_cursor:
            text.stylize(self.get_component_rich_style("paragraph-table--cursor"))
        return text

    def _strip(self, text: Text, base: Style, width: int) -> Strip:
        text.stylize_before(base)
        return Strip(text.render(self.app.console)).crop_extend(0, width, base)
