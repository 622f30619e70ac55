"""Ask the model about one paragraph: which task, and an optional instruction ("more formal", "keep the pun")."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Select

from engine.chunks import TASKS, TaskType
from tui.terminal_text import visible
from tui.widgets.safe_editors import SafeInput


@dataclass(frozen=True)
class Question:
    """What the editor asks the model to do with the paragraph."""

    task: TaskType
    instruction: str | None


class AskScreen(ModalScreen[Question | None]):
    """Task (translate / polish / proofread) and an instruction; enter runs, escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="ask.cancel")]
    HELP_GROUP = "Ask the model"

    def __init__(self, title: str, *, tasks: tuple[TaskType, ...] = TASKS, task: TaskType = "translate") -> None:
        super().__init__()
        self.title_text = title
        self.tasks = tasks
        self.chosen = task if task in tasks else tasks[0]

    def compose(self) -> ComposeResult:
        with Vertical(id="ask-box", classes="modal-box"):
            yield Label(visible(self.title_text, newlines=False), classes="modal-title", markup=False)
            yield Select([(task, task) for task in self.tasks], value=self.chosen, allow_blank=False, id="ask-task")
            yield SafeInput(placeholder="instruction for the model (optional), e.g. more formal", id="ask-instruction")
            yield Label(
                "shift+tab: the task (enter, ↑↓, enter) · enter: run · esc: cancel", classes="modal-hint", markup=False
            )

    def on_mount(self) -> None:
        self.query_one("#ask-instruction", Input).focus()

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.value in self.tasks:
            self.chosen = event.value

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(Question(self.chosen, event.value.strip() or None))

    def action_cancel(self) -> None:
        self.dismiss(None)
