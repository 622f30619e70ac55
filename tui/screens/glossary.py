"""The workspace glossary: every entry with its status, filter, add, edit, approve and remove, keyboard only; and
triage: marks (``m`` the entry under the cursor, ``M`` every entry the filter shows) that approve, remove, and set
the kind or gender of many entries at once.

Changes are commits through ``store.glossary_commit`` (locked, merged onto the file as it is on disk), one commit
per key, however many entries it changes; the list follows edits made outside (the app looks at the file every
second and sends ``GlossaryChanged``). With entries marked, ``v``, ``d``, ``k`` and ``g`` act on the marked ones
(shown or not), else on the entry under the cursor; approving or removing uses the marks up.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from store.errors import StoreError
from store.glossary import KINDS, Glossary, GlossaryEntry, new_entry_id
from store.glossary_commit import add_entry, approve_entries, remove_entries, update_entries, update_entry
from tui.glossary_view import GlossaryView
from tui.messages import GlossaryChanged, GlossaryEdited
from tui.screens.choice import ChoiceScreen
from tui.screens.prompt import PromptScreen
from tui.terminal_text import visible
from tui.worker_failures import ReportsWorkerFailures

GENDERS: tuple[str | None, ...] = ("female", "male", "other", None)


def entry_line(entry: GlossaryEntry, marked: bool = False) -> str:
    """One row: mark, status mark, source → target, kind (and gender), note."""
    status = "?" if entry.status == "proposed" else " "
    target = entry.target or "(no target yet)"
    kind = f"{entry.kind}, {entry.gender}" if entry.gender else entry.kind
    note = f" · {' '.join(entry.note.split())}" if entry.note.strip() else ""
    return visible(f"{'*' if marked else ' '}{status} {entry.source} → {target} ({kind}){note}", newlines=False)


def _matches(entry: GlossaryEntry, needle: str) -> bool:
    """Whether the filter ``needle`` (case-folded) is in one of the entry's texts (its origin too: ``extract``)."""
    texts = (entry.source, entry.target, entry.note, entry.kind, entry.status, entry.origin, *entry.aliases)
    return any(needle in t.casefold() for t in texts)


def _entries(n: int) -> str:
    return f"{n} entry" if n == 1 else f"{n} entries"


class GlossaryScreen(Screen[None], ReportsWorkerFailures):
    """The glossary of the workspace."""

    HELP_GROUP = "Glossary"
    BINDINGS = [
        Binding("a", "add", "Add", id="glossary.add"),
        Binding("e,enter", "edit('target')", "Target", id="glossary.edit"),
        Binding("n", "edit('note')", "Note", show=False, id="glossary.note"),
        Binding("k", "choose_kind", "Kind", show=False, id="glossary.kind"),
        Binding("g", "choose_gender", "Gender", show=False, id="glossary.gender"),
        Binding("m,space", "toggle_mark", "Mark", id="glossary.mark"),
        Binding("M,asterisk", "mark_shown", "Mark all shown", show=False, id="glossary.mark_shown"),
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
        self.marked: set[str] = set()  # IDs of the marked entries
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

    # -- showing -------------------------------------------------------------------------------------------------

    def refresh_list(self, *, force: bool = False) -> None:
        """Show the entries as the file holds them now (kept cursor; marks of entries gone are dropped)."""
        glossary = self.view.current()
        if glossary is self._glossary and self.view.problem == self._problem and not force:
            return
        self._glossary, self._problem = glossary, self.view.problem
        self.marked &= {e.id for e in glossary.entries}
        needle = self.filter_text.casefold()
        self.shown = [e for e in glossary.entries if not needle or _matches(e, needle)]
        self._fill_rows()
        self._show_status()

    def _fill_rows(self) -> None:
        """One row per entry shown, the cursor kept at its place."""
        options = self.query_one(OptionList)
        keep = options.highlighted
        options.clear_options()
        options.add_options([Option(self._prompt(e), id=e.id) for e in self.shown])
        if self.shown:
            options.highlighted = min(keep or 0, len(self.shown) - 1)

    def _prompt(self, entry: GlossaryEntry) -> Text:
        return Text(entry_line(entry, entry.id in self.marked), no_wrap=True, overflow="ellipsis")

    def line_of(self, entry_id: str) -> str:
        """The row shown for the entry ``entry_id`` (as plain text)."""
        return str(self.query_one(OptionList).get_option(entry_id).prompt)

    def _show_status(self) -> None:
        glossary = self._glossary or Glossary()
        proposed = sum(e.status == "proposed" for e in glossary.entries)
        status = f"Glossary · {_entries(len(glossary.entries))} · {proposed} proposed (?)"
        if self.filter_text:
            status += f" · filter {self.filter_text!r}: {len(self.shown)}"
        if self.marked:
            status += f" · {len(self.marked)} marked (*): v d k g"
        if self.view.problem:
            status += f" · {self.view.problem}"
        self.status_text = visible(status, newlines=False)
        self.query_one("#glossary-status", Static).update(self.status_text)

    @property
    def current(self) -> GlossaryEntry | None:
        """The entry under the cursor."""
        index = self.query_one(OptionList).highlighted
        return self.shown[index] if index is not None and 0 <= index < len(self.shown) else None

    def _chosen(self) -> list[GlossaryEntry]:
        """What a key acts on: the marked entries (in glossary order) if any, else the entry under the cursor."""
        if self.marked and self._glossary is not None:
            return [e for e in self._glossary.entries if e.id in self.marked]
        entry = self.current
        return [entry] if entry is not None else []

    def _naming(self, entries: Sequence[GlossaryEntry]) -> str:
        """``老婆`` for the entry under the cursor, ``the 3 marked entries`` for marks."""
        if not self.marked:
            return entries[0].source
        return "the marked entry" if len(entries) == 1 else f"the {len(entries)} marked entries"

    # -- committing ----------------------------------------------------------------------------------------------

    def _commit(self, edit: Callable[[Glossary], Glossary], done: str, *, unmark: bool = False) -> None:
        """Apply ``edit`` in one locked commit (in a thread); ``unmark``: the marks are used up when it succeeds."""

        async def work() -> None:
            try:
                await asyncio.to_thread(self.view.change, edit)
            except StoreError as exc:  # a conflict, an unknown entry, a broken file: one sentence
                self.notify(visible(str(exc), newlines=False), severity="error", markup=False)
                return
            if unmark:
                self.marked.clear()
            self.refresh_list(force=True)
            self.post_message(GlossaryEdited())  # the chapter views' entries and checks follow
            self.notify(visible(done, newlines=False), timeout=3, markup=False)

        self.run_worker(work(), group="glossary", exit_on_error=False)

    # -- marking -------------------------------------------------------------------------------------------------

    def action_toggle_mark(self) -> None:
        entry = self.current
        if entry is None:
            return
        self.marked ^= {entry.id}
        options = self.query_one(OptionList)
        options.replace_option_prompt(entry.id, self._prompt(entry))
        options.action_cursor_down()
        self._show_status()

    def action_mark_shown(self) -> None:
        ids = {e.id for e in self.shown}
        if not ids:
            return
        if ids <= self.marked:
            self.marked -= ids
        else:
            self.marked |= ids
        self.refresh_list(force=True)

    # -- editing -------------------------------------------------------------------------------------------------

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

    def action_choose_kind(self) -> None:
        self._choose("kind", KINDS)

    def action_choose_gender(self) -> None:
        self._choose("gender", GENDERS)

    def _choose(self, field: str, values: Sequence[str | None]) -> None:
        """Set ``field`` of the chosen entries to one of ``values`` (None: no value), picked from a short list."""
        entries = self._chosen()
        if not entries:
            return
        now = {getattr(e, field) for e in entries}
        labels = [(v or "none") + (" (now)" if now == {v} else "") for v in values]

        def chosen(index: int | None) -> None:
            if index is not None:
                value = values[index]
                done = f"{self._naming(entries)}: {field} {value or 'none'}"
                self._commit(update_entries([e.id for e in entries], **{field: value}), done)

        title = f"{field.capitalize()} of {self._naming(entries)}"
        self.app.push_screen(ChoiceScreen(title, labels), chosen)

    def action_approve(self) -> None:
        entries = [e for e in self._chosen() if e.status == "proposed"]
        ready = [e for e in entries if e.target.strip()]
        waiting = len(entries) - len(ready)
        if not ready:
            if waiting:
                self.notify("Give it a translation first (e).", severity="warning")
            return
        done = f"approved {len(ready)}" if self.marked else f"approved {ready[0].source}"
        left = f"; {waiting} without a translation left proposed (e gives one)" if waiting else ""
        self._commit(approve_entries([e.id for e in ready]), done + left, unmark=True)

    def action_remove(self) -> None:
        entries = self._chosen()
        if not entries:
            return

        def chosen(index: int | None) -> None:
            if index == 0:
                done = f"removed {self._naming(entries)}" if self.marked else f"removed {entries[0].source}"
                self._commit(remove_entries([e.id for e in entries]), done, unmark=True)

        if self.marked:
            question, choices = f"Remove {self._naming(entries)}?", ["Remove them", "Keep them"]
        else:
            entry = entries[0]
            question, choices = f"Remove {entry.source} → {entry.target or '…'}?", ["Remove it", "Keep it"]
        self.app.push_screen(ChoiceScreen(question, choices), chosen)

    def action_filter(self) -> None:
        def apply(value: str | None) -> None:
            if value is not None:
                self.filter_text = value.strip()
                self.refresh_list(force=True)

        self.app.push_screen(
            PromptScreen("Filter entries (source, target, note, kind, status, origin)", value=self.filter_text), apply
        )

    def action_back(self) -> None:
        self.app.pop_screen()
