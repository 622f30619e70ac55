"""A ``TextArea`` that never sends a control character of the text it edits to the terminal (see safe_editors), with
the keys editors have.

``ctrl+a`` selects all, as in every editor people write in (Textual's ``TextArea`` moves to the line start on it,
as readline does; ``home`` still does that), with ``F7`` beside it for a tmux whose prefix is ``ctrl+a``. The
binding has an id, so ``[keymap]`` can give ctrl+a its readline meaning back, and the help (F1) lists it with the
text area's other keys.
"""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.strip import Strip
from textual.widgets import TextArea

from tui.widgets.safe_editors import pictured, run_own_binding


class SafeTextArea(TextArea):
    """A ``TextArea`` that draws control characters as symbols, acts on its keys in the order they came
    (``run_own_binding``); ``ctrl+a`` / ``F7`` select all."""

    HELP_GROUP = "Edit"
    BINDINGS = [
        Binding("ctrl+a,f7", "select_all", "Select all", show=False, id="edit.select_all"),
    ]

    async def on_key(self, event: events.Key) -> None:
        await run_own_binding(self, event)

    def render_line(self, y: int) -> Strip:
        return pictured(super().render_line(y))
