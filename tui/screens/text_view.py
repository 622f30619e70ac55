"""Reading a long text in full (a log line, a tool result): a scrollable modal; ``y`` copies it."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from tui.clipboard import copy_and_say
from tui.terminal_text import visible


class TextViewScreen(ModalScreen[None]):
    """Shows ``text`` whole; escape or q closes it."""

    BINDINGS = [
        Binding("escape,q", "close", "Close", id="view.close"),
        Binding("y", "copy", "Copy", id="view.copy"),
    ]
    HELP_GROUP = "Text view"

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="view-box", classes="modal-box"):
            yield Label(visible(self.title_text, newlines=False), classes="modal-title", markup=False)
            with VerticalScroll(id="view-scroll"):
                yield Static(Text(visible(self.text)), id="view-text")  # a log line: model or server text
            yield Label("y: copy · esc: close", classes="modal-hint")

    def on_mount(self) -> None:
        self.query_one("#view-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_copy(self) -> None:
        copy_and_say(self, self.text, "the text")
