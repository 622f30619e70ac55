"""The conflicts of one chapter and their resolution: keep theirs, keep ours, or edit.

A ``stale_source`` record is a run result refused because the source text changed on disk; a
``selection_kept`` record is a run result appended without taking the selection because a person had
chosen another version; a ``reverted_on_disk`` record is a run result an outside edit undid after it was
written. Resolving goes through the store (``ChapterSession.resolve_conflict``).
"""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from store.conflicts import Resolution, StoredConflict
from store.errors import StoreError
from tui.screens.edit import EditScreen
from tui.session import ChapterSession, EditRefused
from tui.terminal_text import visible

KIND_TEXT = {
    "stale_source": "refused: the source text changed on disk after the run read it",
    "selection_kept": "appended, but your selection was kept",
    "reverted_on_disk": "undone on disk by an outside edit after the run wrote it (o restores the run's text)",
}


class ConflictsScreen(ModalScreen[None]):
    """Unresolved conflict records of a chapter."""

    HELP_GROUP = "Conflicts"
    BINDINGS = [
        Binding("t", "resolve('keep_theirs')", "Keep theirs", id="conflicts.keep_theirs"),
        Binding("o", "resolve('keep_ours')", "Keep ours", id="conflicts.keep_ours"),
        Binding("e", "edit", "Edit", id="conflicts.edit"),
        Binding("escape,b", "close", "Close", id="conflicts.close"),
    ]

    def __init__(self, session: ChapterSession) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        with Vertical(id="conflicts-box", classes="modal-box"):
            yield Label(
                visible(f"Conflicts of {self.session.path.name}", newlines=False), classes="modal-title", markup=False
            )
            yield OptionList(id="conflicts-list")
            with VerticalScroll(id="conflicts-detail"):
                yield Static("", id="conflicts-text", markup=False)
            yield Label(
                "t: keep theirs (file) · o: keep ours (run's text) · e: edit · esc: close", classes="modal-hint"
            )

    async def on_mount(self) -> None:
        await asyncio.to_thread(self.session.refresh_conflicts)
        self._fill()
        self.query_one(OptionList).focus()

    def _fill(self) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        chapter = self.session.chapter
        for conflict in self.session.conflicts:
            record = conflict.record
            index = chapter.index_of(record.paragraph_id) if chapter is not None else None
            where = f"[{index}]" if index else "[gone]"
            line = visible(f"{where} {record.paragraph_id} · {record.kind} · {record.created_at}", newlines=False)
            options.add_option(Option(Text(line, no_wrap=True, overflow="ellipsis")))
        if self.session.conflicts:
            options.highlighted = 0
        self._show()

    @property
    def current(self) -> StoredConflict | None:
        """The record under the cursor."""
        index = self.query_one(OptionList).highlighted
        conflicts = self.session.conflicts
        return conflicts[index] if index is not None and 0 <= index < len(conflicts) else None

    @on(OptionList.OptionHighlighted)
    def _highlighted(self) -> None:
        self._show()

    def _show(self) -> None:
        body = self.query_one("#conflicts-text", Static)
        conflict = self.current
        if conflict is None:
            body.update("No unresolved conflicts.")
            return
        r = conflict.record
        lines = [
            KIND_TEXT.get(r.kind, r.kind),
            f"run: {r.origin} · {r.model or 'no model'}",
            "",
            "Source when the run read it:",
            r.base_source,
        ]
        if r.kind == "stale_source":
            lines += ["", "Source on disk now:", r.current_source if r.current_source is not None else "(gone)"]
        lines += ["", "Ours (the run's text):", r.our_text]
        if r.their_text is not None:
            theirs = "Theirs (on disk now):" if r.kind == "reverted_on_disk" else "Theirs (the selection kept):"
            lines += ["", theirs, r.their_text]
        body.update(visible("\n".join(lines)))  # texts from the chapter and the run

    async def action_resolve(self, resolution: Resolution, text: str | None = None) -> None:
        conflict = self.current
        if conflict is None:
            return
        try:
            await asyncio.to_thread(self.session.resolve_conflict, conflict, resolution, text)
        except (EditRefused, StoreError, OSError) as exc:
            self.notify(visible(f"Not resolved: {exc}"), severity="error", timeout=6, markup=False)
            return
        self.notify(
            visible(f"Resolved {conflict.record.paragraph_id}: {resolution.replace('_', ' ')}."),
            timeout=3,
            markup=False,
        )
        self._fill()

    def action_edit(self) -> None:
        conflict = self.current
        if conflict is None:
            return

        async def save(text: str | None) -> None:
            if text is not None and text.strip():
                await self.action_resolve("edited", text)

        self.app.push_screen(
            EditScreen(
                f"Edit {conflict.record.paragraph_id}",
                conflict.record.our_text,
                source=conflict.record.current_source or conflict.record.base_source,
            ),
            save,
        )

    def action_close(self) -> None:
        self.dismiss(None)
