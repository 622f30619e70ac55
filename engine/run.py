"""Runs: one task over one chapter, as a stream of engine events.

``run_chapter`` builds the chunks once through the task's service (``TaskService``, one scope per chunk), runs the
tool-call loop on each chunk, writes every event to the run's JSONL trace and yields it to the caller (the TUI's
worker or the CLI).
Cancelling the consumer cancels the run within a second: committed batches stay, nothing is half-written.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

import httpx

from engine.chat_model import ChatModel
from engine.chunk_outcome import FILE_FAILURES, ChunkOutcome
from engine.chunk_split import SplitPlan, split_plan
from engine.chunks import Chunk
from engine.client.failure import ModelFailure
from engine.config import DEMO_BASE_URL
from engine.cost import cost_of
from engine.events import (
    BatchCommitted,
    ChunkFinished,
    ChunkStarted,
    EngineEvent,
    ErrorEvent,
    RunFinished,
    RunStarted,
)
from engine.glossary.run_glossary import RunGlossary
from engine.glossary.source import GlossarySource
from engine.loop import execute_tool_call_loop
from engine.loop_config import ToolCallLoopConfig
from engine.memory.run_memory import RunMemory
from engine.memory.source import MemorySource
from engine.model_open import open_model
from engine.run_events import RunEvents
from engine.run_request import RunRequest
from engine.run_summary import run_summary
from engine.run_writes import RunWrites, reverted_message
from engine.services import TaskService, TaskSetupError
from engine.summaries import RunStatus, RunSummary
from engine.tasks import TASK_RULES
from engine.trace import TraceWriter, default_trace_path
from engine.urls import public_url
from store.commit import ChapterStore
from store.errors import ChapterLoadError, StoreError
from store.glossary import GlossaryLoadError
from store.glossary_commit import GlossaryStore
from store.loader import load_chapter
from store.lock import RunBusy, RunLock
from store.model import Chapter
from store.workspace import Workspace, safe_state_dir

log = logging.getLogger(__name__)
_T = TypeVar("_T")


def _previous_chapter(request: RunRequest) -> Chapter | None:
    """The chapter before this one in a workspace run, for the context of its start (None when it cannot be read:
    context is a help, never a reason to stop a run)."""
    if request.previous_chapter is None or request.context.before <= 0:
        return None
    try:
        return load_chapter(request.previous_chapter)
    except (ChapterLoadError, StoreError, OSError):
        return None


class _Refused(Exception):
    """The run cannot start: one sentence, and the code of its error event."""

    def __init__(self, message: str, code: str = "BAD_INPUT") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class _Run:
    """State of one run while it executes."""

    def __init__(
        self,
        request: RunRequest,
        workspace: Workspace | None,
        http: httpx.AsyncClient | None,
        store: ChapterStore | None = None,
        glossary: GlossarySource | None = None,
        shares_loop: bool = False,
        memory: MemorySource | None = None,
    ) -> None:
        self.request = request
        self.memory = memory  # the workspace memory shared with the caller's views, or read by this run
        self.shares_loop = shares_loop  # the event loop also draws a UI: files are read in a thread
        self.http = http
        self.store = store  # the chapter's store: given by the caller, or opened by execute()
        self.glossary = glossary  # the workspace glossary shared with the caller's views, or read by this run
        self.writes = RunWrites()  # the version this run wrote for each paragraph
        self.emit_out: Callable[[EngineEvent], None] = lambda event: None
        self.workspace = workspace or Workspace.for_chapter(request.chapter_path)
        self.run_id = uuid.uuid4().hex[:12]
        self.trace: TraceWriter | None = None
        self.run_lock: RunLock | None = None
        self.outcomes: list[tuple[ToolCallLoopConfig, ChunkOutcome]] = []
        self.current: tuple[ToolCallLoopConfig, ChunkOutcome, float] | None = None  # the chunk in progress
        self.stopped: str | None = None  # why the remaining chunks are skipped
        self.model_unusable = False  # the model configuration is wrong (key, model name, request shape): exit 2
        self.responses_seen = 0
        self.started = time.perf_counter()

    def emit(self, event: EngineEvent) -> None:
        """Record ``event`` in the trace and pass it on; note what the run's end needs (responses, writes)."""
        if self.trace is not None:
            self._write_trace(self.trace, event)
        if event.kind == "model_response":
            self.responses_seen += 1
        elif isinstance(event, BatchCommitted) and self.store is not None:
            self.writes.remember(self.store.chapter, event)
        self.emit_out(event)

    def _write_trace(self, trace: TraceWriter, event: EngineEvent) -> None:
        trace.write(event)
        if trace.failed:  # the run goes on without a trace, and says so once
            self.trace = None
            self.emit_out(ErrorEvent(run_id=self.run_id, message=trace.failed, code="TRACE_FAILED"))

    def refuse(self, message: str, code: str = "BAD_INPUT") -> None:
        """End the run before any work, in one sentence: bad input or configuration (status ``bad_input``), or
        ``RUN_BUSY``, another run holds the chapter (status ``busy``: nothing is wrong with the request, which
        succeeds later or with ``force`` now)."""
        self.emit(ErrorEvent(run_id=self.run_id, message=message, code=code, fatal=True))
        self.finish("busy" if code == "RUN_BUSY" else "bad_input", message)

    def finish(self, status: RunStatus, error: str | None = None, **extra: Any) -> None:
        self.emit(RunFinished(run_id=self.run_id, status=status, summary=self.summary(status, error, **extra)))

    def summary(self, status: RunStatus, error: str | None, **extra: Any) -> RunSummary:
        return run_summary(
            self.request,
            self.outcomes,
            status=status,
            error=error,
            started=self.started,
            trace=self.trace.path if self.trace else None,
            model_unusable=self.model_unusable,
            **extra,
        )

    def _chunk_finished(self, config: ToolCallLoopConfig, outcome: ChunkOutcome, started: float) -> None:
        self.outcomes.append((config, outcome))
        self.emit(
            ChunkFinished(
                run_id=self.run_id,
                chunk=config.chunk_index,
                status=outcome.status,
                missing=outcome.missing,
                turns=outcome.turns,
                tool_calls=outcome.tool_calls,
                tool_errors=dict(outcome.tool_errors),
                usage=dict(outcome.usage),
                cost=cost_of(outcome.usage, self.request.settings.prices),
                wall_ms=round((time.perf_counter() - started) * 1000, 1),
                end_code=outcome.end_code,
                part=config.part,
                error=outcome.error,
            )
        )

    def _note_failure(self, failure: ModelFailure) -> None:
        """Decide whether a chunk's model failure ends the whole run."""
        if failure.is_configuration:
            self.model_unusable = True
        if failure.type == "context_overflow":
            return  # the next chunk starts from a fresh, smaller history
        if failure.stops_run or not self.responses_seen:
            # The model cannot be used (quota, key, model name, unreachable): do not hammer it chunk after chunk.
            self.stopped = f"not attempted: the model failed ({failure.message})"

    async def execute(self) -> None:
        """Run the request to its ``run_finished``: set up (or refuse), run every selected chunk, report the end."""
        service = await self._set_up()
        if service is None:
            return
        model = open_model(self.request, service.target_language, self.http)
        self._emit_started(service)
        try:
            for chunk in service.chunks:
                await self._one_chunk(service, model, chunk)
        except asyncio.CancelledError:
            self._cancelled()
            raise
        finally:
            with contextlib.suppress(Exception):
                await asyncio.shield(model.aclose())
        await self._finish_run()

    async def _set_up(self) -> TaskService | None:
        """Everything checked before any model is paid: the chapter, the task, the chunk asked for, the locks and
        the trace. None when the run was refused (its ``run_finished`` is out)."""
        try:
            service = await self._reading(self._service)
            self._check_only_chunk(service)
            self._lock()
            self._open_trace(service.chapter.id)
        except _Refused as refused:
            self.refuse(refused.message, refused.code)
            return None
        return service

    async def _reading(self, read: Callable[..., _T], *args: Any) -> _T:
        """``read(*args)``, which reads files: in a thread when the event loop is shared with a UI (the
        workstation), else at once (two thread hops per chunk cost a headless run ~2 %, measured)."""
        if self.shares_loop:
            return await asyncio.to_thread(read, *args)
        return read(*args)

    def _service(self) -> TaskService:
        req = self.request
        try:
            store = self.store = self.store or ChapterStore(
                req.chapter_path, self.workspace, keep_versions=req.keep_versions, allow_read_only=req.force
            )
            chapter = store.load()
            glossary = RunGlossary(self.glossary or GlossaryStore(self.workspace), model=req.settings.model)
            return TaskService(
                chapter,
                req.task,
                source=store,
                source_language=req.source_language,
                target_language=req.target_language,
                chunk_chars=req.chunk_chars,
                include_all=req.include_all,
                max_batch=req.max_batch,
                max_turns=req.max_turns,
                model=req.settings.model,
                only_paragraph=req.only_paragraph,
                instruction=req.instruction,
                glossary=glossary,
                apply=req.apply,
                context=req.context,
                previous=_previous_chapter(req),
                stale=req.stale,
                memory=self._memory(store),
            )
        except (ChapterLoadError, GlossaryLoadError) as exc:
            raise _Refused(exc.line) from None
        except (StoreError, TaskSetupError, ValueError) as exc:
            raise _Refused(str(exc)) from None

    def _memory(self, store: ChapterStore) -> RunMemory:
        """The workspace memory, read now (this runs in a thread when a UI shares the loop)."""
        req = self.request
        source = self.memory or MemorySource(
            self.workspace, source_language=req.source_language, target_language=req.target_language
        )
        memory = RunMemory(source, threshold=req.memory_threshold, limit=req.memory_max, store=store)
        memory.reload()
        return memory

    def _check_only_chunk(self, service: TaskService) -> None:
        req = self.request
        count = len(service.chunks)
        if req.only_chunk is not None and not 1 <= req.only_chunk <= max(count, 1):
            raise _Refused(f"chunk {req.only_chunk} does not exist (the {req.task} work set has {count} chunks)")

    def _lock(self) -> None:
        """Before any model is paid: a read-only chapter, or another run on it (unless --force)."""
        assert self.store is not None
        try:
            self.store.check_writable()
            self.run_lock = RunLock(self.workspace, self.store.path)  # creates .proofdesk/locks, checked
            self.run_lock.acquire(self.request.task, force=self.request.force)
        except StoreError as exc:
            raise _Refused(str(exc), "RUN_BUSY" if isinstance(exc, RunBusy) else "BAD_INPUT") from None

    def _open_trace(self, chapter_id: str) -> None:
        """Needed before the first event: fail now, in one sentence, not batch after batch."""
        req = self.request
        trace_path = req.trace_path or default_trace_path(self.workspace.traces_dir, chapter_id, req.task)
        try:
            # The trace's folders under .proofdesk/ must be real folders (a planted link would be written through).
            safe_state_dir(trace_path.parent)
            self.trace = TraceWriter(trace_path, secrets=req.settings.secrets())
        except StoreError as exc:
            raise _Refused(str(exc)) from None
        except OSError as exc:
            where = exc.filename or self.workspace.state_dir
            raise _Refused(
                f"cannot create {where}: {exc.strerror or exc} (proofdesk keeps locks and traces there)"
            ) from None

    def _emit_started(self, service: TaskService) -> None:
        req = self.request
        chunks = service.chunks
        selected = [c for c in chunks if req.only_chunk in (None, c.index)]
        self.emit(
            RunStarted(
                run_id=self.run_id,
                chapter_path=str(req.chapter_path),
                chapter_id=service.chapter.id,
                task=req.task,
                model=req.settings.model,
                base_url=DEMO_BASE_URL if req.settings.is_demo else public_url(req.settings.base_url),
                chunk_count=len(chunks),
                paragraph_count=sum(len(c.paragraph_ids) for c in selected),
                prices=None if req.settings.prices is None else req.settings.prices.to_json(),
                apply=service.apply,
                nothing_to_do=service.nothing_to_do,
            )
        )

    async def _one_chunk(self, service: TaskService, model: ChatModel, chunk: Chunk) -> None:
        """Run one chunk (or note it as not attempted); a chunk too large for the model's context runs as two
        halves, and so do the paragraphs a chunk left without a submission after two cut-off turns."""
        if self.request.only_chunk not in (None, chunk.index):
            return
        if self.stopped:
            config = service.not_started(chunk)
            outcome = ChunkOutcome(
                status="failed", missing=config.paragraph_ids, error=self.stopped, end_code="NOT_ATTEMPTED"
            )
            self.outcomes.append((config, outcome))
            return
        # Its message from the chapter, memory and glossary as they are now (earlier chunks' commits included).
        config = await self._reading(service.starting, chunk)
        self._emit_chunk_started(config)
        started = time.perf_counter()
        outcome = ChunkOutcome(status="incomplete", missing=config.paragraph_ids)
        self.current = (config, outcome, started)
        await execute_tool_call_loop(
            config, model=model, registry=service.registry, emit=self.emit, run_id=self.run_id, outcome=outcome
        )
        self.current = None
        self._note_outcome(outcome)
        if (plan := split_plan(config, outcome)) is not None:
            await self._split(service, model, config, outcome, started, plan)
            return
        self._chunk_finished(config, outcome, started)

    def _emit_chunk_started(self, config: ToolCallLoopConfig) -> None:
        self.emit(
            ChunkStarted(
                run_id=self.run_id,
                chunk=config.chunk_index,
                paragraph_ids=config.paragraph_ids,
                first_paragraph_id=config.paragraph_ids[0],
                last_paragraph_id=config.paragraph_ids[-1],
                chunk_count=config.chunk_count,
                part=config.part,
            )
        )

    def _note_outcome(self, outcome: ChunkOutcome) -> None:
        """Whether the chunk's ending stops the run: a model that cannot be used, or a file that cannot be saved."""
        if outcome.failure is not None:
            self._note_failure(outcome.failure)
        if outcome.end_code in FILE_FAILURES:  # the file, not the model: no later chunk could be saved
            self.stopped = f"not attempted: {outcome.error}"

    async def _split(
        self,
        service: TaskService,
        model: ChatModel,
        config: ToolCallLoopConfig,
        outcome: ChunkOutcome,
        started: float,
        plan: SplitPlan,
    ) -> None:
        first, second = service.halves(config, plan.paragraph_ids)
        sizes = (len(first.paragraph_ids), len(second.paragraph_ids))
        message = plan.message(config.part or str(config.chunk_index), *sizes)
        self.emit(ErrorEvent(run_id=self.run_id, chunk=config.chunk_index, code=plan.code, message=message))
        outcome.status, outcome.rerun = "split", plan.paragraph_ids
        self._chunk_finished(config, outcome, started)
        await self._one_chunk(service, model, first)
        await self._one_chunk(service, model, second)

    def _cancelled(self) -> None:
        """Report the chunk in progress, with what it did and the tokens it used, and the run as cancelled."""
        if self.current is not None:
            config, outcome, started = self.current
            outcome.status = "cancelled"
            self._chunk_finished(config, outcome, started)
        self.finish("cancelled")

    async def _finish_run(self) -> None:
        """The run's status, checked against what is on disk now, not what was acknowledged: a checkout under the
        run may have undone batches."""
        statuses = {o.status for _, o in self.outcomes} - {"split"}
        status: RunStatus = "complete" if statuses <= {"complete"} else ("failed" if self.stopped else "incomplete")
        origin, model = TASK_RULES[self.request.task].origin, self.request.settings.model
        reverted = await asyncio.to_thread(self.writes.reverted, self.store, self.workspace, origin, model)
        if reverted:
            message = reverted_message(reverted, self.request.chapter_path.name)
            self.emit(ErrorEvent(run_id=self.run_id, message=message, code="REVERTED_ON_DISK"))
            status = "incomplete" if status == "complete" else status
            self.finish(status, self.stopped or message, reverted_on_disk=reverted)
        else:
            self.finish(status, self.stopped)

    def close(self) -> None:
        if self.trace is not None:
            self.trace.close()
        if self.run_lock is not None:
            self.run_lock.release()


def run_chapter(
    request: RunRequest,
    *,
    workspace: Workspace | None = None,
    http_client: httpx.AsyncClient | None = None,
    store: ChapterStore | None = None,
    glossary: GlossarySource | None = None,
    shares_loop: bool = False,
    memory: MemorySource | None = None,
) -> RunEvents:
    """Run ``request`` and yield its events as they happen; the last one is ``RunFinished``.

    ``http_client`` is a connection pool to share with other runs (``run_chapters`` passes one). ``store`` is
    the chapter's store to commit through when the caller holds one (the workstation does: after a commit it
    shows the store's chapter instead of reading back its own write). ``glossary`` is the workspace glossary
    the caller already reads (the workstation's): a change is then parsed once for the run and the views.
    ``shares_loop``: the caller's event loop also draws a UI (or runs other chapters), so the run reads its files
    in a thread. ``memory``
    is the workspace's translation memory the caller already reads, like ``glossary``.
    """
    run = _Run(request, workspace, http_client, store, glossary, shares_loop, memory)

    async def produce(emit: Callable[[Any], None]) -> None:
        run.emit_out = emit
        try:
            await run.execute()
        except Exception as exc:  # a bug: report it as the run's end, keep the traceback for the log file
            log.exception("run %s of %s failed", run.run_id, request.chapter_path)
            message = f"proofdesk failed unexpectedly ({type(exc).__name__}: {exc}); details are in the log file"
            run.emit(ErrorEvent(run_id=run.run_id, message=message, code="INTERNAL_ERROR", fatal=True))
            run.finish("failed", message)
        finally:
            run.close()

    return RunEvents(produce, f"proofdesk-run-{run.run_id}")
