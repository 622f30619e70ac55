"""Editing widgets that never send a control character of the text they edit to the terminal.

``TextArea`` and ``Input`` draw their text as it is, so a translation carrying ``ESC ] 52 ...`` would
write the clipboard the moment it is opened for editing. These subclasses keep the text unchanged (what
is saved is what was edited) and only draw each control character as one visible symbol (``␛``), one
cell, so the cursor and the selection stay on the characters they belong to. ``SafeTextArea`` lives in
``tui.widgets.safe_text_area``: TextArea costs ~40 ms to import, and only the edit modal needs it.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import Input

from tui.terminal_text import control_pictures


def pictured(strip: Strip) -> Strip:
    """``strip`` with control characters drawn as symbols, cut back to its width (they took no cell before)."""
    segments: list[Segment] = []
    changed = False
    for segment in strip:
        text = segment.text
        shown = text if segment.control else control_pictures(text)
        if shown is not text:
            changed = True
            segment = Segment(shown, segment.style, segment.control)
        segments.append(segment)
    if not changed:
        return strip
    return Strip(segments).crop(0, strip.cell_length)


class SafeInput(Input):
    """An ``Input`` that draws control characters as symbols (a pasted value may carry them)."""

    def render_line(self, y: int) -> Strip:
        return pictured(super().render_line(y))
