"""Editing a translation: in place (a multi-line text area in a modal), or in ``$VISUAL`` / ``$EDITOR``."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from textual.app import App, ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, TextArea

from tui.screens.prompt import TextModal
from tui.terminal_text import visible
from tui.widgets.safe_text_area import SafeTextArea

HINT = "ctrl+s/F2: save · ctrl+a/F7: select all · F1: all keys · esc: cancel"


class EditScreen(TextModal[str | None]):
    """Edit a text; dismisses with the new text (save) or None (cancel).

    Saving has a letter-key-free path that every terminal passes: tab to the Save button, enter. The text area's
    keys are those of editors (``ctrl+a`` selects all; see ``SafeTextArea``); F1 lists them all (``?`` is text).
    """

    BINDINGS = [
        # Priority: acted on when the app takes the key, so nothing typed after it lands in the saved text.
        Binding("ctrl+s,f2", "save", "Save", priority=True, id="edit.save"),
        Binding("escape", "cancel", "Cancel", priority=True, id="edit.cancel"),
    ]
    HELP_GROUP = "Edit"

    def __init__(self, title: str, text: str, *, source: str | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.text = text
        self.source = source

    def compose(self) -> ComposeResult:
        with Vertical(id="edit-box", classes="modal-box"):
            # The title quotes a paragraph ID; the source and the text come from the chapter or a model.
            yield Label(visible(self.title_text, newlines=False), classes="modal-title", markup=False)
            if self.source is not None:
                yield Label(visible(self.source), id="edit-source", markup=False)
            area = SafeTextArea(self.text, id="edit-area", soft_wrap=True, tab_behavior="focus")
            yield area
            with Horizontal(id="edit-buttons"):
                yield Button("Save", id="edit-save", variant="primary")
                yield Button("Cancel", id="edit-cancel")
            yield Label(HINT, classes="modal-hint", markup=False)

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.move_cursor(area.document.end)
        self.own_keys(area)  # focused, and the keys typed since e are typed at the end of the text

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "edit-save":
            self.action_save()
        else:
            self.action_cancel()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Before the editor is ready, ctrl+s is one of the keys it will be given, in order (it saves then).
        return self.editor_ready if action == "save" else True

    def action_save(self) -> None:
        area = self.query_one(TextArea)
        self.finish(lambda: area.text)

    def action_cancel(self) -> None:
        self.closing = True
        self.dismiss(None)


class EditorFailed(Exception):
    """The external editor could not be run, or wrote something that is not UTF-8 text."""


NOTE_PREFIX = "#| "  # lines of the temporary file that carry the source; the edit ignores them


def editor_file_text(text: str, source: str | None, label: str) -> str:
    """The temporary file's content: the source as note lines, then the translation to edit."""
    if source is None:
        return text
    notes = [
        f"{NOTE_PREFIX}{label}: edit the translation under these lines; lines starting with "
        f"{NOTE_PREFIX.strip()!r} are ignored.",
        f"{NOTE_PREFIX}Source:",
    ]
    notes += [f"{NOTE_PREFIX}{line}" for line in source.splitlines() or [""]]
    return "\n".join(notes) + "\n" + text


def edited_text(content: str) -> str:
    """The translation in the edited file: the leading note lines and the editor's final newline removed."""
    lines = content.split("\n")
    while lines and lines[0].startswith(NOTE_PREFIX.strip()):
        lines.pop(0)
    return "\n".join(lines).removesuffix("\n")


def edit_in_editor(app: App[object], text: str, *, hint: str = "text", source: str | None = None) -> tuple[str, str]:
    """Let the person edit ``text`` in ``$VISUAL`` / ``$EDITOR`` (default ``vi``) with the app suspended.

    The file shows ``source`` above the text as note lines the edit ignores. Returns the edited text and the
    editor command; raises :class:`EditorFailed` when the editor cannot run or exits with a failure (then
    nothing is to be saved, as ``:cq`` in vim means).
    """
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    safe = "".join(ch if ch.isalnum() else "_" for ch in hint)[:40]
    with tempfile.NamedTemporaryFile(
        "w", suffix=".txt", prefix=f"proofdesk-{safe}-", encoding="utf-8", delete=False
    ) as handle:
        handle.write(editor_file_text(text, source, hint))
        temp = Path(handle.name)
    command = [*shlex.split(editor), str(temp)]
    try:
        try:
            with app.suspend():
                done = subprocess.run(command, check=False)
        except SuspendNotSupported:
            # Only drivers without a terminal (headless, web) cannot suspend; there is no terminal to hand over.
            done = subprocess.run(command, check=False, stdin=subprocess.DEVNULL, capture_output=True)
        if done.returncode != 0:
            raise EditorFailed(f"{editor} exited with status {done.returncode}; nothing was saved")
        edited = temp.read_text(encoding="utf-8")
    except (OSError, ValueError) as exc:  # the editor is missing, or its output is not UTF-8
        raise EditorFailed(f"Could not use {editor}: {exc}") from None
    finally:
        temp.unlink(missing_ok=True)
    return edited_text(edited), editor
