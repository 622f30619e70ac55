"""A ``TextArea`` that never sends a control character of the text it edits to the terminal (see safe_editors)."""

from __future__ import annotations

from textual.strip import Strip
from textual.widgets import TextArea

from tui.widgets.safe_editors import pictured


class SafeTextArea(TextArea):
    """A ``TextArea`` that draws control characters as symbols."""

    def render_line(self, y: int) -> Strip:
        return pictured(super().render_line(y))
