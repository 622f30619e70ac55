"""Runs on the chapter view: the task keys, retranslating, asking the model about one paragraph, cancelling.

:class:`RunControl` holds the panes of the chapter view (so its keys work from any of them) and owns the run:
one async worker consuming ``engine.run.run_chapter`` through the chapter session's store, posting each event as
an ``EngineEventReceived`` to the screen, which hands it to the log pane and back to :meth:`RunControl.follow`.
The screen stays installed while its run goes on, so leaving the chapter neither stops the run nor clears its
log. What the screen must do about a run comes up as messages: ``ChapterStateChanged`` (redraw),
``ConflictsReloadRequested`` and ``ParagraphAnswered``.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass, replace
from functools import singledispatchmethod
from typing import TYPE_CHECKING

from textual import work
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.worker import Worker, WorkerState

from engine.chunks import TaskType, empty_work_reason, work_set
from engine.events import BatchCommitted, EngineEvent, ErrorEvent, RunFinished, ToolResult
from engine.tasks import TASK_RULES
from store.errors import ChapterLoadError
from store.model import Chapter
from tui.messages import ChapterStateChanged, EngineEventReceived, Redrawn, RunProgressed
from tui.outside_reverts import OutsideReverts
from tui.run_status import RunStatus
from tui.sample import is_bundled_sample
from tui.session import ChapterSession, WorkspaceSession
from tui.widgets.log_pane import LogPane
from tui.widgets.paragraph_rows import RowModel
from tui.widgets.paragraph_table import ParagraphTable
from tui.worker_failures import ReportsWorkerFailures

if TYPE_CHECKING:
    from engine.run_events import RunEvents
    from tui.screens.ask import Question

_STATUS_EVENTS = frozenset({"chunk_started", "model_request"})  # events that change only the status line
NO_MODEL = (
    "No model is configured: start proofdesk with --model NAME or --profile NAME, or pick one with ctrl+p "
    "(Model: …); the demo model writes marked placeholder text."
)


@dataclass(frozen=True)
class RunAsk:
    """How a run was asked for (kept to run it again, forced, when another run held the chapter)."""

    task: TaskType
    only_chunk: int | None = None
    include_all: bool = False
    only_paragraph: str | None = None
    instruction: str | None = None
    what: str = ""  # the status line's name for it ("" : from the task and the chunk)
    force: bool = False

    @property
    def label(self) -> str:
        """``translate``, ``polish chunk 3``, ``translate (all)`` or ``what``."""
        if self.what:
            return self.what
        return (f"{self.task} chunk {self.only_chunk}" if self.only_chunk else self.task) + (
            " (all)" if self.include_all else ""
        )


class RunControl(Vertical, ReportsWorkerFailures):
    """The run keys of the chapter view and the run in progress (see the module docstring)."""

    HELP_GROUP = "Chapter"
    BINDINGS = [
        Binding("t", "run('translate')", "Translate", id="chapter.translate"),
        Binding("p", "run('polish')", "Polish", id="chapter.polish"),
        Binding("r", "run('proofread')", "Proofread", id="chapter.proofread"),
        Binding("T", "run_chunk('translate')", "Translate chunk at cursor", show=False, id="chapter.translate_chunk"),
        Binding("P", "run_chunk('polish')", "Polish chunk at cursor", show=False, id="chapter.polish_chunk"),
        Binding("R", "run_chunk('proofread')", "Proofread chunk at cursor", show=False, id="chapter.proofread_chunk"),
        Binding(
            "u", "retranslate(False)", "Retranslate the chapter (all paragraphs)", show=False, id="chapter.retranslate"
        ),
        Binding(
            "U",
            "retranslate(True)",
            "Retranslate the chunk at cursor (all its paragraphs)",
            show=False,
            id="chapter.retranslate_chunk",
        ),
        Binding("A", "ask_model", "Ask the model about this paragraph", show=False, id="chapter.ask"),
        Binding("x", "cancel_run", "Cancel", id="chapter.cancel"),
    ]

    class ConflictsReloadRequested(Message):
        """The run met a paragraph changed under it, or ended: the conflicts file may have new entries."""

    class ParagraphAnswered(Message):
        """A one-paragraph run (A) ended: show that paragraph, its new version and diff."""

        def __init__(self, paragraph_id: str) -> None:
            super().__init__()
            self.paragraph_id = paragraph_id

    def __init__(
        self, session: ChapterSession, workspace: WorkspaceSession, *, demo_delay: float = 0.0, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.session = session
        self.workspace = workspace
        self.demo_delay = demo_delay
        self.run_status = RunStatus()
        self.run_rows: RowModel | None = None  # the running run's chunks, shown as the separators while it goes
        self._run_events: RunEvents | None = None  # the run in progress, to cancel it gracefully
        self._reload_wanted = False
        self._reloading = False
        self._asked: str | None = None  # the paragraph a one-paragraph run is about (shown with its diff when done)
        self._last_ask: RunAsk | None = None
        self._busy: str | None = None  # why the last run was refused: another run holds the chapter
        self.reverts = OutsideReverts()  # what the last run wrote, to see an outside edit undo it

    # -- what the screen reads -------------------------------------------------------------------------------

    @property
    def run_in_progress(self) -> bool:
        """Whether a run worker is active."""
        return any(w.group == "run" and w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in self.workers)

    @property
    def run_label(self) -> str | None:
        """The status line's word on the run: its progress while it goes, then how it ended."""
        return self.run_status.text()

    def outside_reverts(self) -> list[str]:
        """After the watcher reloaded the chapter: the paragraphs whose version from the last run an outside edit
        has just undone. Their "changed by the run" marks go, and the run's texts are recorded in the conflicts
        (in a thread; ``ConflictsReloadRequested`` follows), where ``c`` restores them."""
        chapter = self.session.chapter
        gone = self.reverts.newly_reverted(chapter) if chapter is not None else []
        if gone and chapter is not None:
            self.session.run_changed.difference_update(gone)
            self.run_worker(self._record_reverts(chapter, gone), group="reverts", exit_on_error=False)
        return gone

    async def _record_reverts(self, chapter: Chapter, gone: list[str]) -> None:
        ask = self._last_ask
        origin = TASK_RULES[ask.task].origin if ask is not None else "translation"
        ws = self.workspace
        await asyncio.to_thread(
            self.reverts.record, ws.workspace, self.session.path, chapter, gone, origin, ws.settings.model
        )
        self.post_message(self.ConflictsReloadRequested())

    @property
    def demo_on_real_chapter(self) -> bool:
        """The offline demo model is in use on a chapter other than the bundled sample."""
        chapter = self.session.chapter
        return self.workspace.settings.is_demo and not (chapter is not None and is_bundled_sample(chapter))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # "x Cancel" is offered (in the footer too) only while a run goes on.
        return self.run_in_progress if action == "cancel_run" else True

    @property
    def _table(self) -> ParagraphTable:
        return self.query_one(ParagraphTable)

    @property
    def _log(self) -> LogPane:
        return self.query_one(LogPane)

    def _changed(self, what: Redrawn = "view") -> None:
        self.post_message(ChapterStateChanged(what))

    # -- starting --------------------------------------------------------------------------------------------

    def action_run(self, task: TaskType) -> None:
        self._start(RunAsk(task))

    def action_run_chunk(self, task: TaskType) -> None:
        chunk = self._chunk_at_cursor(task, include_all=False)
        if chunk is not None:
            self._start(RunAsk(task, only_chunk=chunk))
        elif task == "translate":
            self.notify(
                "The paragraph under the cursor is already translated: U retranslates its chunk, "
                "A asks the model about this paragraph.",
                severity="warning",
            )
        else:
            self.notify(f"The paragraph under the cursor has no translation to {task}.", severity="warning")

    def action_retranslate(self, chunk_only: bool) -> None:
        if not chunk_only:
            self._start(RunAsk("translate", include_all=True))
            return
        chunk = self._chunk_at_cursor("translate", include_all=True)
        if chunk is None:
            self.notify("The paragraph under the cursor is empty: it is never translated.", severity="warning")
            return
        self._start(RunAsk("translate", only_chunk=chunk, include_all=True))

    def _chunk_at_cursor(self, task: TaskType, *, include_all: bool) -> int | None:
        chapter = self.session.chapter
        if chapter is None or not chapter.paragraphs:
            return None
        chunk = self._rows_for(chapter, task, include_all).chunk_of(self._table.cursor)
        return None if chunk is None else chunk.index

    def _rows_for(self, chapter: Chapter, task: TaskType, include_all: bool) -> RowModel:
        """The rows shown when their separators are the chunks a run of ``task`` would cut now, else those."""
        table = self._table
        shown = table.model
        if not include_all and shown.task == task and shown.built_for == id(chapter) and table.chapter is chapter:
            return shown
        return RowModel.build(chapter, task, self.workspace.chunk_chars, include_all=include_all)

    def _thaw_rows(self) -> None:
        if self.run_rows is not None:
            self.run_rows = None
            self._changed("rows")

    def action_ask_model(self) -> None:
        table = self._table
        para = table.current_paragraph
        if para is None or para.is_empty:
            self.notify("Put the cursor on a paragraph with text to ask the model about it.", severity="warning")
            return
        translated = para.selected_translation_id is not None
        tasks: tuple[TaskType, ...] = ("translate", "polish", "proofread") if translated else ("translate",)
        index = table.cursor + 1

        def asked(question: Question | None) -> None:
            if question is not None:
                self._asked = para.id
                self._start(
                    RunAsk(
                        question.task,
                        only_paragraph=para.id,
                        instruction=question.instruction,
                        what=f"{question.task} [{index}] {para.id}",
                    )
                )

        from tui.screens.ask import AskScreen  # the form loads when first asked for

        self.app.push_screen(
            AskScreen(
                f"Ask the model about [{index}] {para.id}", tasks=tasks, task="polish" if translated else "translate"
            ),
            asked,
        )

    def _refusal(self, ask: RunAsk) -> tuple[str, SeverityLevel] | None:
        """Why ``ask`` cannot run now, and how bad that is; None: it can."""
        if self.run_in_progress:
            return "A run is already going; x cancels it.", "warning"
        if not self.workspace.settings.named:  # the demo model runs only when asked for
            return NO_MODEL, "error"
        chapter = self.session.chapter
        if chapter is None or not self.session.usable:
            return "The chapter file is not usable on disk; fix it first.", "error"
        if ask.only_paragraph is None and not work_set(chapter, ask.task, include_all=ask.include_all):
            # Nothing to send: say so, and leave the screen (and the last run's marks) as they are.
            why = empty_work_reason(chapter, ask.task)
            hint = " (u retranslates every paragraph)" if ask.task == "translate" and not ask.include_all else ""
            return f"Nothing to {ask.task}: {why}{hint}.", "warning"
        return None

    def _start(self, ask: RunAsk) -> None:
        refused = self._refusal(ask)
        if refused is not None:
            self.notify(refused[0], severity=refused[1])
            return
        if self.demo_on_real_chapter:
            self.notify(
                f"The model is the offline demo: it writes placeholder text ([demo …]) into "
                f"{self.session.path.name}. Set a model in the config file (see the README) to translate "
                "for real.",
                severity="warning",
                timeout=8,
                markup=False,
            )
        self.session.run_changed.clear()
        self.reverts.restart()
        chapter = self.session.chapter
        if ask.only_paragraph is None and chapter is not None:
            # The run's own chunks while it goes: they were cut once, from the chapter as it is now.
            self.run_rows = RowModel.build(chapter, ask.task, self.workspace.chunk_chars, include_all=ask.include_all)
        self.run_status.start(ask.label)
        # "rows": the separators become the run's chunks at once, not at its first commit (the chapter is the same).
        self._changed("rows" if self.run_rows is not None else "view")
        self._last_ask, self._busy = ask, None
        self._run(ask)
        self.app.post_message(RunProgressed(self.session.path))  # the chapter list marks it running

    @work(exclusive=True, group="run", exit_on_error=False)
    async def _run(self, ask: RunAsk) -> None:
        from engine.run import run_chapter

        options = asdict(ask)
        del options["task"], options["what"]
        request = self.workspace.run_request(self.session, ask.task, demo_delay=self.demo_delay, **options)
        self._run_events = events = run_chapter(
            request,
            workspace=self.workspace.workspace,
            store=self.session.store,
            glossary=self.workspace.glossary.source,
            shares_loop=True,
            memory=self.workspace.memory.source,
        )
        screen = self.screen  # the events go to the screen: its log pane and this control both follow them
        try:
            async for event in events:
                screen.post_message(EngineEventReceived(event, self.session.path))
        finally:
            self._run_events = None

    # -- while it goes ---------------------------------------------------------------------------------------

    @singledispatchmethod
    def follow(self, event: EngineEvent) -> None:
        """Fold one event of the run in (the screen hands each one here after the log pane)."""
        self.run_status.update(event)
        if event.kind in _STATUS_EVENTS:
            self._changed("status")

    @follow.register
    def _batch_committed(self, event: BatchCommitted) -> None:
        self.run_status.update(event)
        # Changed by the run: what it selected; a suggestion waits for the editor and shows as such.
        self.session.run_changed.update(set(event.paragraph_ids) - set(event.suggested))
        self.session.adopt_committed()  # the run commits through the session's store: nothing to re-read
        self.reverts.remember(self.session.chapter, event)
        self._changed()
        self.app.post_message(RunProgressed(self.session.path))

    @follow.register
    def _tool_result(self, event: ToolResult) -> None:
        self.run_status.update(event)
        if event.error_code == "STALE_PARAGRAPH":
            self.post_message(self.ConflictsReloadRequested())

    @follow.register
    def _error(self, event: ErrorEvent) -> None:
        self.run_status.update(event)
        if event.code == "RUN_BUSY":
            self._busy = event.message

    @follow.register
    def _run_finished(self, event: RunFinished) -> None:
        self.run_status.update(event)
        if self._busy is not None and event.status == "busy":
            self._offer_forced_run(self._busy)
        self._thaw_rows()
        self._request_reload()
        self.post_message(self.ConflictsReloadRequested())
        if self._asked is not None:
            asked, self._asked = self._asked, None
            self.post_message(self.ParagraphAnswered(asked))
        self._changed()

    def _offer_forced_run(self, message: str) -> None:
        """Another run (another terminal, a headless run) holds the chapter: say so, and offer to run anyway."""
        from tui.screens.choice import ChoiceScreen

        asked, self._busy = self._last_ask, None
        if asked is None:
            return
        said = message.split("; wait for it", 1)[0]  # the CLI's advice ("pass --force") is not for this screen

        def chosen(index: int | None) -> None:
            if index == 0:
                self._start(replace(asked, force=True))

        self.app.push_screen(
            ChoiceScreen(
                f"{said[0].upper()}{said[1:]}.",
                ["Run anyway (both runs are billed; every commit merges onto the file)", "Do not run"],
            ),
            chosen,
        )

    def _request_reload(self) -> None:
        """Re-read the chapter once a run has ended; reloads are coalesced, one at a time, in a thread."""
        self._reload_wanted = True
        if not self._reloading:
            self._reloading = True
            self.run_worker(self._reload_loop(), group="reload")

    async def _reload_loop(self) -> None:
        session = self.session
        try:
            while self._reload_wanted:
                self._reload_wanted = False
                try:
                    await asyncio.to_thread(session.load)
                except ChapterLoadError as exc:
                    session.mark_invalid(exc)
                    self._log.add_notice(f"could not re-read the chapter: {exc.line}", error=True)
                self._changed()
        finally:
            self._reloading = False

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "run":
            return
        self.refresh_bindings()
        if event.worker.is_finished:
            self.app.post_message(RunProgressed(self.session.path))  # the chapter list: not running any more
        if event.state in (WorkerState.CANCELLED, WorkerState.ERROR):
            self._thaw_rows()
            self._log.run_ended()  # no run_finished may come: the waiting line goes anyway
        if event.state == WorkerState.CANCELLED:
            self.run_status.finish("cancelled")
            self._log.add_notice("run cancelled; committed batches are kept")
            self._request_reload()
        elif event.state == WorkerState.ERROR:
            self.run_status.finish("failed")
            self._log.add_notice(f"the run failed: {event.worker.error}", error=True)
        self._changed("status")

    def action_cancel_run(self) -> None:
        if not self.run_in_progress:
            self.notify("No run in progress.", severity="warning")
            return
        events = self._run_events
        if events is None or events.cancelled:  # not started yet, or x pressed twice: stop the worker now
            self.workers.cancel_group(self, "run")
            return
        # The run stops within a second and still reports how it ended (run_finished, cancelled) in the log.
        events.cancel()
        self.run_status.cancelling = True
        self._changed("status")
