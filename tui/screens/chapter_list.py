"""The chapter list: every chapter of the workspace with its progress, review count and marks."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from tui.messages import WorkspaceChanged
from tui.session import ChapterSummary, WorkspaceSession
from tui.terminal_text import visible
from tui.widgets.chapter_table import ChapterTable

if TYPE_CHECKING:
    from tui.app import ProofdeskApp


def marks(summary: ChapterSummary) -> str:
    """Short marks: ``✗`` invalid on disk, ``⌫`` deleted, ``●`` changed on disk, ``!`` conflicts."""
    out = ""
    if summary.invalid:
        out += "✗"
    if summary.deleted:
        out += "⌫"
    if summary.changed_on_disk:
        out += "●"
    if summary.conflicts:
        out += "!"
    return out


class ChapterListScreen(Screen[None]):
    """Pick a chapter; marks show files changed on disk, invalid files and conflicts."""

    HELP_GROUP = "Chapter list"
    BINDINGS = [
        Binding("enter,o", "open", "Open", id="list.open"),
        Binding("G", "glossary", "Glossary", id="list.glossary"),
        Binding("up,k", "cursor(-1)", "Up", show=False, id="list.up"),
        Binding("down,j", "cursor(1)", "Down", show=False, id="list.down"),
    ]
    COLUMNS = ("", "file", "title", "translated", "reviewed")

    def __init__(self, workspace: WorkspaceSession) -> None:
        super().__init__()
        self.workspace = workspace

    @property
    def proofdesk(self) -> ProofdeskApp:
        return cast("ProofdeskApp", self.app)

    def compose(self) -> ComposeResult:
        yield Static(
            visible(f"Workspace {self.workspace.workspace.root}", newlines=False), id="list-title", markup=False
        )
        yield ChapterTable(id="chapters", cursor_type="row", zebra_stripes=True)
        yield Static("", id="list-problem", markup=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*self.COLUMNS)
        table.focus()
        self.refresh_rows()

    @property
    def summaries(self) -> list[ChapterSummary]:
        """One summary per chapter file, in file-name order."""
        return [self.workspace.session(p).summary() for p in self.workspace.chapter_paths()]

    def refresh_rows(self) -> None:
        """Rebuild the table from the sessions, keeping the cursor on the same file."""
        table: DataTable[str | Text] = self.query_one(DataTable)
        keep = table.cursor_row
        table.clear()
        summaries = self.summaries
        for s in summaries:
            progress, reviewed = self._progress(s)
            # Text cells, never str: a str cell is parsed as markup, and names and titles come from files.
            table.add_row(
                marks(s),
                Text(visible(s.path.name, newlines=False), no_wrap=True),
                Text(visible(s.title or "", newlines=False), overflow="ellipsis", no_wrap=True),
                progress,
                reviewed,
                key=str(s.path),
            )
        if summaries:
            table.move_cursor(row=min(keep, len(summaries) - 1))
        self._say_problem(summaries, table.cursor_row)

    def _progress(self, s: ChapterSummary) -> tuple[str, str]:
        """The "translated" and "reviewed" cells of a chapter."""
        if s.invalid:
            return "invalid", ""
        if s.chapter_id is None:
            return "reading…" if self.proofdesk.seeding else "?", ""
        percent = round(100 * s.translated / s.non_empty) if s.non_empty else 100
        return f"{s.translated}/{s.non_empty} {percent:>3}%", f"{s.reviewed}"

    def _say_problem(self, summaries: list[ChapterSummary], row: int) -> None:
        """Under the table: why the chapter at ``row`` is invalid, or that the folder has no chapter."""
        if row < len(summaries):
            said = visible(summaries[row].invalid or "", newlines=False)
        else:
            said = "No chapter files (*.json) in this folder." if not self.proofdesk.seeding else ""
        self.query_one("#list-problem", Static).update(said)

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        summaries = self.summaries
        row = event.cursor_row
        if 0 <= row < len(summaries):
            self.query_one("#list-problem", Static).update(visible(summaries[row].invalid or "", newlines=False))

    @on(WorkspaceChanged)
    def _changed(self, message: WorkspaceChanged) -> None:
        self.refresh_rows()

    def on_screen_resume(self) -> None:
        self.refresh_rows()

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_cursor(self, step: int) -> None:
        table = self.query_one(DataTable)
        table.move_cursor(row=table.cursor_row + step)

    def action_glossary(self) -> None:
        from tui.screens.glossary import GlossaryScreen

        self.app.push_screen(GlossaryScreen(self.workspace.glossary))

    def action_open(self) -> None:
        table = self.query_one(DataTable)
        summaries = self.summaries
        if not summaries:
            return
        summary = summaries[table.cursor_row]
        session = self.workspace.session(summary.path)
        if session.chapter is None:
            self.notify(
                visible(summary.invalid or "This chapter is still being read."),
                severity="error",
                timeout=8,
                markup=False,
            )
            return
        self.proofdesk.open_chapter(session)
