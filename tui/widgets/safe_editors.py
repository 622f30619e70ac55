"""Editing widgets that never send a control character of the text they edit to the terminal.

``TextArea`` and ``Input`` draw their text as it is, so a translation carrying ``ESC ] 52 ...`` would
write the clipboard the moment it is opened for editing. These subclasses keep the text unchanged (what
is saved is what was edited) and only draw each control character as one visible symbol (``␛``), one
cell, so the cursor and the selection stay on the characters they belong to. ``SafeTextArea`` lives in
``tui.widgets.safe_text_area``: TextArea costs ~40 ms to import, and only the edit modal needs it.
"""

from __future__ import annotations

from rich.segment import Segment
from textual import events
from textual.strip import Strip
from textual.widget import Widget
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


async def run_own_binding(editor: Widget, event: events.Key) -> None:
    """Act on ``event`` here if it is one of ``editor``'s own bindings (backspace, ctrl+a ...), in the order the
    keys came, rather than after the key went up to the app, which may have typed the keys after it by then."""
    active = editor.screen.active_bindings.get(event.key)
    if active is None or active.node is not editor or not active.enabled:
        return
    event.stop()
    event.prevent_default()
    await editor.run_action(active.binding.action)


class SafeInput(Input):
    """An ``Input`` that draws control characters as symbols (a pasted value may carry them), and acts on its
    keys in the order they came (:func:`run_own_binding`)."""

    async def on_key(self, event: events.Key) -> None:
        await run_own_binding(self, event)

    def render_line(self, y: int) -> Strip:
        return pictured(super().render_line(y))
