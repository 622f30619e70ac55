"""A one-line question in a modal: search text, an index or ID to jump to, a filter.

``TextModal`` is the base of the modals that edit text (this one, the edit screen): it owns every key typed after
it opened, also those the terminal delivered in the same burst as the key that opened it, and none typed after it
was closed with its text: those go to the screen beneath, in order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from textual import events, on
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
    """A modal with one editing widget that gets every key typed after the modal opened, and before it closed.

    A terminal hands over keys typed (or pasted) quickly in one read. The app sends each key to the focused widget
    of the screen shown when it takes the key, but the key that opens a modal is acted on only once it has gone
    through the screen beneath: the keys typed after it were sent to that screen already. The app gives such keys
    (stamped before the modal opened, coming back unused while it is shown) to :meth:`holds` before any binding
    sees them, and a key that reaches the modal itself before its editor has focus is taken too: both are typed
    into the editor, in order, once it is mounted and focused.

    Closing with the text works the other way round (:meth:`finish`, from a priority binding, so it happens when
    the app takes the key, in the order typed): the text is read once the editor has handled every key sent to it
    before (a ``Settled`` message sent after them through the editor and this screen, then through the app), and
    the keys typed after the closing key are held meanwhile, then sent on to the screen beneath.
    """

    # A modal's bindings end the chain of keys: the app's ? / F1 does not reach here (and ? is text to type).
    BINDINGS = [Binding("f1", "app.help", "Keys", show=False, id="text.help")]

    class Settled(Message):
        """Every key sent to the editor before the modal was closed has been handled: ``result`` reads the text."""

        def __init__(self, result: Callable[[], R]) -> None:
            super().__init__()
            self.result = result

    def __init__(self) -> None:
        super().__init__()
        self.opened_at = Message().time  # on the clock that stamps key events
        self.closing = False  # closed with its text, waiting for the editor to catch up
        self._editor: Widget | None = None
        self._early: list[events.Key] = []
        self._held: list[events.Key] = []  # typed after the closing key: for the screen beneath

    @property
    def editor_ready(self) -> bool:
        """Whether the editor is mounted and has taken the keys that came before it was."""
        return self._editor is not None

    def typed_before_opening(self, event: events.Key) -> bool:
        """Whether ``event`` was typed before this modal opened (and so was sent to the screen beneath)."""
        return event.time < self.opened_at

    def holds(self, event: events.Key) -> bool:
        """Whether the modal takes ``event`` before the app's bindings see it (the app asks for every key while the
        modal is shown): a key typed before it opened is typed into the editor, a key the app has not sent
        anywhere yet while the modal closes is held for the screen beneath."""
        early = event.is_forwarded and self.typed_before_opening(event)
        if self.closing and (early or not event.is_forwarded):
            self._held.append(events.Key(event.key, event.character))
            return True
        if early:
            self.take_key(event)
            return True
        return False

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
        # A key sent to the modal itself: before the editor is ready any key, after only a printable one that
        # found no focus (the editor consumes those).
        if self._editor is None or (event.is_printable and (self.focused is None or self.focused is self._editor)):
            event.stop()
            event.prevent_default()
            self.take_key(event)

    def finish(self, result: Callable[[], R]) -> None:
        """Close with ``result()`` once the editor has handled every key sent to it before now."""
        if self.closing:
            return
        self.closing = True
        (self._editor or self).post_message(self.Settled(result))

    @on(Settled)
    def _settled(self, message: TextModal.Settled) -> None:
        # The keys the editor passed up (to the app's bindings: backspace, ctrl+u ...) went ahead of this message.
        message.stop()
        self.app.call_later(self._close, message.result)

    def _close(self, result: Callable[[], R]) -> None:
        self.dismiss(result())
        held, self._held = self._held, []
        for key in held:
            self.app.post_message(key)


class PromptScreen(TextModal[str | None]):
    """Ask for one line; dismisses with the text (enter) or None (escape)."""

    BINDINGS = [
        # Priority: acted on when the app takes the key, so the keys typed after it go to the screen beneath.
        Binding("enter", "submit", "OK", priority=True, show=False, id="prompt.submit"),
        Binding("escape", "cancel", "Cancel", priority=True, id="prompt.cancel"),
    ]
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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Before the editor is ready, enter is one of the keys it will be given (in order), not an answer yet.
        return self.editor_ready if action == "submit" else True

    def action_submit(self) -> None:
        field = self.query_one(SafeInput)
        self.finish(lambda: field.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()  # enter remapped away from prompt.submit: the input's own enter
        self.action_submit()

    def action_cancel(self) -> None:
        self.closing = True
        self.dismiss(None)
