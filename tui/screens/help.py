"""The help screen: every key of the screen underneath, read from the live bindings (keymap applied)."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Label, Static

from tui.keymap import live_bindings
from tui.widgets.paragraph_rows import STATUS_LABEL, STATUS_MEANING, fit


class HelpScreen(ModalScreen[None]):
    """Lists every binding of ``target`` (a screen) with its id, and the row statuses."""

    BINDINGS = [
        Binding("escape,q,question_mark,f1", "close", "Close help", id="help.close"),
        Binding("up,k", "scroll(-1)", "Scroll up", show=False, id="help.up"),
        Binding("down,j", "scroll(1)", "Scroll down", show=False, id="help.down"),
    ]
    HELP_GROUP = "Help"
    COMPONENT_CLASSES = {"help-screen--group", "help-screen--key", "help-screen--id"}

    def __init__(self, target: Screen) -> None:
        super().__init__()
        self.target = target

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box", classes="modal-box"):
            yield Label(f"Keys — {getattr(self.target, 'HELP_GROUP', None) or 'proofdesk'}", classes="modal-title")
            with VerticalScroll(id="help-scroll"):
                yield Static(id="help-text")
            yield Label(
                "esc: close · ctrl+p: any action by name · [keymap] remaps by id", classes="modal-hint", markup=False
            )

    def on_mount(self) -> None:
        self.query_one("#help-text", Static).update(self.render_help())
        self.query_one("#help-scroll").focus()

    def render_help(self) -> Text:
        """The whole help text."""
        # partial: the box's own background shows through, not the screen's
        group_style = self.get_component_rich_style("help-screen--group", partial=True)
        key_style = self.get_component_rich_style("help-screen--key", partial=True)
        id_style = self.get_component_rich_style("help-screen--id", partial=True)
        infos = live_bindings(self.app, self.target)
        width = min(max((cell_len(i.keys) for i in infos), default=4), 12)
        text = Text(end="")
        group = None
        for info in infos:
            if info.group != group:
                group = info.group
                text.append(("\n" if text else "") + group + "\n", group_style)
            text.append(" " + fit(info.keys, width) + " ", key_style)
            text.append(fit(info.description, 30))
            if info.binding_id:
                text.append(f" {info.binding_id}", id_style)
            text.append("\n")
        if getattr(self.target, "SHOWS_STATUSES", False):
            text.append("\nRow states\n", group_style)
            for status, meaning in STATUS_MEANING.items():
                text.append(f" {STATUS_LABEL[status]:<{width}} ", key_style)
                text.append(meaning + "\n")
        return text

    def action_close(self) -> None:
        self.dismiss(None)

    def action_scroll(self, lines: int) -> None:
        self.query_one("#help-scroll").scroll_relative(y=lines, animate=False)
