"""The log pane: engine events and workstation notices, one line each, rendered with the Line API.

Events are only queued when they arrive; a timer turns them into lines about 15 times a second, so a model
streaming hundreds of deltas a second never starves the keyboard. Streamed text lives in one "current
output" line that is replaced in place, never a line per token. The pane keeps the last ``max_entries``
lines (the trace file is the record; this is a view).
"""

from __future__ import annotations

from collections import deque

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from engine.events import ChunkFinished, EngineEvent, ModelDelta, ModelRequest, ModelResponse, RunFinished
from tui.terminal_text import visible
from tui.widgets.log_entries import LEVELS, LogEntry, entry_for, notice

FLUSH_HZ = 15
_CURRENT_KEEP = 20_000  # characters of streamed text kept for copying the current line


class LogPane(ScrollView, can_focus=True):
    """Run events and notices; ``f`` (on the screen) filters to errors, ``y`` copies the line under the cursor."""

    BINDINGS = [
        Binding("up,k", "cursor_up", "Up", show=False, id="log.up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="log.down"),
        Binding("pageup", "page_up", "Page up", show=False, id="log.page_up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="log.page_down"),
        Binding("home", "first", "First line", show=False, id="log.first"),
        Binding("end", "last", "Last line (follow)", show=False, id="log.last"),
        Binding("y", "copy", "Copy line", id="log.copy"),
        Binding("enter,v", "view", "View line", id="log.view"),
    ]

    COMPONENT_CLASSES = {
        "log-pane--cursor",
        "log-pane--current",
        *(f"log-pane--{level}" for level in LEVELS),
    }

    errors_only: reactive[bool] = reactive(False, init=False)

    class EntryViewRequested(Message):
        """The person wants to read a whole log line."""

        def __init__(self, entry: LogEntry) -> None:
            super().__init__()
            self.entry = entry

    def __init__(self, *, max_entries: int = 5000, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.max_entries = max_entries
        self.entries: deque[LogEntry] = deque(maxlen=max_entries)
        self._pending: list[EngineEvent | LogEntry] = []
        self._current: str | None = None  # the streamed text of the turn in progress
        self._current_label = ""
        self._view: list[LogEntry] = []
        self._cursor = 0
        self._follow = True
        self._generation = 0
        self._cache: LRUCache[tuple[int, bool, int, int], Strip] = LRUCache(256)
        self.flushes = 0  # counts flushes that changed something (benchmarks and tests read it)

    def on_mount(self) -> None:
        self.set_interval(1 / FLUSH_HZ, self.flush, name="log-pane-flush")

    # -- feeding -----------------------------------------------------------------------------------------

    def push(self, event: EngineEvent) -> None:
        """Queue an engine event (cheap: formatting happens on the next flush)."""
        self._pending.append(event)

    def add_notice(self, text: str, *, error: bool = False) -> None:
        """Queue a line from the workstation itself."""
        self._pending.append(notice(text, error=error))

    def flush(self) -> None:
        """Turn queued events into lines and redraw once."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        for item in pending:
            if isinstance(item, LogEntry):
                self.entries.append(item)
            elif isinstance(item, ModelDelta):
                self._on_delta(item)
            else:
                if isinstance(item, ModelRequest):
                    self._current, self._current_label = "", f"turn {item.turn}: waiting for the model…"
                elif isinstance(item, ModelResponse | ChunkFinished | RunFinished):
                    self._current = None
                entry = entry_for(item)
                if entry is not None:
                    self.entries.append(entry)
        self.flushes += 1
        self._rebuild()

    def _on_delta(self, delta: ModelDelta) -> None:
        current = self._current or ""
        if delta.channel == "text":
            current = (current + delta.text)[-_CURRENT_KEEP:]
            self._current_label = "model: "
        elif delta.channel == "reasoning":
            current = (current + delta.text)[-_CURRENT_KEEP:]
            self._current_label = "thinking: "
        else:
            self._current_label = f"writing {delta.tool_name or 'tool call'} ({delta.chars} chars)"
        self._current = current

    def clear(self) -> None:
        """Forget every line."""
        self.entries.clear()
        self._pending.clear()
        self._current = None
        self._rebuild()

    # -- view --------------------------------------------------------------------------------------------

    @property
    def visible_entries(self) -> list[LogEntry]:
        """The lines shown now (all, or only the errors)."""
        return list(self._view)

    @property
    def current_output(self) -> str | None:
        """The streamed text of the turn in progress, or None."""
        return self._current

    def watch_errors_only(self) -> None:
        self._follow = True
        self._rebuild()

    def _rebuild(self) -> None:
        self._view = [e for e in self.entries if e.is_error] if self.errors_only else list(self.entries)
        self._generation += 1
        self._cache.clear()
        lines = len(self._view) + (1 if self._current is not None else 0)
        if self._follow or self._cursor >= len(self._view):
            self._cursor = max(len(self._view) - 1, 0)
        self.virtual_size = Size(self.scrollable_content_region.width, lines)
        if self._follow:
            self.scroll_to(y=max(lines - self.size.height, 0), animate=False, force=True)
        self.refresh()

    @property
    def cursor_entry(self) -> LogEntry | None:
        """The line under the cursor (the last one while following)."""
        if not self._view:
            return None
        return self._view[min(self._cursor, len(self._view) - 1)]

    def _move(self, cursor: int) -> None:
        if not self._view:
            return
        self._cursor = min(max(cursor, 0), len(self._view) - 1)
        self._follow = self._cursor == len(self._view) - 1
        top = round(self.scroll_y)
        if self._cursor < top:
            self.scroll_to(y=self._cursor, animate=False)
        elif self._cursor >= top + self.size.height:
            self.scroll_to(y=self._cursor - self.size.height + 1, animate=False)
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

    def action_last(self) -> None:
        self._move(len(self._view) - 1)

    def action_copy(self) -> None:
        entry = self.cursor_entry
        if entry is None:
            self.notify("The log is empty.", severity="warning")
            return
        self.app.copy_to_clipboard(entry.copy)
        self.notify("Copied the log line (OSC 52).", timeout=2)

    def action_view(self) -> None:
        entry = self.cursor_entry
        if entry is not None:
            self.post_message(self.EntryViewRequested(entry))

    # -- rendering ---------------------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def on_resize(self) -> None:
        self._cache.clear()
        self._rebuild()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base: Style = self.rich_style
        row = round(self.scroll_y) + y
        if row == len(self._view) and self._current is not None:
            return self._current_strip(width, base)
        if row >= len(self._view):
            return Strip.blank(width, base)
        is_cursor = self.has_focus and row == self._cursor
        key = (row, is_cursor, width, self._generation)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        entry = self._view[row]
        text = Text(entry.text, style=self.get_component_rich_style(f"log-pane--{entry.level}"),
                    no_wrap=True, overflow="ellipsis", end="")
        text.truncate(width, overflow="ellipsis")
        if is_cursor:
            text.stylize(self.get_component_rich_style("log-pane--cursor"))
        text.stylize_before(base)
        strip = Strip(text.render(self.app.console)).crop_extend(0, width, base)
        self._cache[key] = strip
        return strip

    def _current_strip(self, width: int, base: Style) -> Strip:
        label = visible(self._current_label, newlines=False)  # the tool name comes from the model
        tail = visible(" ".join((self._current or "").split()), newlines=False)
        room = max(width - cell_len(label) - 2, 0)
        if len(tail) > room or cell_len(tail) > room:
            room = max(room - 1, 0)  # the start is cut: keep a cell for "…", so the end stays in view
        shown: list[str] = []
        used = 0
        for ch in reversed(tail):  # the end of the stream is what is new
            w = cell_len(ch)
            if used + w > room:
                shown.append("…")
                break
            shown.append(ch)
            used += w
        text = Text("▸ " + label + "".join(reversed(shown)), style=self.get_component_rich_style("log-pane--current"),
                    no_wrap=True, end="")
        text.truncate(width, overflow="ellipsis")
        text.stylize_before(base)
        return Strip(text.render(self.app.console)).crop_extend(0, width, base)

    def on_focus(self) -> None:
        self._cache.clear()
        self.refresh()

    def on_blur(self) -> None:
        self._cache.clear()
        self.refresh()
