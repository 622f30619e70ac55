"""Runs: one task over one chapter, as a stream of engine events (design section 6).

``run_chapter`` builds the chunks once through the task's service (``TranslationService.translate``,
``PolishService.polish``, ``ProofreadingService.proofread``), runs the tool-call loop on each chunk,
writes every event to the run's JSONL trace and yields it to the caller (the TUI's worker or the CLI).
Cancelling the consumer cancels the run within a second: committed batches stay, nothing is half-written.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from engine.chunks import DEFAULT_CHUNK_CHARS, TaskType
from engine.client.client import ModelClient, new_http_client
from engine.config import ModelSettings
from engine.context import DEFAULT_MAX_BATCH
from engine.demo_model import DEMO_BASE_URL, DemoModel
from engine.events import ChunkFinished, ChunkStarted, EngineEvent, ErrorEvent, RunFinished, RunStarted
from engine.loop import ChatModel, ChunkOutcome, execute_tool_call_loop
from engine.loop_config import DEFAULT_MAX_TURNS, ToolCallLoopConfig
from engine.services import TaskService, TaskSetupError, service_for
from engine.trace import TraceWriter, default_trace_path
from store.commit import ChapterStore
from store.errors import ChapterLoadError, StoreError
from store.workspace import Workspace

_END = object()
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunRequest:
    """Everything that defines one run."""

    chapter_path: Path
    task: TaskType
    settings: ModelSettings
    chunk_chars: int = DEFAULT_CHUNK_CHARS
    max_batch: int = DEFAULT_MAX_BATCH
    max_turns: int = DEFAULT_MAX_TURNS
    include_all: bool = False
    only_chunk: int | None = None  # 1-based: run just this chunk (the TUI's "chunk under the cursor")
    trace_path: Path | None = None
    keep_versions: int = 20
    source_language: str | None = None
    target_language: str | None = None
    demo_delay: float = 0.0  # seconds between the demo model's streamed words (TUI demo)


def _open_model(request: RunRequest, target_language: str | None, http: httpx.AsyncClient | None) -> ChatModel:
    s = request.settings
    if s.is_demo:
        return DemoModel(task=request.task, target_language=target_language or "en", delay=request.demo_delay)
    return ModelClient(s.base_url, s.model, api_key=s.api_key.reveal() if s.api_key else None,
                       temperature=s.temperature, extra_headers=s.headers, extra_body=s.body, http_client=http)


class _Run:
    """State of one run while it executes."""

    def __init__(self, request: RunRequest, workspace: Workspace | None, http: httpx.AsyncClient | None) -> None:
        self.request = request
        self.http = http
        self.emit_out: Callable[[EngineEvent], None] = lambda event: None
        self.workspace = workspace or Workspace.for_chapter(request.chapter_path)
        self.run_id = uuid.uuid4().hex[:12]
        self.trace: TraceWriter | None = None
        self.outcomes: list[tuple[ToolCallLoopConfig, ChunkOutcome]] = []
        self.stopped: str | None = None  # why the remaining chunks are skipped
        self.model_unusable = False  # a non-retryable model error (auth, not found, bad request): configuration
        self.responses_seen = 0
        self.started = time.perf_counter()

    def emit(self, event: EngineEvent) -> None:
        if self.trace is not None:
            self.trace.write(event)
            if self.trace.failed:
                failure, self.trace = self.trace.failed, None
                self.emit_out(ErrorEvent(run_id=self.run_id, message=failure, code="TRACE_FAILED"))
        if event.kind == "model_response":
            self.responses_seen += 1
        self.emit_out(event)

    def refuse(self, message: str) -> None:
        """End the run before any work: bad input or configuration, in one sentence."""
        self.emit(ErrorEvent(run_id=self.run_id, message=message, code="BAD_INPUT", fatal=True))
        self.finish("bad_input", message)

    def finish(self, status: str, error: str | None = None, **extra: Any) -> None:
        self.emit(RunFinished(run_id=self.run_id, status=status, summary=self.summary(status, error, **extra)))

    def summary(self, status: str, error: str | None, **extra: Any) -> dict[str, Any]:
        usage: Counter[str] = Counter()
        errors: Counter[str] = Counter()
        chunks = []
        total = done = 0
        for config, outcome in self.outcomes:
            usage.update(outcome.usage)
            errors.update(outcome.tool_errors)
            total += len(config.paragraph_ids)
            done += len(config.paragraph_ids) - len(outcome.missing) if outcome.status != "failed" else 0
            chunks.append({"index": config.chunk_index, "status": outcome.status, "missing": list(outcome.missing),
                           "turns": outcome.turns, "tool_calls": outcome.tool_calls,
                           "tool_errors": dict(outcome.tool_errors), "usage": dict(outcome.usage),
                           "error": outcome.error})
        return {
            "chapter": str(self.request.chapter_path), "task": self.request.task,
            "model": self.request.settings.model, "status": status, "error": error,
            "chunks": chunks, "chunks_complete": sum(c["status"] == "complete" for c in chunks),
            "paragraphs_total": total, "paragraphs_done": done, "tool_errors": dict(errors), "usage": dict(usage),
            "wall_ms": round((time.perf_counter() - self.started) * 1000, 1),
            "trace": str(self.trace.path) if self.trace else None, "model_unusable": self.model_unusable, **extra,
        }

    async def execute(self) -> None:
        req = self.request
        try:
            store = ChapterStore(req.chapter_path, self.workspace, keep_versions=req.keep_versions)
            chapter = store.load()
            service: TaskService = service_for(req.task)(
                chapter, source_language=req.source_language, target_language=req.target_language,
                chunk_chars=req.chunk_chars, include_all=req.include_all, max_batch=req.max_batch,
                max_turns=req.max_turns, model=req.settings.model)
        except (ChapterLoadError, StoreError, TaskSetupError, ValueError) as exc:
            self.refuse(exc.line if isinstance(exc, ChapterLoadError) else str(exc))
            return
        configs = service.loop_configs()
        if req.only_chunk is not None and not 1 <= req.only_chunk <= max(len(configs), 1):
            self.refuse(f"chunk {req.only_chunk} does not exist (the {req.task} work set has {len(configs)} chunks)")
            return
        secrets = [req.settings.api_key.reveal()] if req.settings.api_key else []
        trace_path = req.trace_path or default_trace_path(self.workspace.traces_dir, chapter.id, req.task)
        try:
            # Both are needed before the first commit: fail now, in one sentence, not batch after batch.
            self.workspace.locks_dir.mkdir(parents=True, exist_ok=True)
            self.trace = TraceWriter(trace_path, secrets=secrets)
        except OSError as exc:
            where = exc.filename or self.workspace.state_dir
            self.refuse(f"cannot create {where}: {exc.strerror or exc} (proofdesk keeps locks and traces there)")
            return
        model = _open_model(req, service.target_language, self.http)
        selected = [c for c in configs if req.only_chunk in (None, c.chunk_index)]
        self.emit(RunStarted(run_id=self.run_id, chapter_path=str(req.chapter_path), chapter_id=chapter.id,
                             task=req.task, model=req.settings.model,
                             base_url=DEMO_BASE_URL if req.settings.is_demo else req.settings.base_url,
                             chunk_count=len(configs),
                             paragraph_count=sum(len(c.paragraph_ids) for c in selected)))

        async def one_chunk(config: ToolCallLoopConfig) -> ChunkOutcome | None:
            if req.only_chunk is not None and config.chunk_index != req.only_chunk:
                return None
            if self.stopped:
                outcome = ChunkOutcome(status="failed", missing=config.paragraph_ids, error=self.stopped)
            else:
                self.emit(ChunkStarted(run_id=self.run_id, chunk=config.chunk_index,
                                       paragraph_ids=config.paragraph_ids,
                                       first_paragraph_id=config.paragraph_ids[0],
                                       last_paragraph_id=config.paragraph_ids[-1], chunk_count=config.chunk_count))
                started = time.perf_counter()
                outcome = await execute_tool_call_loop(config, model=model, registry=service.registry, source=store,
                                                       emit=self.emit, run_id=self.run_id)
                self.model_unusable = self.model_unusable or outcome.fatal
                if outcome.status == "failed" and (outcome.fatal or not self.responses_seen):
                    # The model cannot be used (auth, not found, unreachable): do not hammer it chunk after chunk.
                    self.stopped = f"not attempted: the model failed ({outcome.error})"
                self.emit(ChunkFinished(run_id=self.run_id, chunk=config.chunk_index, status=outcome.status,
                                        missing=outcome.missing, turns=outcome.turns, tool_calls=outcome.tool_calls,
                                        tool_errors=dict(outcome.tool_errors), usage=dict(outcome.usage),
                                        wall_ms=round((time.perf_counter() - started) * 1000, 1)))
            self.outcomes.append((config, outcome))
            return outcome

        try:
            # The seed's call chain, by name: service.translate()/polish()/proofread() -> loop config -> loop
            # -> ToolRegistry.handle_tool_call(paragraph_ids=...) -> the handler's ToolContext.
            await getattr(service, req.task)(one_chunk)
        except asyncio.CancelledError:
            self.finish("cancelled")
            raise
        finally:
            with contextlib.suppress(Exception):
                await asyncio.shield(model.aclose())
        statuses = {o.status for _, o in self.outcomes}
        status = "complete" if statuses <= {"complete"} else ("failed" if self.stopped else "incomplete")
        self.finish(status, self.stopped)

    def close(self) -> None:
        if self.trace is not None:
            self.trace.close()


async def _events_of(produce: Callable[[Callable[[Any], None]], Awaitable[None]],
                     name: str) -> AsyncIterator[EngineEvent]:
    """Run ``produce(emit)`` as a task and yield what it emits as it happens.

    Closing or cancelling the iterator cancels the task (a run stops within a second; what was
    committed stays committed).
    """
    queue: asyncio.Queue[Any] = asyncio.Queue()

    async def body() -> None:
        try:
            await produce(queue.put_nowait)
        finally:
            queue.put_nowait(_END)

    task = asyncio.create_task(body(), name=name)
    try:
        while (item := await queue.get()) is not _END:
            yield item
        await task
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def run_chapter(request: RunRequest, *, workspace: Workspace | None = None,
                http_client: httpx.AsyncClient | None = None) -> AsyncIterator[EngineEvent]:
    """Run ``request`` and yield its events as they happen; the last one is ``RunFinished``.

    ``http_client`` is a connection pool to share with other runs (``run_chapters`` passes one).
    """
    run = _Run(request, workspace, http_client)

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

    return _events_of(produce, f"proofdesk-run-{run.run_id}")


def run_chapters(requests: Sequence[RunRequest], *, jobs: int = 1) -> AsyncIterator[EngineEvent]:
    """Run several chapters, at most ``jobs`` at once, yielding all their events as they happen."""
    limit = asyncio.Semaphore(max(1, jobs))
    remote = [r.settings for r in requests if not r.settings.is_demo]

    async def produce(emit: Callable[[Any], None]) -> None:
        # One pool for every chapter: connections are reused and the TLS set-up is paid once, not per chapter.
        http = new_http_client(tls=any(s.base_url.startswith("https:") for s in remote)) if remote else None

        async def one(request: RunRequest) -> None:
            async with limit:
                async for event in run_chapter(request, http_client=http):
                    emit(event)

        try:
            async with asyncio.TaskGroup() as group:
                for request in requests:
                    group.create_task(one(request))
        finally:
            if http is not None:
                await http.aclose()

    return _events_of(produce, "proofdesk-runs")
