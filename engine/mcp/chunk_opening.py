"""``get_chunk``: one chunk of a chapter built as a run builds it, its message and its scope.

The chunk comes from the task's service (``engine/services.py``), built from the file as it is now with the
``[run]`` defaults: the message is the one a run's first request of that chunk sends (``TaskService.starting``:
context lines from the chapter now, memory and glossary lines), and the scope is the chunk's own (its boundaries,
its submissions with the sources it was built from, the task's origin and apply mode), with the client as model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.chunk_context import ContextSettings
from engine.config import RunDefaults
from engine.glossary.run_glossary import RunGlossary
from engine.mcp.args import GetChunkArgs
from engine.mcp.chapters import WorkspaceChapters, readable
from engine.mcp.refusal import Refusal
from engine.memory.run_memory import RunMemory
from engine.memory.source import MemorySource
from engine.prompts import PromptSet
from engine.scope import ChunkScope
from engine.services import TaskService, TaskSetupError
from engine.tools.results import ErrorCode, failure, ok
from store.commit import ChapterStore
from store.model import Chapter


@dataclass(frozen=True)
class OpenChunk:
    """The chunk a session opened: the chapter's store, the chunk's scope, its number and the chunk count."""

    store: ChapterStore
    scope: ChunkScope
    index: int
    count: int


@dataclass(frozen=True)
class ChunkOpener:
    """What building a chunk needs besides the call's arguments: the workspace's chapters, the ``[run]``
    defaults, and the session's glossary, memory and prompts."""

    chapters: WorkspaceChapters
    run: RunDefaults
    glossary: RunGlossary
    memory: MemorySource
    prompts: PromptSet

    def open(self, args: GetChunkArgs, model: str) -> tuple[OpenChunk, dict[str, Any]]:
        """The chunk ``args`` names, opened, and ``get_chunk``'s result; a :class:`Refusal` when there is none."""
        store = self.chapters.find(args.chapter)
        service = self._service(store, readable(store), args, model)
        if not 1 <= args.index <= len(service.chunks):
            raise Refusal(_no_chunk(args, len(service.chunks)))
        config = service.starting(service.chunks[args.index - 1])
        chunk = config.chunk
        opened = OpenChunk(store, config.scope, args.index, len(service.chunks))
        return opened, ok(
            chapter=service.chapter.id,
            file=store.path.name,
            task=args.task,
            message=config.user_message,
            index=args.index,
            count=len(service.chunks),
            paragraph_ids=list(chunk.paragraph_ids),
        )

    def _service(self, store: ChapterStore, chapter: Chapter, args: GetChunkArgs, model: str) -> TaskService:
        run = self.run
        try:
            return TaskService(
                chapter,
                args.task,
                source=store,
                source_language=run.source_language,
                target_language=run.target_language,
                chunk_chars=run.chunk_chars if args.chunk_chars is None else args.chunk_chars,
                include_all=args.include_all,
                max_batch=run.max_batch,
                model=model,
                prompts=self.prompts,
                glossary=self.glossary,
                apply=run.proofread_apply if args.task == "proofread" else None,
                context=ContextSettings(run.context_before, run.context_after, run.context_chars),
                previous=self.chapters.before(store) if run.context_before > 0 else None,
                memory=RunMemory(self.memory, threshold=run.memory_threshold, limit=run.memory_max, store=store),
            )
        except TaskSetupError as exc:
            raise Refusal(
                failure(ErrorCode.TASK_NOT_POSSIBLE, f"{exc}.", "Choose another task, or ask the editor.")
            ) from None


def _no_chunk(args: GetChunkArgs, count: int) -> dict[str, Any]:
    have = f"has {count} chunk{'s' if count != 1 else ''}" if count else "has no chunks (nothing left to do)"
    return failure(
        ErrorCode.CHUNK_NOT_FOUND,
        f"There is no chunk {args.index}: the {args.task} work set of '{args.chapter}' {have} now.",
        "Ask for a chunk from 1 to the count; a translate work set shrinks as paragraphs get translated.",
        count=count,
    )
