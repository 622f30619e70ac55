"""The log pane: engine events and workstation notices, one line each, rendered with the Line API.

Events are only queued when they arrive; a timer turns them into lines about 15 times a second, so a model
streaming hundreds of deltas a second never starves the keyboard. Streamed text lives in one "current
output" line that is replaced in place, never a line per token. The pane keeps the last ``max_entries``
lines (the trace file is the record; this is a view).

The pane follows new lines until the person moves its cursor, expands an entry or scrolls back; its border
title says which ("following" / "paused"), the follow key or a new run's start follows again. The entry under
the cursor expands in place to its whole text, wrapped to the pane's width, after its local clock time.
"""

from __future__ import annotations

from collections import deque

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from engine.events import EngineEvent, ModelDelta, RunStarted
from tui.clipboard import copy_and_say
from tui.widgets.current_output import CurrentOutput
from tui.widgets.line_break import line_breaks
from tui.widgets.log_entries import LEVELS, LogEntry, entry_for, notice

FLUSH_HZ = 15
_TAB_SIZE = 4


class _RunEnded:
    """Queued by ``LogPane.run_ended``: handled in order with the events queued before it."""


_RUN_ENDED = _RunEnded()


class LogPane(ScrollView, can_focus=True):
    """Run events and notices; ``f`` (on the screen) filters to errors, enter expands the line under the cursor,
    ``y`` copies it, end (or ``F``) follows new lines again."""

    DEFAULT_CSS = """
    LogPane {
        border-top: solid $foreground 20%;
        border-title-color: $text-muted;
    }
    LogPane.-paused {
        border-title-color: $warning;
        border-title-style: bold;
    }
    """

    BINDINGS = [
        Binding("up,k", "cursor_up", "Up", show=False, id="log.up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="log.down"),
        Binding("pageup", "page_up", "Page up", show=False, id="log.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="log.page_down"),
        Binding("home", "first", "First line", show=False, id="log.first"),
        Binding("end,F", "follow", "Follow", id="log.follow"),
        Binding("enter", "toggle_expand", "Expand", id="log.expand"),
        Binding("y", "copy", "Copy line", id="log.copy"),
        Binding("v", "view", "View entry", show=False, id="log.view"),
    ]

    COMPONENT_CLASSES = {
        "log-pane--cursor",
        "log-pane--current",
        *(f"log-pane--{level}" for level in LEVELS),
    }

    errors_only: reactive[bool] = reactive(False, init=False)

    class EntryViewRequested(Message):
        """The person wants to read a whole log entry in a view of its own."""

        def __init__(self, entry: LogEntry) -> None:
            super().__init__()
            self.entry = entry

    def __init__(self, *, max_entries: int = 5000, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.max_entries = max_entries
        self.entries: deque[LogEntry] = deque(maxlen=max_entries)
        self._pending: list[EngineEvent | LogEntry | _RunEnded] = []
        self._current = CurrentOutput()
        self._view: list[LogEntry] = []
        self._cursor = 0
        self._following = True
        self._unseen = 0  # entries added while paused
        self._expanded: LogEntry | None = None
        self._expanded_index: int | None = None  # where the expanded entry is in the view, when it is shown
        self._expanded_lines: list[Strip] = []
        self._expanded_for: tuple[int, int] | None = None  # (id of the entry, width) the lines were wrapped for
        self._generation = 0
        self._cache: LRUCache[tuple[int, bool, int, int], Strip] = LRUCache(256)
        self.flushes = 0  # counts flushes that changed something (benchmarks and tests read it)

    def on_mount(self) -> None:
        self.set_interval(1 / FLUSH_HZ, self.flush, name="log-pane-flush")
        self._show_state()

    # -- feeding -----------------------------------------------------------------------------------------

    def push(self, event: EngineEvent) -> None:
        """Queue an engine event (cheap: formatting happens on the next flush)."""
        self._pending.append(event)

    def add_notice(self, text: str, *, error: bool = False, warning: bool = False) -> None:
        """Queue a line from the workstation itself."""
        self._pending.append(notice(text, error=error, warning=warning))

    def run_ended(self) -> None:
        """The run feeding the pane stopped, with or without its ``run_finished`` (a worker cancelled or
        failed): the streamed-output line goes."""
        self._pending.append(_RUN_ENDED)

    def flush(self) -> None:
        """Turn queued events into lines and redraw once."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        added = 0
        for item in pending:
            entry = self._entry_of(item)
            if entry is not None:
                self.entries.append(entry)
                added += 1
        if any(isinstance(item, RunStarted) for item in pending):  # a new run is what the person wants to see
            self._set_following(True)
        elif not self._following:
            self._unseen += added
        self.flushes += 1
        self._rebuild()

    def _entry_of(self, item: EngineEvent | LogEntry | _RunEnded) -> LogEntry | None:
        """The line a queued item adds, if any, after what it does to the current-output line."""
        if isinstance(item, LogEntry):
            return item
        if isinstance(item, _RunEnded):
            self._current.run_ended()
            return None
        self._current.on_event(item)
        return None if isinstance(item, ModelDelta) else entry_for(item)

    def clear(self) -> None:
        """Forget every line, and follow again."""
        self.entries.clear()
        self._pending.clear()
        self._current.clear()
        self._expanded = None
        self._set_following(True)
        self._rebuild()

    # -- state -------------------------------------------------------------------------------------------

    @property
    def visible_entries(self) -> list[LogEntry]:
        """The lines shown now (all, or only the errors)."""
        return list(self._view)

    @property
    def current_output(self) -> str | None:
        """The streamed text of the turn in progress, or None."""
        return self._current.text

    @property
    def following(self) -> bool:
        """Whether the pane shows each new line as it comes (else it is paused where the person is)."""
        return self._following

    @property
    def expanded_entry(self) -> LogEntry | None:
        """The entry shown whole, if any."""
        return self._expanded

    @property
    def cursor_entry(self) -> LogEntry | None:
        """The line under the cursor (the last one while following)."""
        if not self._view:
            return None
        return self._view[min(self._cursor, len(self._view) - 1)]

    def _set_following(self, following: bool) -> None:
        if following != self._following:
            self._following = following
            if following:
                self._unseen = 0
            self._show_state()

    def _follow_key(self) -> str:
        """The first key bound to following now (a ``[keymap]`` may have moved it)."""
        for key, binding in self._bindings:
            if binding.id == "log.follow":
                shown = self.app.get_key_display(binding.with_key(key))
                return shown[:1].upper() + shown[1:] if len(shown) > 1 else shown
        return "the follow key"

    def _show_state(self) -> None:
        """The border title: following or paused (and how to follow again), and the filter."""
        name = "Log (errors only)" if self.errors_only else "Log"
        if self._following:
            title = f"{name} · following"
        else:
            unseen = f" · {self._unseen} new" if self._unseen else ""
            title = f"{name} · paused — {self._follow_key()} to follow{unseen}"
        if self.border_title != title:
            self.border_title = title
        self.set_class(not self._following, "-paused")

    def watch_errors_only(self) -> None:
        self._rebuild()

    # -- rows: one per entry, the expanded entry's wrapped lines, then the current output line -------------

    def _wrap_width(self) -> int:
        # The scrollbar's column is always left out, so lines do not re-wrap when it comes and goes.
        return max(self.size.width - self.styles.scrollbar_size_vertical, 2)

    @property
    def _extra_rows(self) -> int:
        return len(self._expanded_lines) - 1 if self._expanded_index is not None else 0

    def _entry_rows(self) -> int:
        return len(self._view) + self._extra_rows

    def _row_of(self, index: int) -> int:
        """The first row of the entry at ``index`` of the view."""
        expanded = self._expanded_index
        return index + (self._extra_rows if expanded is not None and index > expanded else 0)

    def _height_of(self, index: int) -> int:
        return len(self._expanded_lines) if index == self._expanded_index else 1

    def _locate(self, row: int) -> tuple[int, int]:
        """(index of the entry in the view, line of that entry) shown on ``row``."""
        expanded = self._expanded_index
        if expanded is None or row < expanded:
            return row, 0
        if row < expanded + len(self._expanded_lines):
            return expanded, row - expanded
        return row - self._extra_rows, 0

    def _index_of(self, entry: LogEntry | None, hint: int) -> int | None:
        """Where ``entry`` (that very object) is in the view: near ``hint`` first, since old lines only ever
        leave from the front."""
        if entry is None:
            return None
        view = self._view
        for i in range(min(hint, len(view) - 1), -1, -1):
            if view[i] is entry:
                return i
        return next((i for i, e in enumerate(view) if e is entry), None)

    def _rebuild(self) -> None:
        old_cursor_entry = self.cursor_entry
        offset = self._row_of(self._cursor) - round(self.scroll_y)  # where the cursor stood in the pane
        self._view = [e for e in self.entries if e.is_error] if self.errors_only else list(self.entries)
        self._find_expanded()
        self._wrap_expanded()
        self._place_cursor(old_cursor_entry)
        self._generation += 1
        self._cache.clear()
        lines = self._entry_rows() + (1 if self._current.text is not None else 0)
        self.virtual_size = Size(self.scrollable_content_region.width, lines)
        if self._following:
            self.scroll_to(y=max(lines - self.size.height, 0), animate=False, force=True)
        else:  # the cursor's line stays where it was on screen, whatever left the front of the pane
            self.scroll_to(y=max(self._row_of(self._cursor) - offset, 0), animate=False, force=True)
        self._show_state()
        self.refresh()

    def _find_expanded(self) -> None:
        """Where the expanded entry is in the new view (it may be filtered out); forget it once it left the pane."""
        if self._expanded is None:
            self._expanded_index = None
            return
        self._expanded_index = self._index_of(self._expanded, self._expanded_index or 0)
        if self._expanded_index is None and not any(e is self._expanded for e in self.entries):
            self._expanded = None

    def _place_cursor(self, entry: LogEntry | None) -> None:
        """The cursor on the line it was on (paused), or on the last line (following)."""
        if not self._following:
            found = self._index_of(entry, self._cursor)
            if found is None:  # the line under the cursor is gone (or filtered out): follow the end again
                self._set_following(True)
            else:
                self._cursor = found
        if self._following:
            self._cursor = max(len(self._view) - 1, 0)

    def _wrap_expanded(self) -> None:
        entry, index = self._expanded, self._expanded_index
        if entry is None or index is None:
            self._expanded_lines, self._expanded_for = [], None
            return
        width = self._wrap_width()
        if self._expanded_for == (id(entry), width):
            return
        text = Text(entry.expanded, end="")
        text.stylize(self._ink(f"log-pane--{entry.level}"))
        text.stylize(self._ink("log-pane--muted"), 0, len(entry.time))
        console = self.app.console
        lines: list[Strip] = []
        for line in text.split("\n", allow_blank=True):
            line.expand_tabs(_TAB_SIZE)
            for piece in line.divide(line_breaks(line.plain, width)):
                lines.append(Strip(piece.render(console)))
        self._expanded_lines, self._expanded_for = lines, (id(entry), width)

    # -- keys --------------------------------------------------------------------------------------------

    def _scroll_to_cursor(self) -> None:
        top = self._row_of(self._cursor)
        bottom = top + self._height_of(self._cursor) - 1
        y, height = round(self.scroll_y), max(self.size.height, 1)
        if top < y:
            self.scroll_to(y=top, animate=False, force=True)
        elif bottom >= y + height:
            self.scroll_to(y=min(top, bottom - height + 1), animate=False, force=True)

    def _move(self, cursor: int) -> None:
        if not self._view:
            return
        cursor = min(max(cursor, 0), len(self._view) - 1)
        if cursor != self._cursor:
            self._cursor = cursor
            self._set_following(False)
        self._scroll_to_cursor()
        self._cache.clear()
        self.refresh()

    def action_cursor_up(self) -> None:
        self._move(self._cursor - 1)

    def action_cursor_down(self) -> None:
        self._move(self._cursor + 1)

    def action_page_up(self) -> None:
        self._move(self._cursor - max(self.size.height - 1, 1))

    def action_page_down(self) -> None:
        self._move(self._cursor + max(self.size.height - 1, 1))

    def action_first(self) -> None:
        self._move(0)

    def action_follow(self) -> None:
        self._set_following(True)
        self._rebuild()

    def action_toggle_expand(self) -> None:
        entry = self.cursor_entry
        if entry is None:
            return
        if self._expanded is entry:
            self._expanded = None
        else:  # the person reads it: new lines must not move it away
            self._expanded = entry
            self._set_following(False)
        self._rebuild()
        self._scroll_to_cursor()

    def action_copy(self) -> None:
        entry = self.cursor_entry
        if entry is None:
            self.notify("The log is empty.", severity="warning")
            return
        copy_and_say(self, entry.copy, "the log line")

    def action_view(self) -> None:
        entry = self.cursor_entry
        if entry is not None:
            self.post_message(self.EntryViewRequested(entry))

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        if self.allow_vertical_scroll:  # scrolling back to read: new lines must not pull the view down again
            self._set_following(False)

    # -- rendering ---------------------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()
        self._expanded_for = None  # a new theme: the expanded entry is drawn again in its colours when shown

    def on_resize(self) -> None:
        self._cache.clear()
        self._rebuild()

    def _ink(self, component: str) -> Style:
        """A component's colour and text style without its background, to draw over the pane's own style (its
        colour as the combined style has it: an alpha colour such as $text-muted blended over the pane)."""
        combined = self.get_component_rich_style(component)
        return Style(color=combined.color) + self.get_component_rich_style(component, partial=True).without_color

    def _finish(self, strip: Strip, width: int, cursor: bool) -> Strip:
        """``strip`` (drawn with the component styles alone) over the pane's own style, cropped to ``width``."""
        base: Style = self.rich_style
        highlight = Style(bgcolor=self.get_component_rich_style("log-pane--cursor").bgcolor) if cursor else None
        line = Strip(Segment.apply_style(iter(strip), base, highlight))
        return line.crop_extend(0, width, base + highlight if highlight else base)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        row = round(self.scroll_y) + y
        entry_rows = self._entry_rows()
        if row == entry_rows and self._current.text is not None:
            return self._finish(self._current_strip(width), width, False)
        if row >= entry_rows:
            return Strip.blank(width, self.rich_style)
        index, line = self._locate(row)
        is_cursor = self.has_focus and index == self._cursor
        key = (row, is_cursor, width, self._generation)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        if index == self._expanded_index:
            if self._expanded_for is None:
                self._wrap_expanded()
            strip = self._expanded_lines[line]
        else:
            entry = self._view[index]
            text = Text(entry.text, no_wrap=True, end="")
            text.truncate(width, overflow="ellipsis")
            # a span, not the Text's own style: Text.render leaves that out (a Console applies it, we do not)
            text.stylize(self._ink(f"log-pane--{entry.level}"))
            strip = Strip(text.render(self.app.console))
        strip = self._finish(strip, width, is_cursor)
        self._cache[key] = strip
        return strip

    def _current_strip(self, width: int) -> Strip:
        text = Text(self._current.line(width), no_wrap=True, end="")
        text.truncate(width, overflow="ellipsis")
        text.stylize(self._ink("log-pane--current"))
        return Strip(text.render(self.app.console))

    def on_focus(self) -> None:
        self._cache.clear()
        self.refresh()

    def on_blur(self) -> None:
        self._cache.clear()
        self.refresh()
