"""The panes of the chapter view in one column under its status line: the paragraph table, the detail pane and the
log pane.

The detail pane's keys (zoom, scroll) live here because Textual looks a key up along the focused widget and its
ancestors only: bound on this container, they work while the table (or the log) keeps the focus. What they do is
the pane's own (:meth:`DetailPane.toggle_zoom`, :meth:`DetailPane.scroll_lines`).
"""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import Vertical

from tui.widgets.detail_pane import DetailPane


class ChapterPanes(Vertical):
    """Holds the chapter view's panes; the detail pane's keys work from any of them."""

    HELP_GROUP = "Chapter"
    BINDINGS = [
        Binding("z", "zoom_detail", "Zoom the detail pane", show=False, id="chapter.zoom_detail"),
        Binding("J,ctrl+down", "scroll_detail(1)", "Detail pane: scroll down", show=False, id="chapter.detail_down"),
        Binding("K,ctrl+up", "scroll_detail(-1)", "Detail pane: scroll up", show=False, id="chapter.detail_up"),
    ]

    def action_zoom_detail(self) -> None:
        """The detail pane fills the screen's body, or goes back under the table (escape does that too)."""
        self.query_one(DetailPane).toggle_zoom()

    def action_scroll_detail(self, lines: int) -> None:
        self.query_one(DetailPane).scroll_lines(lines)
