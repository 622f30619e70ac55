"""The workspace glossary: every entry with its status, filter, add, edit, approve and remove, keyboard only.

Changes are commits through ``store.glossary_commit`` (locked, merged onto the file as it is on disk); the list
follows edits made outside (the app looks at the file every second and sends ``GlossaryChanged``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from store.errors import StoreError
from store.glossary import Glossary, GlossaryEntry, new_entry_id
from store.glossary_commit import add_entry, approve_entries, remove_entries, update_entry
from tui.glossary_view import GlossaryView
from tui.messages import GlossaryChanged, GlossaryEdited
from tui.screens.choice import ChoiceScreen
from tui.screens.prompt import PromptScreen
from tui.terminal_text import visible
from tui.worker_failures import ReportsWorkerFailures


def entry_line(entry: GlossaryEntry) -> str:
    """One row: status mark, source → target, kind, note."""
    mark = "?" if entry.status == "proposed" else " "
    target = entry.target or "(no target yet)"
    note = f" · {' '.join(entry.note.split())}" if entry.note.strip() else ""
    return visible(f"{mark} {entry.source} → {target} ({entry.kind}){note}", newlines=False)


class GlossaryScreen(Screen[None], ReportsWorkerFailures):
    """The glossary of the workspace."""

    HELP_GROUP = "Glossary"
    BINDINGS = [
        Binding("a", "add", "Add", id="glossary.add"),
        Binding("e,enter", "edit('target')", "Edit target", id="glossary.edit"),
        Binding("n", "edit('note')", "Note", id="glossary.note"),
        Binding("v", "approve", "Approve", id="glossary.approve"),
        Binding("d", "remove", "Remove", id="glossary.remove"),
        Binding("slash,f", "filter", "Filter", id="glossary.filter"),
        Binding("escape,b,q", "back", "Back", id="glossary.back"),
    ]

    def __init__(self, view: GlossaryView) -> None:
        super().__init__()
        self.view = view
        self.filter_text = ""
        self.shown: list[GlossaryEntry] = []
        self._glossary: Glossary | None = None
        self._problem: str | None = None
        self.status_text = ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("", id="glossary-status", markup=False)
            yield OptionList(id="glossary-list")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.refresh_list()  # edits made outside come as GlossaryChanged (the app looks at the file every second)

    @on(GlossaryChanged)
    def _glossary_changed(self) -> None:
        self.refresh_list()

    def refresh_list(self, *, force: bool = False) -> None:
        """Show the entries as the file holds them now (kept cursor)."""
        glossary = self.view.current()
        if glossary is self._glossary and self.view.problem == self._problem and not force:
            return
        self._glossary, self._problem = glossary, self.view.problem
        needle = self.filter_text.casefold()
        self.shown = [
            e
            for e in glossary.entries
            if not needle
            or any(needle in t.casefold() for t in (e.source, e.target, e.note, e.kind, e.status, *e.aliases))
        ]
        options = self.query_one(OptionList)
        keep = options.highlighted
        options.clear_options()
        options.add_options(
            [Option(Text(entry_line(e), no_wrap=True, overflow="ellipsis"), id=e.id) for e in self.shown]
        )
        if self.shown:
            options.highlighted = min(keep or 0, len(self.shown) - 1)
        proposed = sum(e.status == "proposed" for e in glossary.entries)
        status = f"Glossary · {len(glossary.entries)} entries · {proposed} proposed (?)"
        if self.filter_text:
            status += f" · filter {self.filter_text!r}: {len(self.shown)}"
        if self.view.problem:
            status += f" · {self.view.problem}"
        self.status_text = visible(status, newlines=False)
        self.query_one("#glossary-status", Static).update(self.status_text)

    @property
    def current(self) -> GlossaryEntry | None:
        """The entry under the cursor."""
        index = self.query_one(OptionList).highlighted
        return self.shown[index] if index is not None and 0 <= index < len(self.shown) else None

    def _commit(self, edit: Callable[[Glossary], Glossary], done: str) -> None:
        async def work() -> None:
            try:
                await asyncio.to_thread(self.view.change, edit)
            except StoreError as exc:  # a conflict, an unknown entry, a broken file: one sentence
                self.notify(visible(str(exc), newlines=False), severity="error", markup=False)
                return
            self.refresh_list(force=True)
            self.post_message(GlossaryEdited())  # the chapter views' entries and checks follow
            self.notify(visible(done, newlines=False), timeout=2, markup=False)

        self.run_worker(work(), group="glossary", exit_on_error=False)

    def action_add(self) -> None:
        def got_source(source: str | None) -> None:
            if source and source.strip():
                self.app.push_screen(
                    PromptScreen(f"Translation of {source.strip()}"), lambda target: got_target(source.strip(), target)
                )

        def got_target(source: str, target: str | None) -> None:
            if target and target.strip():
                entry = GlossaryEntry(id=new_entry_id(), source=source, target=target.strip())
                self._commit(add_entry(entry), f"added {source} → {target.strip()}")

        self.app.push_screen(PromptScreen("New glossary entry: the source term"), got_source)

    def action_edit(self, field: str) -> None:
        entry = self.current
        if entry is None:
            return

        def got(value: str | None) -> None:
            if value is not None and (value.strip() or field == "note"):
                self._commit(update_entry(entry.id, **{field: value.strip()}), f"{entry.source}: {field} saved")

        question = f"{'Translation' if field == 'target' else 'Note'} of {entry.source}"
        self.app.push_screen(PromptScreen(question, value=getattr(entry, field)), got)

    def action_approve(self) -> None:
        entry = self.current
        if entry is not None and entry.status == "proposed":
            if not entry.target.strip():
                self.notify("Give it a translation first (e).", severity="warning")
                return
            self._commit(approve_entries([entry.id]), f"approved {entry.source}")

    def action_remove(self) -> None:
        entry = self.current
        if entry is None:
            return

        def chosen(index: int | None) -> None:
            if index == 0:
                self._commit(remove_entries([entry.id]), f"removed {entry.source}")

        self.app.push_screen(
            ChoiceScreen(f"Remove {entry.source} → {entry.target or '…'}?", ["Remove it", "Keep it"]), chosen
        )

    def action_filter(self) -> None:
        def apply(value: str | None) -> None:
            if value is not None:
                self.filter_text = value.strip()
                self.refresh_list(force=True)

        self.app.push_screen(
            PromptScreen("Filter entries (source, target, note, kind, status)", value=self.filter_text), apply
        )

    def action_back(self) -> None:
        self.app.pop_screen()
