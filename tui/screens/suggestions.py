"""The review queue of one chapter: its pending suggestions one at a time, accepted, rejected or edited then
accepted (section 16), keyboard only.

Each decision is one commit through the chapter session (``ChapterStore.update``: locked, merged onto the file as
it is on disk now, atomic), run in a thread. The queue is read from the session each time it changes, so a run
going on under the queue, or an edit made outside, shows up in it; the suggestion decided leaves the queue and
the next one takes its place. Deciding the last one of the chapter goes back to the chapter view.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Label, Static

from store.errors import StoreError
from store.model import Chapter
from tui.messages import WorkspaceChanged
from tui.screens.choice import ChoiceScreen
from tui.screens.edit import EditorFailed, EditScreen, edit_in_editor
from tui.session import ChapterSession, EditRefused
from tui.suggestion_queue import QueueFilter, Suggestion, filter_choices, filtered, pending_suggestions
from tui.terminal_text import visible
from tui.widgets.suggestion_view import SuggestionView
from tui.worker_failures import ReportsWorkerFailures

HINT = "a accept · x reject · e edit+accept · j/k move · f filter · ? keys · esc back"
FOLLOW_SECONDS = 0.5  # how often the queue looks whether the session's chapter changed (a run goes on under it)


class SuggestionsScreen(Screen[int | None], ReportsWorkerFailures):
    """The pending suggestions of a chapter; dismisses with the position of the paragraph shown last."""

    HELP_GROUP = "Suggestions"
    BINDINGS = [
        Binding("a", "decide('accept')", "Accept", id="suggestions.accept"),
        Binding("x", "decide('reject')", "Reject", id="suggestions.reject"),
        Binding("e", "edit", "Edit, then accept", id="suggestions.edit"),
        Binding("E", "edit_external", "Edit in $EDITOR, then accept", show=False, id="suggestions.edit_external"),
        Binding("j", "step(1)", "Next suggestion", id="suggestions.next"),
        Binding("k", "step(-1)", "Previous suggestion", id="suggestions.previous"),
        Binding("f", "filter", "Filter by category or model", id="suggestions.filter"),
        Binding("J,ctrl+down", "scroll(1)", "Scroll down", show=False, id="suggestions.scroll_down"),
        Binding("K,ctrl+up", "scroll(-1)", "Scroll up", show=False, id="suggestions.scroll_up"),
        Binding("escape,b,q", "back", "Back to the chapter", id="suggestions.back"),
    ]

    def __init__(self, session: ChapterSession, *, start: int = 0) -> None:
        super().__init__()
        self.session = session
        self.start = start  # the paragraph position to start from: its first suggestion, or the next one after
        self.only: QueueFilter | None = None
        self.everything: list[Suggestion] = []  # every pending suggestion of the chapter
        self.shown: list[Suggestion] = []  # those the filter keeps
        self.index = 0  # in ``shown``
        self.busy = False  # a decision is being written: the next waits for it
        self._leave_when_saved = False  # back was asked for while a decision was being written
        self._chapter: Chapter | None = None  # the chapter state the queue was read from
        self.last_position: int | None = None  # of the paragraph shown last (the chapter's cursor goes there)

    def compose(self) -> ComposeResult:
        yield Static("", id="queue-status", markup=False)
        yield SuggestionView(id="queue-view")
        yield Label(HINT, id="queue-hint", markup=False)

    def on_mount(self) -> None:
        self.reread()
        firsts = [i for i, s in enumerate(self.shown) if s.position >= self.start]
        self.index = firsts[0] if firsts else 0
        self._show()
        self.query_one(SuggestionView).focus()
        self.set_interval(FOLLOW_SECONDS, self._follow)

    # -- the queue -----------------------------------------------------------------------------------------

    @property
    def current(self) -> Suggestion | None:
        """The suggestion shown."""
        return self.shown[self.index] if 0 <= self.index < len(self.shown) else None

    def reread(self) -> None:
        """Read the queue from the session's chapter as it is now; the suggestion shown stays when it is still
        pending, else the one after it takes its place."""
        before = self.current
        chapter = self.session.chapter
        self._chapter = chapter
        self.everything = pending_suggestions(chapter) if chapter is not None else []
        self.shown = filtered(self.everything, self.only)
        if not self.shown and self.everything:
            self.notify(visible(f"No more suggestions of {self.only_label}: showing all."), timeout=3, markup=False)
            self.only = None
            self.shown = list(self.everything)
        ids = [s.version.id for s in self.shown]
        if before is not None and before.version.id in ids:
            self.index = ids.index(before.version.id)
        self.index = min(self.index, max(len(self.shown) - 1, 0))

    @property
    def only_label(self) -> str:
        return self.only.label if self.only is not None else "every kind"

    def _show(self) -> None:
        item = self.current
        if item is not None:
            self.last_position = item.position
        self.query_one(SuggestionView).show(item)
        self.query_one("#queue-status", Static).update(Text(self.status_text, no_wrap=True, overflow="ellipsis"))

    @property
    def status_text(self) -> str:
        """``Suggestion 2/5 · [12] p0000012`` (and the filter, when one is on)."""
        item = self.current
        if item is None:
            return visible(f"{self.session.path.name} · no pending suggestions", newlines=False)
        where = visible(f"[{item.position + 1}] {item.paragraph.id}", newlines=False)
        count = f"{self.index + 1}/{len(self.shown)}"
        if self.only is not None:
            count += visible(f" ({self.only.label}; {len(self.everything)} in all)", newlines=False)
        return f"Suggestion {count} · {where}"

    def _follow(self) -> None:
        """The session's chapter changed (a run's commit, the watcher): show the queue as it is now."""
        if self.session.chapter is not self._chapter:
            self._refresh()

    def _refresh(self) -> None:
        """Show the queue as the session holds it now; go back to the chapter when nothing is left in it (or back
        was asked for while a decision was being written), once no modal stands above the queue."""
        if not self.is_attached:
            return
        self.reread()
        done = not self.everything
        if (done or self._leave_when_saved) and self.app.screen is self:
            if done:
                self.notify("No pending suggestions left in this chapter.", timeout=3)
            self.dismiss(self.last_position)
            return
        self._show()

    @on(WorkspaceChanged)
    def _workspace_changed(self, message: WorkspaceChanged) -> None:
        if message.path is None or message.path == self.session.path:
            self._refresh()

    def on_screen_resume(self) -> None:
        self._refresh()  # back from the editor, the filter or the help

    # -- decisions -------------------------------------------------------------------------------------------

    def action_decide(self, verb: str) -> None:
        item = self.current
        if item is None or self.busy:
            return
        if verb == "accept":
            self._commit(self.session.accept_suggestion, item, f"accepted the suggestion for [{item.position + 1}]")
        else:
            self._commit(self.session.reject_suggestion, item, f"rejected the suggestion for [{item.position + 1}]")

    def _commit(self, change: Callable[..., Chapter], item: Suggestion, done: str, *text: str) -> None:
        """Write one decision in a thread, then show the queue as the file now holds it."""
        self.busy = True

        async def commit() -> None:
            try:
                await asyncio.to_thread(change, item.paragraph.id, item.version.id, *text)
            except (EditRefused, StoreError, OSError) as exc:
                self.notify(visible(f"Not saved: {exc}"), severity="error", timeout=6, markup=False)
            else:
                self.notify(visible(f"{done} ({item.paragraph.id}).", newlines=False), timeout=2, markup=False)
            finally:
                self.busy = False
            self._refresh()

        self.run_worker(commit(), group="suggestion", description="save a decision", exit_on_error=False)

    def action_edit(self) -> None:
        item = self.current
        if item is None or self.busy:
            return

        def save(text: str | None) -> None:
            if text is not None:
                self._edited(item, text)

        index = item.position + 1
        self.app.push_screen(
            EditScreen(
                f"Edit the suggestion for [{index}] {item.paragraph.id}, then accept it",
                item.version.text,
                source=item.paragraph.text,
            ),
            save,
        )

    def action_edit_external(self) -> None:
        item = self.current
        if item is None or self.busy:
            return
        try:
            text, _ = edit_in_editor(self.app, item.version.text, hint=item.paragraph.id, source=item.paragraph.text)
        except EditorFailed as exc:
            self.notify(visible(str(exc)), severity="error", markup=False)
            return
        self._edited(item, text)

    def _edited(self, item: Suggestion, text: str) -> None:
        """Commit an edited suggestion; an empty or unchanged text saves nothing (as every edit of ours)."""
        if not text.strip():
            self.notify("An empty text is not saved.", severity="warning")
        elif text == item.version.text:
            self.notify("The text is unchanged: nothing saved (a accepts the suggestion as it is).", timeout=4)
        else:
            done = f"accepted the suggestion for [{item.position + 1}] with your edit"
            self._commit(self.session.edit_and_accept, item, done, text)

    # -- moving, filtering, leaving --------------------------------------------------------------------------

    def action_step(self, step: int) -> None:
        if self.shown:
            self.index = (self.index + step) % len(self.shown)
            self._show()

    def action_scroll(self, lines: int) -> None:
        self.query_one(SuggestionView).scroll_relative(y=lines, animate=False)

    def action_filter(self) -> None:
        choices = filter_choices(self.everything)
        if not choices:
            return
        labels = [f"every suggestion ({len(self.everything)})", *(f"{f.label} ({n})" for f, n in choices)]

        def chosen(index: int | None) -> None:
            if index is None:
                return
            before = self.current
            self.only = choices[index - 1][0] if index else None
            self.reread()
            if self.only is not None and (before is None or not self.only.keeps(before)):
                self.index = 0  # the one shown is filtered out: the first of the filter's
            self._show()

        self.app.push_screen(ChoiceScreen("Show the suggestions of", labels), chosen)

    def action_back(self) -> None:
        if self.busy:  # the chapter view is drawn when it comes back: after the decision is on disk
            self._leave_when_saved = True
            return
        self.dismiss(self.last_position)
