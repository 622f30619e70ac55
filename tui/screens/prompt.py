"""A one-line question in a modal: search text, an index or ID to jump to, a filter.

``TextModal`` is the base of the modals that edit text (this one, the edit screen): it owns every key typed after
it opened, also those the terminal delivered in the same burst as the key that opened it.
"""

from __future__ import annotations

from typing import TypeVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, Label

from tui.terminal_text import visible
from tui.widgets.safe_editors import SafeInput

R = TypeVar("R")


class TextModal(ModalScreen[R]):
    """A modal with one editing widget that gets every key typed after the modal opened.

    A terminal hands over keys typed (or pasted) quickly in one read. The app sends each key to the focused widget
    of the screen shown when it takes the key, but the key that opens a modal is acted on only once it has gone
    through the screen beneath: the keys typed after it were sent to that screen already. The app gives such keys
    (stamped before the modal opened, arriving while it is shown) to ``take_key``, and a printable key that reaches
    the modal itself (its editor consumes those) came before the editor had focus: both are typed into the editor,
    in order, once it is mounted and focused.
    """

    def __init__(self) -> None:
        super().__init__()
        self.opened_at = Message().time  # on the clock that stamps key events
        self._editor: Widget | None = None
        self._early: list[events.Key] = []

    def typed_before_opening(self, event: events.Key) -> bool:
        """Whether ``event`` was typed before this modal opened (and so was sent to the screen beneath)."""
        return event.time < self.opened_at

    def own_keys(self, editor: Widget) -> None:
        """Focus ``editor`` (mounted) and type into it the keys that came before it was ready."""
        self._editor = editor
        self.set_focus(editor)
        early, self._early = self._early, []
        for key in early:
            self.app.post_message(key)

    def take_key(self, event: events.Key) -> None:
        """Type a key that went elsewhere into the editor (after the keys taken before it)."""
        key = events.Key(event.key, event.character)  # a new key: the app sends it to the focused widget
        if self._editor is None:
            self._early.append(key)
            return
        self.set_focus(self._editor)
        self.app.post_message(key)

    def on_key(self, event: events.Key) -> None:
        if event.is_printable and (self.focused is None or self.focused is self._editor):
            event.stop()
            event.prevent_default()
            self.take_key(event)


class PromptScreen(TextModal[str | None]):
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
            # The question and the hint may quote text from the chapter: never markup.
            yield Label(
                visible(self.question, newlines=False), id="prompt-question", classes="modal-title", markup=False
            )
            yield SafeInput(value=self.value, placeholder=self.placeholder, id="prompt-input", select_on_focus=True)
            yield Label(visible(self.hint, newlines=False), classes="modal-hint", markup=False)

    def on_mount(self) -> None:
        self.own_keys(self.query_one(SafeInput))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
