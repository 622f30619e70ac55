"""Runs on the chapter view: the task keys, retranslating, asking the model about one paragraph, cancelling.

Mixed into :class:`tui.screens.chapter.ChapterScreen`. A run is one async worker of the screen consuming
``engine.run.run_chapter`` through the chapter session's store, posting each event as an
``EngineEventReceived``. The screen stays installed while its run goes on, so leaving the chapter neither
stops the run nor clears its log.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.binding import Binding
from textual.dom import DOMNode
from textual.worker import Worker, WorkerState

from engine.chunks import TaskType, work_set
from engine.events import BatchCommitted, ErrorEvent, RunFinished, ToolResult
from store.errors import ChapterLoadError
from tui.messages import EngineEventReceived
from tui.run_status import RunStatus
from tui.widgets.paragraph_rows import RowModel

if TYPE_CHECKING:
    from engine.run import RunEvents
    from tui.screens.ask import Question
    from tui.screens.chapter import ChapterScreen


class ChapterRuns(DOMNode):
    """The run keys of the chapter view (see the module docstring)."""

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

    run_status: RunStatus
    run_rows: RowModel | None = None  # the running run's chunks, shown as the separators while it goes
    _run_events: RunEvents | None = None  # the run in progress, to cancel it gracefully
    _reload_wanted = False
    _reloading = False
    _asked: str | None = None  # the paragraph a one-paragraph run is about (shown with its diff when done)
    _asked_run: dict[str, Any] | None = None  # how the last run was asked for (to run it again, forced)
    _busy: str | None = None  # why the last run was refused: another run holds the chapter

    @property
    def _screen(self) -> ChapterScreen:
        return self  # type: ignore[return-value]

    @property
    def run_in_progress(self) -> bool:
        """Whether a run worker is active on this screen."""
        return any(
            w.group == "run" and w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in self._screen.workers
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # "x Cancel" is offered (in the footer too) only while a run goes on.
        return self.run_in_progress if action == "cancel_run" else True

    # -- starting --------------------------------------------------------------------------------------------

    def action_run(self, task: TaskType) -> None:
        self._start_run(task)

    def action_run_chunk(self, task: TaskType) -> None:
        chunk = self._chunk_at_cursor(task, include_all=False)
        if chunk is not None:
            self._start_run(task, only_chunk=chunk)
        elif task == "translate":
            self._screen.notify(
                "The paragraph under the cursor is already translated: U retranslates its chunk, "
                "A asks the model about this paragraph.",
                severity="warning",
            )
        else:
            self._screen.notify(f"The paragraph under the cursor has no translation to {task}.", severity="warning")

    def action_retranslate(self, chunk_only: bool) -> None:
        if not chunk_only:
            self._start_run("translate", include_all=True)
            return
        chunk = self._chunk_at_cursor("translate", include_all=True)
        if chunk is None:
            self._screen.notify("The paragraph under the cursor is empty: it is never translated.", severity="warning")
            return
        self._start_run("translate", only_chunk=chunk, include_all=True)

    def _chunk_at_cursor(self, task: TaskType, *, include_all: bool) -> int | None:
        screen = self._screen
        chapter = screen.session.chapter
        if chapter is None or not chapter.paragraphs:
            return None
        shown = screen.table.model
        fresh = (
            not include_all
            and shown.task == task
            and shown.built_for == id(chapter)
            and screen.table.chapter is chapter
        )
        model = shown if fresh else RowModel.build(chapter, task, screen.workspace.chunk_chars, include_all=include_all)
        chunk = model.chunk_of(screen.table.cursor)
        return None if chunk is None else chunk.index

    def _freeze_rows(self, task: TaskType, include_all: bool) -> None:
        """Show the run's own chunks while it goes: they were cut once, from the chapter as it is now."""
        screen = self._screen
        chapter = screen.session.chapter
        if chapter is not None:
            self.run_rows = RowModel.build(chapter, task, screen.workspace.chunk_chars, include_all=include_all)

    def _thaw_rows(self) -> None:
        if self.run_rows is not None:
            self.run_rows = None
            self._screen.refresh_view(rows=True)

    def action_ask_model(self) -> None:
        screen = self._screen
        para = screen.table.current_paragraph
        if para is None or para.is_empty:
            screen.notify("Put the cursor on a paragraph with text to ask the model about it.", severity="warning")
            return
        translated = para.selected_translation_id is not None
        tasks: tuple[TaskType, ...] = ("translate", "polish", "proofread") if translated else ("translate",)
        index = screen.table.cursor + 1

        def asked(question: Question | None) -> None:
            if question is not None:
                self._asked = para.id
                self._start_run(
                    question.task,
                    only_paragraph=para.id,
                    instruction=question.instruction,
                    what=f"{question.task} [{index}] {para.id}",
                )

        from tui.screens.ask import AskScreen  # the form loads when first asked for

        screen.app.push_screen(
            AskScreen(
                f"Ask the model about [{index}] {para.id}", tasks=tasks, task="polish" if translated else "translate"
            ),
            asked,
        )

    def _start_run(
        self,
        task: TaskType,
        *,
        only_chunk: int | None = None,
        include_all: bool = False,
        only_paragraph: str | None = None,
        instruction: str | None = None,
        what: str = "",
        force: bool = False,
    ) -> None:
        screen = self._screen
        session = screen.session
        if self.run_in_progress:
            screen.notify("A run is already going; x cancels it.", severity="warning")
            return
        chapter = session.chapter
        if session.invalid or session.deleted or chapter is None:
            screen.notify("The chapter file is not usable on disk; fix it first.", severity="error")
            return
        if only_paragraph is None and not work_set(chapter, task, include_all=include_all):
            # Nothing to send: say so, and leave the screen (and the last run's marks) as they are.
            hint = " (u retranslates every paragraph)" if task == "translate" else ""
            screen.notify(f"Nothing to {task}: no paragraph is in the {task} work set{hint}.", severity="warning")
            return
        if screen.demo_on_real_chapter:
            screen.notify(
                f"The model is the offline demo: it writes placeholder text ([demo …]) into "
                f"{session.path.name}. Set a model in the config file (see the README) to translate "
                "for real.",
                severity="warning",
                timeout=8,
                markup=False,
            )
        session.run_changed.clear()
        if only_paragraph is None:
            self._freeze_rows(task, include_all)
        self.run_status.start(
            what or (f"{task} chunk {only_chunk}" if only_chunk else task) + (" (all)" if include_all else "")
        )
        screen.refresh_view()
        self._asked_run = dict(
            task=task,
            only_chunk=only_chunk,
            include_all=include_all,
            only_paragraph=only_paragraph,
            instruction=instruction,
            what=what,
        )
        self._busy = None
        self._run(
            task,
            dict(
                only_chunk=only_chunk,
                include_all=include_all,
                only_paragraph=only_paragraph,
                instruction=instruction,
                force=force,
            ),
        )

    @work(exclusive=True, group="run", exit_on_error=False)
    async def _run(self, task: TaskType, options: dict[str, Any]) -> None:
        from engine.run import run_chapter

        screen = self._screen
        request = screen.workspace.run_request(screen.session, task, demo_delay=screen.proofdesk.demo_delay, **options)
        self._run_events = events = run_chapter(
            request,
            workspace=screen.workspace.workspace,
            store=screen.session.store,
            glossary=screen.workspace.glossary.source,
        )
        try:
            async for event in events:
                screen.post_message(EngineEventReceived(event, screen.session.path))
        finally:
            self._run_events = None

    # -- while it goes ---------------------------------------------------------------------------------------

    @on(EngineEventReceived)
    def _engine_event(self, message: EngineEventReceived) -> None:
        screen = self._screen
        event = message.event
        screen.log_pane.push(event)
        self.run_status.update(event)
        if isinstance(event, BatchCommitted):
            screen.session.run_changed.update(event.paragraph_ids)
            screen.session.adopt_committed()  # the run commits through the session's store: nothing to re-read
            screen.refresh_view()
        elif isinstance(event, ToolResult) and event.error_code == "STALE_PARAGRAPH":
            screen.run_worker(screen.load_conflicts(), group="conflicts", exclusive=True)
        elif isinstance(event, ErrorEvent) and event.code == "RUN_BUSY":
            self._busy = event.message
        elif isinstance(event, RunFinished):
            if self._busy is not None and event.status == "busy":
                self._offer_forced_run(self._busy)
            self._thaw_rows()
            self._request_reload()
            screen.run_worker(screen.load_conflicts(), group="conflicts", exclusive=True)
            if self._asked is not None:
                self._show_answer(self._asked)
            screen.refresh_view()
        elif message.event.kind in ("chunk_started", "model_request"):
            screen.update_status()

    def _offer_forced_run(self, message: str) -> None:
        """Another run (another terminal, a headless run) holds the chapter: say so, and offer to run anyway."""
        from tui.screens.choice import ChoiceScreen

        asked, self._busy = self._asked_run, None
        if asked is None:
            return
        said = message.split("; wait for it", 1)[0]  # the CLI's advice ("pass --force") is not for this screen

        def chosen(index: int | None) -> None:
            if index == 0:
                self._start_run(**asked, force=True)

        self._screen.app.push_screen(
            ChoiceScreen(
                f"{said[0].upper()}{said[1:]}.",
                ["Run anyway (both runs are billed; every commit merges onto the file)", "Do not run"],
            ),
            chosen,
        )

    def _show_answer(self, paragraph_id: str) -> None:
        """After a one-paragraph run: the cursor on that paragraph, its new version and diff in the detail pane."""
        self._asked = None
        screen = self._screen
        chapter = screen.session.chapter
        pos = chapter.positions.get(paragraph_id) if chapter is not None else None
        if pos is not None:
            screen.viewed_version = None
            screen.table.move_to(pos)

    def _request_reload(self) -> None:
        """Re-read the chapter once a run has ended; reloads are coalesced, one at a time, in a thread."""
        self._reload_wanted = True
        if not self._reloading:
            self._reloading = True
            self._screen.run_worker(self._reload_loop(), group="reload")

    async def _reload_loop(self) -> None:
        screen = self._screen
        try:
            while self._reload_wanted:
                self._reload_wanted = False
                try:
                    await asyncio.to_thread(screen.session.load)
                except ChapterLoadError as exc:
                    screen.session.mark_invalid(exc)
                    screen.log_pane.add_notice(f"could not re-read the chapter: {exc.line}", error=True)
                screen.refresh_view()
        finally:
            self._reloading = False

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "run":
            return
        screen = self._screen
        screen.refresh_bindings()
        if event.state in (WorkerState.CANCELLED, WorkerState.ERROR):
            self._thaw_rows()
            screen.log_pane.run_ended()  # no run_finished may come: the waiting line goes anyway
        if event.state == WorkerState.CANCELLED:
            self.run_status.finish("cancelled")
            screen.log_pane.add_notice("run cancelled; committed batches are kept")
            self._request_reload()
        elif event.state == WorkerState.ERROR:
            self.run_status.finish("failed")
            screen.log_pane.add_notice(f"the run failed: {event.worker.error}", error=True)
        screen.update_status()

    def action_cancel_run(self) -> None:
        screen = self._screen
        if not self.run_in_progress:
            screen.notify("No run in progress.", severity="warning")
            return
        events = self._run_events
        if events is None or events.cancelled:  # not started yet, or x pressed twice: stop the worker now
            screen.workers.cancel_group(screen, "run")
            return
        # The run stops within a second and still reports how it ended (run_finished, cancelled) in the log.
        events.cancel()
        self.run_status.cancelling = True
        screen.update_status()
