"""The chapter list: every chapter of the workspace with its progress, what waits for the editor, and marks; and
the book-level work (a run of every chapter, the checks of the book, its exports) with its status line and log.

Counting reads every paragraph of every chapter (and checks them for the warnings column), so it runs in a thread
worker: the rows show the counts known so far at once, the warnings once checked (``…`` until then). A chapter
whose view has counted its warnings is not checked again (``ChapterSession.known_warnings``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Static
from textual.worker import get_current_worker

from engine.checks import GlossaryTerm
from tui.chapter_rows import COLUMNS, ChapterRow, cells, widths
from tui.controllers.book import BookControl
from tui.messages import GlossaryChanged, RunProgressed, WorkspaceChanged
from tui.session import ChapterSession, WorkspaceSession
from tui.status_fit import fit_lines
from tui.terminal_text import visible
from tui.widgets.chapter_table import ChapterTable
from tui.widgets.log_pane import LogPane
from tui.worker_failures import ReportsWorkerFailures

if TYPE_CHECKING:
    from tui.app import ProofdeskApp


class ChapterListScreen(Screen[None], ReportsWorkerFailures):
    """Pick a chapter; its counts, marks for runs, files changed on disk, invalid files and conflicts."""

    HELP_GROUP = "Chapter list"
    BINDINGS = [
        Binding("enter,o", "open", "Open", id="list.open"),
        Binding("G", "glossary", "Glossary", id="list.glossary"),
        Binding("up,k", "cursor(-1)", "Up", show=False, id="list.up"),
        Binding("down,j", "cursor(1)", "Down", show=False, id="list.down"),
    ]

    def __init__(self, workspace: WorkspaceSession) -> None:
        super().__init__()
        self.workspace = workspace
        self.book = BookControl(workspace, id="book")
        self.rows: list[ChapterRow] = []  # as shown, in book order
        self._widths: dict[str, int] = {}

    @property
    def proofdesk(self) -> ProofdeskApp:
        return cast("ProofdeskApp", self.app)

    def compose(self) -> ComposeResult:
        yield Static(
            visible(f"Workspace {self.workspace.workspace.root}", newlines=False), id="list-title", markup=False
        )
        self.book.demo_delay = self.proofdesk.demo_delay
        with self.book:
            yield ChapterTable(id="chapters", cursor_type="row", zebra_stripes=True)
            yield Static("", id="list-problem", markup=False)
            yield Static("", id="book-status", markup=False)
            yield LogPane(id="book-log")
        yield Footer(compact=True)

    @property
    def table(self) -> ChapterTable:
        return self.query_one(ChapterTable)

    def on_mount(self) -> None:
        self.query_one(LogPane).display = False  # until the first book-level work
        self.query_one("#book-status").display = False
        self._columns(self.rows)
        self.table.focus()
        self.refresh_rows()

    def _columns(self, rows: Sequence[ChapterRow]) -> None:
        """Lay the columns out anew when their widths change (the terminal's, or the longest file name)."""
        wanted = widths(self.app.size.width, rows)
        if wanted == self._widths:
            return
        self._widths = wanted
        table = self.table
        table.clear(columns=True)
        for key, header, _ in COLUMNS:
            table.add_column(header, width=wanted[key], key=key)

    def on_resize(self) -> None:
        self._show(self.rows)
        self._show_book_status()

    # -- rows --------------------------------------------------------------------------------------------------

    def refresh_rows(self) -> None:
        """Count every chapter again (in a thread) and show the counts; the rows keep the cursor's chapter.

        Only while the list is shown: under a chapter view (``proofdesk CHAPTER`` starts so) counting would check
        every chapter in a thread, holding the interpreter while the view paints; showing the list counts again.
        """
        if not self._shown():
            return
        sessions = [self.workspace.session(p) for p in self.workspace.chapter_paths()]
        running = self.proofdesk.running_paths()
        self._count(sessions, self.workspace.glossary.snapshot.approved_terms, running)

    def _shown(self) -> bool:
        """Whether the list is on screen: the top screen, or under modal screens only."""
        stack = self.app.screen_stack
        return self in stack and all(isinstance(above, ModalScreen) for above in stack[stack.index(self) + 1 :])

    @work(thread=True, exclusive=True, group="list-rows", description="count the chapters", exit_on_error=False)
    def _count(
        self, sessions: list[ChapterSession], terms: tuple[GlossaryTerm, ...], running: frozenset[object]
    ) -> None:
        worker = get_current_worker()
        rows = [ChapterRow(s.summary(), s.known_warnings(terms), s.path in running) for s in sessions]
        self.app.call_from_thread(self._show, rows)
        if all(row.warnings is not None for row in rows):
            return
        counted = []
        for session, row in zip(sessions, rows, strict=True):
            if worker.is_cancelled:
                return
            warnings = row.warnings if row.warnings is not None else session.count_warnings(terms)
            counted.append(ChapterRow(row.summary, warnings, row.running))
        self.app.call_from_thread(self._show, counted)

    def _show(self, rows: list[ChapterRow]) -> None:
        here = self._cursor_key()
        self.rows = rows
        self._columns(rows)
        self._fill(rows, here)

    def _fill(self, rows: Sequence[ChapterRow], here: str | None) -> None:
        """Show ``rows``: the cells in place when the chapters are the same ones, else the rows anew with the
        cursor on the chapter ``here``."""
        table = self.table
        keys = [str(r.summary.path) for r in rows]
        reading = self.proofdesk.seeding
        if keys == [row_key.value for row_key in table.rows]:
            for key, row in zip(keys, rows, strict=True):
                for column, cell in cells(row, reading=reading).items():
                    table.update_cell(key, column, cell)
        else:
            table.clear()
            for key, row in zip(keys, rows, strict=True):
                shown = cells(row, reading=reading)
                table.add_row(*(shown[column] for column, _, _ in COLUMNS), key=key)
            if rows:
                table.move_cursor(row=keys.index(here) if here in keys else min(table.cursor_row, len(rows) - 1))
        self._say_problem(table.cursor_row)

    def _cursor_key(self) -> str | None:
        table = self.table
        if not table.row_count:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    def _say_problem(self, row: int) -> None:
        """Under the table: why the chapter at ``row`` is invalid, or that the folder has no chapter."""
        if row < len(self.rows):
            said = visible(self.rows[row].summary.invalid or "", newlines=False)
        else:
            said = "No chapter files (*.json) in this folder." if not self.proofdesk.seeding else ""
        self.query_one("#list-problem", Static).update(said)

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._say_problem(event.cursor_row)

    @on(WorkspaceChanged)
    def _changed(self, message: WorkspaceChanged) -> None:
        self.refresh_rows()

    @on(RunProgressed)
    def _run_progressed(self) -> None:
        self.refresh_rows()  # its counts, and whether it is marked running

    @on(GlossaryChanged)
    def _glossary_changed(self) -> None:
        self.refresh_rows()  # the warnings of GLOSSARY_NOT_APPLIED

    def on_screen_resume(self) -> None:
        self.refresh_rows()

    # -- the book ----------------------------------------------------------------------------------------------

    @on(BookControl.Progressed)
    def _book_progressed(self) -> None:
        self._show_book_status()

    def _show_book_status(self) -> None:
        parts = self.book.progress.parts()
        status = self.query_one("#book-status", Static)
        status.display = bool(parts)
        if parts:
            status.update(Text("\n".join(fit_lines(parts, self.app.size.width, max_lines=1)), no_wrap=True))

    @on(LogPane.EntryViewRequested)
    def _view_entry(self, message: LogPane.EntryViewRequested) -> None:
        from tui.screens.text_view import TextViewScreen

        self.app.push_screen(TextViewScreen(f"Log: {message.entry.kind}", message.entry.copy))

    # -- keys --------------------------------------------------------------------------------------------------

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_cursor(self, step: int) -> None:
        table = self.table
        table.move_cursor(row=table.cursor_row + step)

    def action_glossary(self) -> None:
        from tui.screens.glossary import GlossaryScreen

        self.app.push_screen(GlossaryScreen(self.workspace.glossary))

    def action_open(self) -> None:
        key = self._cursor_key()
        if key is None:
            return
        row = next((r for r in self.rows if str(r.summary.path) == key), None)
        session = self.workspace.session(row.summary.path) if row is not None else None
        if session is None or session.chapter is None:
            invalid = row.summary.invalid if row is not None else None
            self.notify(
                visible(invalid or "This chapter is still being read."), severity="error", timeout=8, markup=False
            )
            return
        self.proofdesk.open_chapter(session)
