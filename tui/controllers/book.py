"""Work on the whole book from the chapter list: translate or polish every chapter, check them all, export the book.

:class:`BookControl` holds the chapter list's table, its status line and its log (so ``x`` works from any of them)
and owns the book's workers. A book run is one async worker running the chapters one after the other in file-name
order (the book's order), each through its chapter session's store as the chapter view's runs do (so the watcher
never takes our commits for outside edits, and a view of that chapter shows them at once); its events go to the
log below the list, its progress to the status line, and every start, commit and end of a chapter to the app
(``RunProgressed``: the list recounts, that chapter's view redraws). ``x`` cancels: the chapter in progress stops
as a chapter run does, and no further chapter starts. Checking and exporting read files, so they run in threads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from pathlib import Path

from textual import work
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.worker import Worker, WorkerState

from engine.checks import GlossaryTerm, check_workspace
from engine.chunks import TaskType, work_set
from engine.events import BatchCommitted, EngineEvent
from engine.run_events import RunEvents
from store.errors import ChapterLoadError, StoreError
from store.model import Chapter
from tui.book_check import check_report
from tui.book_export import EXPORTS, ExportFormat, default_path, export_book, is_imported_book
from tui.book_progress import BookProgress
from tui.controllers.runs import NO_MODEL
from tui.messages import RunProgressed
from tui.screens.prompt import PromptScreen
from tui.session import ChapterSession, WorkspaceSession
from tui.terminal_text import visible
from tui.widgets.log_pane import LogPane
from tui.worker_failures import ReportsWorkerFailures

Command = tuple[str, str, Callable[[], object]]  # a palette entry: name, help, what it calls

# Events that change what the status line says (the others are only logged).
_STATUS_KINDS = frozenset({"run_started", "chunk_started", "model_request", "model_response", "run_finished"})


class BookControl(Vertical, ReportsWorkerFailures):
    """The book-level work of the chapter list (see the module docstring)."""

    HELP_GROUP = "Chapter list"
    BINDINGS = [Binding("x", "cancel_book", "Cancel the book run", id="list.cancel_book")]

    class Progressed(Message):
        """The book's work moved on: the chapter list redraws its status line."""

    def __init__(self, workspace: WorkspaceSession, *, demo_delay: float = 0.0, id: str | None = None) -> None:
        super().__init__(id=id)
        self.workspace = workspace
        self.demo_delay = demo_delay
        self.progress = BookProgress()
        self.current: Path | None = None  # the chapter the book run is on
        self._events: RunEvents | None = None
        self._stopping = False

    @property
    def _log(self) -> LogPane:
        log = self.query_one(LogPane)
        log.display = True  # shown from the first book-level work on
        return log

    @property
    def running(self) -> bool:
        """Whether a book run goes on."""
        return any(
            w.group == "book-run" and w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in self.workers
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.running if action == "cancel_book" else True

    def _moved_on(self, path: Path | None = None) -> None:
        self.post_message(self.Progressed())
        if path is not None:
            self.app.post_message(RunProgressed(path))

    def commands(self) -> list[Command]:
        """What the command palette offers for the book."""
        found: list[Command] = [
            ("Book: translate every chapter", "in book order; x cancels", partial(self.start_run, "translate")),
            ("Book: polish every chapter", "in book order; x cancels", partial(self.start_run, "polish")),
            ("Book: check every chapter", "the QA warnings of the whole book", self.check_book),
        ]
        epub = is_imported_book(self.workspace.workspace.root)
        for fmt, kind in EXPORTS.items():
            if epub or not kind.epub:
                found.append(
                    (
                        f"Book: export as {kind.label}",
                        "pick the file; / at the end: a folder",
                        partial(self.export, fmt),
                    )
                )
        if self.running:
            found.append(
                ("Book: cancel the run", "the chapter in progress stops; no other starts", self.action_cancel_book)
            )
        return found

    # -- a run of the book ----------------------------------------------------------------------------------------

    def start_run(self, task: TaskType) -> None:
        """Run ``task`` on every chapter, one after the other in book order."""
        if self.running:
            self.notify("The book run goes on; x (on the chapter list) cancels it.", severity="warning")
            return
        if not self.workspace.settings.named:
            self.notify(NO_MODEL, severity="error")
            return
        sessions = [self.workspace.session(p) for p in self.workspace.chapter_paths()]
        if self.workspace.settings.is_demo:
            self.notify(
                "The model is the offline demo: it writes placeholder text ([demo …]) into every chapter.",
                severity="warning",
                timeout=8,
            )
        self.progress.start(task, len(sessions))
        self._stopping = False
        self._log.add_notice(f"{task} the book: {len(sessions)} chapters, in book order (x cancels)")
        self._moved_on()
        self._run_book(task, sessions)

    @work(exclusive=True, group="book-run", exit_on_error=False)
    async def _run_book(self, task: TaskType, sessions: list[ChapterSession]) -> None:
        for at, session in enumerate(sessions, 1):
            if self._stopping:
                break
            await self._run_chapter(task, session, at)
        self.progress.finish("cancelled" if self._stopping else "complete")
        self._log.add_notice(f"{self.progress.task} the book: {self.progress.stopped} ({self.progress.tally()})")
        self._moved_on()

    async def _run_chapter(self, task: TaskType, session: ChapterSession, at: int) -> None:
        name = session.path.name
        self.progress.chapter(at, name)
        chapter = await self._ready(session)
        if chapter is None or not work_set(chapter, task):
            self.progress.skip(name)
            why = "not usable on disk" if chapter is None else f"nothing to {task}"
            self._log.add_notice(visible(f"{name}: {why}; skipped", newlines=False), warning=chapter is None)
            self._moved_on()
            return
        from engine.run import run_chapter

        request = self.workspace.run_request(session, task, demo_delay=self.demo_delay)
        session.run_changed.clear()
        self.current = session.path
        self._events = events = run_chapter(
            request,
            workspace=self.workspace.workspace,
            store=session.store,
            glossary=self.workspace.glossary.source,
            shares_loop=True,
        )
        self._moved_on(session.path)
        try:
            async for event in events:
                self._follow(event, session)
        finally:
            self._events, self.current = None, None
            await self._reload(session)
            self._moved_on(session.path)

    async def _ready(self, session: ChapterSession) -> Chapter | None:
        """The chapter as it is, read in a thread if no view or scan has read it yet; None when unusable."""
        if session.chapter is None and session.usable:
            await self._reload(session)
        return session.chapter if session.usable else None

    async def _reload(self, session: ChapterSession) -> None:
        try:
            await asyncio.to_thread(session.load)
        except ChapterLoadError as exc:
            session.mark_invalid(exc)
            self._log.add_notice(visible(f"could not read {session.path.name}: {exc.line}", newlines=False), error=True)

    def _follow(self, event: EngineEvent, session: ChapterSession) -> None:
        self.progress.update(event)
        self._log.push(event)
        if isinstance(event, BatchCommitted):
            # As a view's run: what the run selected shows as changed by it; a suggestion waits for the editor.
            session.run_changed.update(set(event.paragraph_ids) - set(event.suggested))
            session.adopt_committed()
            self._moved_on(session.path)
        elif event.kind in _STATUS_KINDS:
            self._moved_on()

    def action_cancel_book(self) -> None:
        if not self.running:
            self.notify("No book run in progress.", severity="warning")
            return
        self._stopping = True
        events = self._events
        if events is None or events.cancelled:  # between chapters, or x twice: stop the worker now
            self.workers.cancel_group(self, "book-run")
            return
        events.cancel()  # the chapter stops within a second and reports how it ended; no other starts
        self._log.add_notice("cancelling the book run: the chapter in progress stops, no other starts")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "book-run":
            return
        self.refresh_bindings()
        if event.state in (WorkerState.CANCELLED, WorkerState.ERROR):
            how = "cancelled" if event.state == WorkerState.CANCELLED else "failed"
            self.progress.finish(how)
            self._log.run_ended()
            self._log.add_notice(f"the book run {how}; committed batches are kept", error=how == "failed")
            self._moved_on()

    # -- checking ---------------------------------------------------------------------------------------------------

    def check_book(self) -> None:
        """The QA warnings of every chapter (INCONSISTENT across chapters too), in a view of their own."""
        sessions = [self.workspace.session(p) for p in self.workspace.chapter_paths()]
        self._log.add_notice(f"checking the book: {len(sessions)} chapters")
        self._check(sessions, self.workspace.glossary.snapshot.approved_terms)

    @work(thread=True, exclusive=True, group="book-check", description="check the book", exit_on_error=False)
    def _check(self, sessions: list[ChapterSession], terms: tuple[GlossaryTerm, ...]) -> None:
        chapters: list[Chapter] = []
        names: list[str] = []
        unread: list[str] = []
        for session in sessions:
            if session.chapter is None and session.usable:
                try:
                    session.load()
                except ChapterLoadError as exc:
                    session.mark_invalid(exc)
            if session.chapter is None or not session.usable:
                unread.append(session.path.name)
                continue
            chapters.append(session.chapter)
            names.append(session.path.name)
        found = check_workspace(chapters, terms, names=names)
        title, text = check_report(names, found, unread)
        self.app.call_from_thread(self._checked, title, text)

    def _checked(self, title: str, text: str) -> None:
        from tui.screens.text_view import TextViewScreen

        self._log.add_notice(visible(title, newlines=False))
        self.app.push_screen(TextViewScreen(title, text))

    # -- exporting ------------------------------------------------------------------------------------------------

    def export(self, fmt: ExportFormat) -> None:
        """Ask where, then write the book in ``fmt`` there (in a thread)."""
        kind = EXPORTS[fmt]

        def chosen(typed: str | None) -> None:
            if typed and typed.strip():
                self._log.add_notice(visible(f"exporting the book as {kind.label} to {typed.strip()}", newlines=False))
                self._export(fmt, typed.strip())

        each = "" if kind.epub or kind.document else " · a path ending in /: one file per chapter"
        self.app.push_screen(
            PromptScreen(
                f"Export the book as {kind.label} to a new file:",
                value=default_path(self.workspace.workspace.root, fmt),
                hint=f"enter: export{each} · esc: cancel",
            ),
            chosen,
        )

    @work(thread=True, exclusive=True, group="book-export", description="export the book", exit_on_error=False)
    def _export(self, fmt: ExportFormat, typed: str) -> None:
        workspace = self.workspace.workspace
        try:
            said, failed = export_book(workspace.root, workspace.chapter_paths(), fmt, typed), False
        except (StoreError, OSError) as exc:
            said, failed = f"not exported: {exc}", True
        self.app.call_from_thread(self._exported, said, failed)

    def _exported(self, said: str, failed: bool) -> None:
        shown = visible(said, newlines=False)
        self._log.add_notice(shown, error=failed)
        self.notify(shown, severity="error" if failed else "information", timeout=8 if failed else 4, markup=False)
