"""The chapter view's paragraph table: a Line API widget that renders only the rows on screen.

No widget per paragraph: ``render_line`` draws the visible rows from the row model, so a chapter of
10,000 or 100,000 paragraphs scrolls as fast as a short one. Colours come from component classes styled
in ``themes/proofdesk.tcss``.
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

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.chapter: Chapter | None = None
        self.model: RowModel = RowModel((), (), ())
        self.run_changed: frozenset[str] = frozenset()
        self.conflict_ids: frozenset[str] = frozenset()
        self._generation = 0
        self._cache: LRUCache[tuple[int, bool, int, int], Strip] = LRUCache(512)
        self._styles: RowStyles | None = None
        self.highlight: str | None = None  # the search text shown highlighted

    # -- data --------------------------------------------------------------------------------------------

    def show(self, chapter: Chapter, model: RowModel, *, run_changed: frozenset[str] = frozenset(),
             conflict_ids: frozenset[str] = frozenset()) -> None:
        """Show a (new) state of the chapter; the cursor stays on the same paragraph ID where it can."""
        previous = self.current_paragraph
        self.chapter = chapter
        self.model = model
        self.run_changed = run_changed
        self.conflict_ids = conflict_ids
        self._generation += 1
        self._cache.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, len(model.rows) + 1)
        position = self.cursor
        if previous is not None and previous.id in chapter.positions:
            position = chapter.positions[previous.id]
        position = min(max(position, 0), max(len(chapter.paragraphs) - 1, 0))
        if position != self.cursor:
            self.cursor = position
        else:
            self._scroll_cursor_into_view()
            self.post_message(self.CursorMoved(self, position, self.current_paragraph))
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
        """Put the cursor on the paragraph at ``position`` (clamped)."""
        if self.chapter is None or not self.chapter.paragraphs:
            return
        self.cursor = min(max(position, 0), len(self.chapter.paragraphs) - 1)

    def watch_cursor(self, old: int, new: int) -> None:
        self._refresh_position(old)
        self._refresh_position(new)
        self._scroll_cursor_into_view()
        self.post_message(self.CursorMoved(self, new, self.current_paragraph))

    def _refresh_position(self, position: int) -> None:
        if 0 <= position < len(self.model.row_of):
            self.refresh_line(self.model.row_of[position] + 1)

    @property
    def _page(self) -> int:
        return max(self.size.height - 2, 1)

    def _scroll_cursor_into_view(self) -> None:
        if not self.model.row_of:
            return
        row = self.model.row_of[min(self.cursor, len(self.model.row_of) - 1)]
        # Keep a chunk's separator in view with the chunk's first paragraph.
        top_wanted = row - 1 if row > 0 and self.model.rows[row - 1] < 0 else row
        visible = max(self.size.height - 1, 1)
        top = round(self.scroll_y)
        if top_wanted < top:
            self.scroll_to(y=top_wanted, animate=False, force=True)
        elif row >= top + visible:
            self.scroll_to(y=row - visible + 1, animate=False, force=True)

    # -- actions -----------------------------------------------------------------------------------------

    def action_cursor_up(self) -> None:
        self.move_to(self.cursor - 1)

    def action_cursor_down(self) -> None:
        self.move_to(self.cursor + 1)

    def action_page_up(self) -> None:
        self.move_to(self.cursor - self._page)

    def action_page_down(self) -> None:
        self.move_to(self.cursor + self._page)

    def action_first(self) -> None:
        self.move_to(0)

    def action_last(self) -> None:
        if self.chapter is not None:
            self.move_to(len(self.chapter.paragraphs) - 1)

    def on_click(self, event: Click) -> None:
        row = round(self.scroll_y) + event.y - 1
        if event.y >= 1 and 0 <= row < len(self.model.rows) and self.model.rows[row] >= 0:
            self.move_to(self.model.rows[row])

    # -- rendering ---------------------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None
        self._cache.clear()

    def on_resize(self) -> None:
        self._cache.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, len(self.model.rows) + 1)
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
        if chapter is None or row >= len(self.model.rows):
            return Strip.blank(width, base)
        ref = self.model.rows[row]
        is_cursor = ref >= 0 and ref == self.cursor
        key = (row, is_cursor, width, self._generation)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        styles = self._row_styles()
        if ref < 0:
            text = separator_text(self.model.chunks[-ref - 1], width, styles.separator)
        else:
            para = chapter.paragraphs[ref]
            text = paragraph_text(para, ref, self.status_of(para), cols, styles)
            if self.highlight:
                text.highlight_words([self.highlight], self.get_component_rich_style("paragraph-table--match"),
                                     case_sensitive=False)
            if is_cursor:
                text.stylize(self.get_component_rich_style("paragraph-table--cursor"))
        strip = self._strip(text, base, width)
        self._cache[key] = strip
        return strip

    def _strip(self, text: Text, base: Style, width: int) -> Strip:
        text.stylize_before(base)
        return Strip(text.render(self.app.console)).crop_extend(0, width, base)
