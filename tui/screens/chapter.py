"""The chapter view: paragraph table, detail pane and log pane; runs, review and edits of one chapter.

Composed of parts that own their keys: :class:`RunControl` (the run keys and the run worker) holds
:class:`ChecksControl` (the QA warnings), which holds :class:`ChapterPanes` (the panes, and the detail pane's
keys); the screen keeps the keys of reading, review and edits (what the review and edit keys do:
:class:`tui.chapter_edits.ChapterEdits`). The screen hands its parts what they need; they
answer with messages. Every redraw is one ``ChapterStateChanged`` message, posted by whoever changed what is shown.

Every change the editor makes is a store commit (``ChapterSession`` → ``ChapterStore.update``) run in a
thread; a run is one async worker consuming ``engine.run.run_chapter`` and posting each event as an
``EngineEventReceived`` message. Nothing here blocks the event loop on the disk.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static

from engine.checks.glossary import GlossaryTerms
from engine.checks.incremental import NO_WARNINGS, ChapterWarnings
from engine.chunks import TASKS, TaskType
from engine.trace import latest_trace
from store.model import Chapter
from tui.chapter_edits import ChapterEdits
from tui.chapter_status import StatusFacts, status_parts
from tui.clipboard import copy_and_say
from tui.controllers.checks import ChecksControl
from tui.controllers.runs import RunControl
from tui.messages import (
    ChapterStateChanged,
    EngineEventReceived,
    GlossaryChanged,
    MemoryChanged,
    Redrawn,
    RunProgressed,
    WorkspaceChanged,
)
from tui.screens.prompt import PromptScreen
from tui.search import SCOPE_WORDS, Search
from tui.session import ChapterSession, WorkspaceSession
from tui.status_fit import fit_lines
from tui.suggestion_queue import pending_count
from tui.terminal_text import visible
from tui.widgets.chapter_panes import ChapterPanes
from tui.widgets.detail_pane import DetailPane
from tui.widgets.log_pane import LogPane
from tui.widgets.paragraph_rows import RowModel, find_target
from tui.widgets.paragraph_table import ParagraphTable
from tui.worker_failures import ReportsWorkerFailures

if TYPE_CHECKING:
    from tui.app import ProofdeskApp

log = logging.getLogger(__name__)

SEPARATOR_CYCLE: tuple[TaskType | None, ...] = (*TASKS, None)
SYNC_ROWS = 2000  # up to this many paragraphs, chunk separators are computed at once (no flicker)


def _first_separators(chapter: Chapter | None) -> TaskType:
    """The chunks shown when the view opens: the translation's while a paragraph waits for one, else polishing's."""
    if chapter is None or any(not p.is_empty and p.selected_translation_id is None for p in chapter.paragraphs):
        return "translate"
    return "polish"


class ChapterScreen(Screen[None], ReportsWorkerFailures):
    """One chapter: rows, the paragraph under the cursor, the log of the run."""

    HELP_GROUP = "Chapter"
    SHOWS_STATUSES = True
    BINDINGS = [
        Binding("e", "edit", "Edit", id="chapter.edit"),
        Binding("E", "edit_external", "Edit in $EDITOR", show=False, id="chapter.edit_external"),
        Binding("left_square_bracket", "version(-1)", "Older version", show=False, id="chapter.version_older"),
        Binding("right_square_bracket", "version(1)", "Newer version", show=False, id="chapter.version_newer"),
        Binding("enter", "select_version", "Select version shown", show=False, id="chapter.select_version"),
        Binding("m", "toggle_reviewed", "Mark or unmark reviewed", show=False, id="chapter.reviewed"),
        Binding("a", "review_and_next", "Mark, next", id="chapter.review_next"),
        Binding("n", "next_review(1)", "Next to review", show=False, id="chapter.next_review"),
        Binding("N", "next_review(-1)", "Previous to review", show=False, id="chapter.previous_review"),
        Binding("slash", "search", "Search", show=False, id="chapter.search"),
        Binding("semicolon", "search_step(1)", "Next match", show=False, id="chapter.search_next"),
        Binding("comma", "search_step(-1)", "Previous match", show=False, id="chapter.search_previous"),
        Binding("g", "goto", "Go to [n] or ID", show=False, id="chapter.goto"),
        Binding("l", "toggle_log", "Log", show=False, id="chapter.toggle_log"),
        Binding("f", "errors_only", "Log: errors only", show=False, id="chapter.log_errors"),
        Binding("i", "trace", "Trace of the last run", show=False, id="chapter.trace"),
        Binding("c", "conflicts", "Conflicts", show=False, id="chapter.conflicts"),
        Binding("G", "glossary", "Glossary", show=False, id="chapter.glossary"),
        Binding("S", "suggestions", "Suggestions queue", show=False, id="chapter.suggestions"),
        Binding("s", "cycle_separators", "Separators: next task", show=False, id="chapter.separators"),
        Binding("y", "copy_translation", "Copy the translation", show=False, id="chapter.copy"),
        Binding("b", "back", "Chapter list", show=False, id="chapter.back"),
    ]

    def __init__(self, workspace: WorkspaceSession, session: ChapterSession) -> None:
        super().__init__()
        self.workspace = workspace
        self.session = session
        self.separator_task: TaskType | None = _first_separators(session.chapter)
        self.viewed_version: int | None = None
        self.last_query = ""
        self.search: Search | None = None
        self.runs = RunControl(session, workspace, id="run-control")
        self.checks = ChecksControl(session, self.glossary_terms, id="checks")
        self.warnings: ChapterWarnings = NO_WARNINGS  # the QA warnings shown: the checks' as of the last redraw
        self.edits = ChapterEdits(self)

    @property
    def proofdesk(self) -> ProofdeskApp:
        return cast("ProofdeskApp", self.app)

    def compose(self) -> ComposeResult:
        self.runs.demo_delay = self.proofdesk.demo_delay
        with self.runs, self.checks, ChapterPanes(id="panes"):
            # In the same container as the panes, so their heights in % are of the same whole as ever.
            yield Static(id="chapter-status", markup=False)
            yield ParagraphTable(id="paragraphs")
            yield DetailPane(id="detail")
            yield LogPane(id="log")
        yield Footer(compact=True)

    @property
    def table(self) -> ParagraphTable:
        return self.query_one(ParagraphTable)

    @property
    def log_pane(self) -> LogPane:
        return self.query_one(LogPane)

    @property
    def run_in_progress(self) -> bool:
        """Whether this view's run goes on."""
        return self.runs.run_in_progress

    @property
    def run_label(self) -> str | None:
        """The status line's word on the run: its progress while it goes, then how it ended."""
        return self.runs.run_label

    def glossary_terms(self) -> GlossaryTerms:
        """The approved glossary entries as the checks use them: the checks' one way to the glossary (an
        attribute of the immutable snapshot the app's worker parsed: nothing is read here)."""
        return self.workspace.glossary.snapshot.approved_terms

    def on_mount(self) -> None:
        self.table.focus()
        self.session.changed_on_disk = False
        self._redraw()  # the first frame shows the rows
        self._reload_conflicts()
        if self.session.invalid:
            self.log_pane.add_notice(
                f"{self.session.path.name} is not valid on disk: {self.session.invalid}", error=True
            )

    # -- showing -----------------------------------------------------------------------------------------

    def refresh_view(self, *, rows: bool = False) -> None:
        """Redraw from the session once the messages before this one are handled (for callers outside the view,
        such as the app after a change of model; ``rows``: rebuild the rows even for the same chapter state)."""
        self._changed("rows" if rows else "view")

    def _changed(self, what: Redrawn = "view") -> None:
        """Something shown changed: redraw ``what`` (one ``ChapterStateChanged``, the view's one way to redraw)."""
        self.post_message(ChapterStateChanged(what))

    @on(ChapterStateChanged)
    def _state_changed(self, message: ChapterStateChanged) -> None:
        message.stop()
        if message.what == "status":
            self.update_status()
        else:
            self._redraw(rows=message.what == "rows")

    def _redraw(self, *, rows: bool = False) -> None:
        """Redraw from the session: rows when the chapter (or ``rows``: the separators) changed; always the
        statuses, the detail pane and the status line."""
        chapter = self.session.chapter
        table = self.table
        if chapter is not None and (rows or chapter is not table.chapter):
            self._show_rows(chapter)
        self.checks.want(chapter)
        self.warnings = self.checks.warnings
        table.set_marks(run_changed=frozenset(self.session.run_changed), conflict_ids=self.session.conflict_ids)
        self.update_detail()
        self.update_status()

    def on_screen_resume(self) -> None:
        self._changed()  # the session kept up with the files (and the run) while another screen was shown

    def _show_rows(self, chapter: Chapter) -> None:
        run_rows = self.runs.run_rows
        if run_rows is not None and run_rows.fits(chapter):
            self.table.show(chapter, run_rows)
            return
        task, chunk_chars = self.separator_task, self.workspace.chunk_chars
        if task is None or len(chapter.paragraphs) <= SYNC_ROWS:
            self.table.show(chapter, RowModel.build(chapter, task, chunk_chars))
            return
        # Big chapter: chunking every paragraph takes a while. Show the rows now (with the previous
        # separators while the paragraphs are the same ones), and the new separators once computed.
        current = self.table.model
        kept = current.fits(chapter) and current.task == task
        self.table.show(chapter, current if kept else RowModel.build(chapter, None, chunk_chars))
        self._separators_later(chapter, task, chunk_chars)

    @work(thread=True, exclusive=True, group="rows", description="chunk separators", exit_on_error=False)
    def _separators_later(self, chapter: Chapter, task: TaskType, chunk_chars: int) -> None:
        model = RowModel.build(chapter, task, chunk_chars)
        self.app.call_from_thread(self._apply_separators, chapter, model)

    def _apply_separators(self, chapter: Chapter, model: RowModel) -> None:
        if self.table.chapter is chapter and model.task == self.separator_task:
            self.table.show(chapter, model)

    def update_detail(self) -> None:
        """The detail pane: the paragraph under the cursor, the version viewed, its warnings, terms and memory."""
        para = self.table.current_paragraph
        status = self.table.status_of(para) if para is not None else "empty"
        warnings = self.warnings.of(para) if para is not None else ()
        terms = self.workspace.glossary.entries_in(para.text) if para is not None and para.text else []
        chapter = self.table.chapter
        memory = self.workspace.memory.looker(chapter.id, para) if para is not None and chapter is not None else None
        self.query_one(DetailPane).show(para, self.table.cursor, status, self.viewed_version, warnings, terms, memory)

    def update_status(self) -> None:
        """Say in the status line what the chapter, its run, its warnings and the search are at, on one line
        (or two) of the terminal's width: the lowest-priority parts shortened or left out first."""
        s = self.session.summary()
        demo = self.runs.demo_on_real_chapter
        chapter = self.session.chapter
        search = None
        if self.search is not None and chapter is not None:
            cursor = self.table.cursor
            search = (self.search.describe(chapter, cursor), self.search.position(chapter, cursor))
        facts = StatusFacts(
            summary=s,
            run=self.runs.run_status,
            model=self.workspace.settings.model,
            separators=self.separator_task,
            search=search,
            demo=demo,
            warnings=self.checks.status_parts(),
        )
        lines = fit_lines(status_parts(facts), self.app.size.width)
        status = self.query_one("#chapter-status", Static)
        status.update(Text("\n".join(lines), no_wrap=True, overflow="ellipsis"))
        status.set_class(bool(s.invalid or s.deleted or demo), "-problem")

    def on_resize(self) -> None:
        self.update_status()  # what fits changed

    @on(ParagraphTable.CursorMoved)
    def _cursor_moved(self, event: ParagraphTable.CursorMoved) -> None:
        self.viewed_version = None
        self.update_detail()
        if self.search is not None:
            self.update_status()  # "k of n" follows the cursor

    async def load_conflicts(self) -> None:
        await asyncio.to_thread(self.session.refresh_conflicts)
        self._changed()

    # -- messages ------------------------------------------------------------------------------------------

    @on(EngineEventReceived)
    def _engine_event(self, message: EngineEventReceived) -> None:
        self.log_pane.push(message.event)
        self.runs.follow(message.event)

    @on(RunControl.ConflictsReloadRequested)
    def _reload_conflicts(self) -> None:
        self.run_worker(self.load_conflicts(), group="conflicts", exclusive=True)

    @on(RunControl.ParagraphAnswered)
    def _show_answer(self, message: RunControl.ParagraphAnswered) -> None:
        """After a one-paragraph run: the cursor on that paragraph, its new version and diff in the detail pane."""
        chapter = self.session.chapter
        pos = chapter.positions.get(message.paragraph_id) if chapter is not None else None
        if pos is not None:
            self.viewed_version = None
            self.table.move_to(pos)

    @on(ChecksControl.DismissRequested)
    def _dismiss(self, message: ChecksControl.DismissRequested) -> None:
        para, codes = message.paragraph, message.codes
        self.edits.commit(
            self.session.dismiss_warnings,
            para.id,
            codes,
            message.seen,
            done=f"[{message.position + 1}] {para.id}: dismissed {', '.join(codes)} (until either text changes)",
        )

    @on(GlossaryChanged)
    def _glossary_changed(self) -> None:
        self._changed()  # the warnings of GLOSSARY_NOT_APPLIED and the entries in the detail pane

    @on(MemoryChanged)
    def _memory_changed(self) -> None:
        self.update_detail()  # the detail pane's memory line

    @on(RunProgressed)
    def _run_progressed(self, message: RunProgressed) -> None:
        if message.path == self.session.path:
            self._changed()  # a run of the book committed into this chapter (this view's own runs redraw anyway)

    @on(WorkspaceChanged)
    def _workspace_changed(self, message: WorkspaceChanged) -> None:
        if message.path is not None and message.path != self.session.path:
            return
        if message.notice and message.path is not None:
            self.log_pane.add_notice(message.notice, error=message.error)
        if gone := self.runs.outside_reverts():
            self.log_pane.add_notice(
                f"REVERTED_ON_DISK · an outside edit undid the last run's text of {len(gone)}: {', '.join(gone[:5])}"
                + (" …" if len(gone) > 5 else "")
                + "; c lists them to restore",
                error=True,
            )
        self.session.changed_on_disk = False
        self._changed()

    # -- review and edits (tui/chapter_edits.py) ---------------------------------------------------------------

    def action_edit(self) -> None:
        self.edits.edit()

    def action_edit_external(self) -> None:
        self.edits.edit_external()

    def action_version(self, step: int) -> None:
        self.edits.version(step)

    def action_select_version(self) -> None:
        self.edits.select_version()

    def action_toggle_reviewed(self) -> None:
        self.edits.toggle_reviewed()

    def action_review_and_next(self) -> None:
        self.edits.review_and_next()

    def action_next_review(self, step: int) -> None:
        self.edits.next_review(step)

    def action_search(self) -> None:
        def found(query: str | None) -> None:
            if query is None:
                return
            self.last_query = query
            self.search = Search.parse(query)  # an empty query ends the search and its highlights
            needle = self.search.needle if self.search is not None else None
            self.table.set_highlight(needle)
            self.query_one(DetailPane).highlight = needle
            if self.search is None:
                self._changed()
                return
            self.action_search_step(1)

        self.app.push_screen(
            PromptScreen(
                "Search source and translations (src: or tr: in front: only one of them)",
                value=self.last_query,
                hint="enter: next match, then ; next · , previous · empty: clear · esc: cancel",
            ),
            found,
        )

    def action_search_step(self, direction: int) -> None:
        chapter = self.session.chapter
        if self.search is None or chapter is None:
            self.notify("No search yet: / searches.", severity="warning")
            return
        pos = self.search.step(chapter, self.table.cursor, direction)
        if pos is None:
            self.notify(
                visible(f"No paragraph contains {self.search.needle!r} in its {SCOPE_WORDS[self.search.scope]}."),
                severity="warning",
                markup=False,
            )
        else:
            self.table.move_to(pos)
        self._changed()

    def action_goto(self) -> None:
        def go(target: str | None) -> None:
            chapter = self.session.chapter
            if not target or chapter is None:
                return
            pos = find_target(chapter, target)
            if pos is None:
                self.notify(
                    visible(f"No paragraph [{target}] and no ID starting with {target!r}."),
                    severity="warning",
                    markup=False,
                )
            else:
                self.table.move_to(pos)

        self.app.push_screen(PromptScreen("Go to an index ([n]) or a paragraph ID"), go)

    def action_copy_translation(self) -> None:
        para = self.edits.current()
        if para is not None and para.selected_text is not None:
            copy_and_say(self, para.selected_text, "the translation")

    # -- panes, separators, other screens -------------------------------------------------------------------

    def action_toggle_log(self) -> None:
        pane = self.log_pane
        pane.display = not pane.display
        if not pane.display and pane.has_focus:
            self.table.focus()

    def action_errors_only(self) -> None:
        pane = self.log_pane
        pane.display = True
        pane.errors_only = not pane.errors_only
        self.notify("Log: errors only." if pane.errors_only else "Log: everything.", timeout=2)

    def action_cycle_separators(self) -> None:
        index = SEPARATOR_CYCLE.index(self.separator_task)
        self.set_separators(SEPARATOR_CYCLE[(index + 1) % len(SEPARATOR_CYCLE)])

    def set_separators(self, task: TaskType | None) -> None:
        """Show the chunk separators of ``task`` (None: none)."""
        self.separator_task = task
        self._changed("rows")

    @on(LogPane.EntryViewRequested)
    def _view_entry(self, message: LogPane.EntryViewRequested) -> None:
        from tui.screens.text_view import TextViewScreen

        self.app.push_screen(TextViewScreen(f"Log: {message.entry.kind}", message.entry.copy))

    def action_trace(self) -> None:
        chapter = self.session.chapter
        path = None if chapter is None else latest_trace(self.workspace.workspace.traces_dir, chapter.id)
        if path is None:
            self.notify("No trace yet for this chapter: start a run with t, p or r.", severity="warning")
            return
        from tui.screens.trace import TraceScreen

        self.app.push_screen(TraceScreen(path))

    def action_conflicts(self) -> None:
        from tui.screens.conflicts import ConflictsScreen

        self.app.push_screen(ConflictsScreen(self.session), lambda _: self._changed())

    def action_glossary(self) -> None:
        from tui.screens.glossary import GlossaryScreen

        self.app.push_screen(GlossaryScreen(self.workspace.glossary), lambda _: self._changed())

    def action_suggestions(self) -> None:
        chapter = self.session.chapter
        if chapter is None or not pending_count(chapter):
            self.notify("No pending suggestions in this chapter.")
            return
        from tui.screens.suggestions import SuggestionsScreen

        self.app.push_screen(SuggestionsScreen(self.session, start=self.table.cursor), self._queue_closed)

    def _queue_closed(self, position: int | None) -> None:
        """Back from the queue: the cursor on the paragraph seen last, the view as the decisions left it."""
        if position is not None:
            self.table.move_to(position)
        self._changed()

    def action_back(self) -> None:
        if self.run_in_progress:  # the screen stays installed: its run and log go on while another is shown
            self.notify("The run goes on; its progress and log are here when you come back.", timeout=3)
        self.proofdesk.show_chapter_list()
