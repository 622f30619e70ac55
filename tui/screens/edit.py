"""Editing a translation in place (a multi-line text area in a modal)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, TextArea


class EditScreen(ModalScreen[str | None]):
    """Edit a text; dismisses with the new text (save) or None (cancel).

    Saving has a letter-key-free path that every terminal passes: tab to the Save button, enter.
    """

    BINDINGS = [
        Binding("ctrl+s,f2", "save", "Save", id="edit.save"),
        Binding("escape", "cancel", "Cancel", id="edit.cancel"),
    ]
    HELP_GROUP = "Edit"

    def __init__(self, title: str, text: str, *, source: str | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.text = text
        self.source = source

    def compose(self) -> ComposeResult:
        with Vertical(id="edit-box", classes="modal-box"):
            yield Label(self.title_text, classes="modal-title")
            if self.source is not None:
                yield Label(self.source, id="edit-source", markup=False)
            area = TextArea(self.text, id="edit-area", soft_wrap=True, tab_behavior="focus")
            yield area
            with Horizontal(id="edit-buttons"):
                yield Button("Save", id="edit-save", variant="primary")
                yield Button("Cancel", id="edit-cancel")
            yield Label("ctrl+s / F2 or tab → Save: save · esc: cancel", classes="modal-hint")

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.focus()
        area.move_cursor(area.document.end)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "edit-save":
            self.action_save()
        else:
            self.action_cancel()

    def action_save(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)
