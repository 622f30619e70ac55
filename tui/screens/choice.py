"""Pick one of a few choices from the keyboard: which warning to dismiss, which code to filter the rows by."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from tui.terminal_text import visible


class ChoiceScreen(ModalScreen[int | None]):
    """A list of choices; dismisses with the index of the one chosen (enter) or None (escape)."""

    BINDINGS = [
        Binding("escape,q", "cancel", "Cancel", id="choice.cancel"),
        Binding("j", "move(1)", "Down", show=False, id="choice.down"),
        Binding("k", "move(-1)", "Up", show=False, id="choice.up"),
    ]
    HELP_GROUP = "Choice"

    def __init__(self, title: str, choices: Sequence[str], *, hint: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.choices = tuple(choices)
        self.hint = hint or "↑↓ or j k: move · enter: choose · esc: cancel"

    def compose(self) -> ComposeResult:
        with Vertical(id="choice-box", classes="modal-box"):
            # Choices quote warnings, which quote the chapter's texts: never markup.
            yield Label(visible(self.title_text, newlines=False), classes="modal-title", markup=False)
            yield OptionList(
                *(Option(Text(visible(c, newlines=False), no_wrap=True, overflow="ellipsis")) for c in self.choices),
                id="choice-list",
            )
            yield Label(visible(self.hint, newlines=False), classes="modal-hint", markup=False)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        if self.choices:
            options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option_index)

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if step > 0:
            options.action_cursor_down()
        else:
            options.action_cursor_up()

    def action_cancel(self) -> None:
        self.dismiss(None)
