"""A one-line question in a modal: search text, an index or ID to jump to, a filter."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from tui.terminal_text import visible
from tui.widgets.safe_editors import SafeInput


class PromptScreen(ModalScreen[str | None]):
    """Ask for one line; dismisses with the text (enter) or None (escape)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]
    HELP_GROUP = "Question"

    def __init__(self, question: str, *, value: str = "", placeholder: str = "", hint: str = "") -> None:
        super().__init__()
        self.question = question
        self.value = value
        self.placeholder = placeholder
        self.hint = hint or "enter: OK · esc: cancel"

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-box", classes="modal-box"):
            yield Label(visible(self.question, newlines=False), id="prompt-question", classes="modal-title",
                        markup=False)
            yield SafeInput(value=self.value, placeholder=self.placeholder, id="prompt-input", select_on_focus=True)
            yield Label(visible(self.hint, newlines=False), classes="modal-hint", markup=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
