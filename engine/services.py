"""The task service: translate, polish or proofread a chapter chunk by chunk.

One class for the three tasks; what sets them apart is data (``engine.tasks.TASK_RULES``: origin, prompt files,
work set). The service builds the chunks once, at its start, and a chunk's :class:`ToolCallLoopConfig` as the chunk
starts (``starting(chunk)``: its message from the files as they are then), holding the chunk's
:class:`~engine.scope.ChunkScope`, which carries the chunk's paragraph IDs to the tool handlers: the run (or
``TaskService.run(execute)``) -> the loop -> ``ToolRegistry.call(name, arguments, config.scope)`` -> the handler's
``ToolContext``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from typing import Any, TypeVar

from engine.chapter_source import ChapterSource, StaticChapter
from engine.chunk_context import DEFAULT_CONTEXT, ChunkContext, ContextSettings, chunk_context
from engine.chunks import Chunk, empty_work_reason, run_chunks
from engine.glossary.run_glossary import RunGlossary
from engine.glossary.tools import with_glossary
from engine.loop_config import ToolCallLoopConfig
from engine.memory.run_memory import RunMemory
from engine.prompts import PromptSet
from engine.scope import ChunkScope
from engine.settings import DEFAULT_CHUNK_CHARS, DEFAULT_MAX_BATCH, DEFAULT_MAX_TURNS
from engine.tasks import TASK_RULES, TaskType
from engine.tools import default_registry
from engine.tools.registry import ToolRegistry
from store.errors import StoreError
from store.model import Chapter

T = TypeVar("T")
LoopExecutor = Callable[[ToolCallLoopConfig], Awaitable[T]]


class TaskSetupError(ValueError):
    """A run that cannot start as configured (one sentence), e.g. translating with no target language."""


class TaskService:
    """One task over one chapter: its chunks, and the loop config (with the scope) of each."""

    def __init__(
        self,
        chapter: Chapter,
        task: TaskType,
        *,
        source: ChapterSource | None = None,
        source_language: str | None = None,
        target_language: str | None = None,
        chunk_chars: int = DEFAULT_CHUNK_CHARS,
        include_all: bool = False,
        max_batch: int = DEFAULT_MAX_BATCH,
        max_turns: int = DEFAULT_MAX_TURNS,
        model: str | None = None,
        prompts: PromptSet | None = None,
        registry: ToolRegistry | None = None,
        only_paragraph: str | None = None,
        instruction: str | None = None,
        glossary: RunGlossary | None = None,
        apply: bool | None = None,
        context: ContextSettings = DEFAULT_CONTEXT,
        previous: Chapter | None = None,
        stale: bool = False,
        memory: RunMemory | None = None,
    ) -> None:
        self.chapter = chapter
        self.task = task
        self.rules = TASK_RULES[task]
        self.source = source or StaticChapter(chapter)  # without a store the chunks' commits are refused
        self.source_language = source_language or chapter.source_language
        self.target_language = self._target_language(target_language or chapter.target_language)
        self.max_batch = max_batch
        self.max_turns = max_turns
        self.model = model
        self.prompts = prompts or PromptSet.load()
        self.registry = registry or default_registry()
        self.instruction = instruction
        self.glossary = glossary
        self.memory = memory
        self.apply = self.rules.applies if apply is None else apply  # None: the task's default
        self.context = context
        self.previous = previous  # the chapter before this one in a workspace run (context for its start)
        if glossary is not None:  # the same two tools in every chunk's list, glossary file or not
            with_glossary(self.registry, glossary)
        # Built once, at the start of the run: later commits do not reshape this run's chunks.
        self.chunks = run_chunks(
            chapter, task, chunk_chars=chunk_chars, include_all=include_all, only_paragraph=only_paragraph, stale=stale
        )
        # Why the work set is empty, when it is: the run's first line says so.
        self.nothing_to_do = "" if self.chunks else empty_work_reason(chapter, task, stale=stale)
        self._configs: list[ToolCallLoopConfig] | None = None

    def _target_language(self, language: str | None) -> str | None:
        """The target language; a translation cannot start without one."""
        if not language and not self.rules.revises:
            raise TaskSetupError(
                f"chapter '{self.chapter.id}' names no target language; set \"target_language\" in the chapter "
                "file (proofdesk import --target-language) or target_language under [run] in the config file"
            )
        return language

    @property
    def system_prompt(self) -> str:
        """The run's system prompt (identical for every chunk)."""
        return self.prompts.system_prompt(
            self.task,
            source_language=self.source_language,
            target_language=self.target_language,
            max_batch=self.max_batch,
        )

    def loop_configs(self) -> list[ToolCallLoopConfig]:
        """One loop config per chunk, each with the chunk's scope."""
        if self._configs is None:
            system, tools = self.system_prompt, self._tools()
            self._configs = [self._config(chunk, system, tools) for chunk in self.chunks]
        return self._configs

    def _tools(self) -> tuple[dict[str, Any], ...]:
        return tuple(self.registry.definitions(max_batch=self.max_batch, task=self.task))

    def halves(self, config: ToolCallLoopConfig, paragraph_ids: Collection[str] | None = None) -> tuple[Chunk, Chunk]:
        """The two halves of ``config``'s chunk, or of only its ``paragraph_ids``; each runs as a chunk of its own."""
        chunk = config.chunk if paragraph_ids is None else config.chunk.only(paragraph_ids)
        return chunk.halves()

    def starting(self, chunk: Chunk) -> ToolCallLoopConfig:
        """The loop config of ``chunk`` as it starts (blocking: it reads files): the context lines from the chapter
        on disk now (chunk k sees what chunk k-1 committed), the memory and the glossary lines as they are now
        (entries proposed by earlier chunks or edited by a person since the run started are in). A run builds each
        chunk's message only here, when the chunk starts."""
        if self.glossary is not None:
            self.glossary.reload()
        if self.memory is not None:
            self.memory.reload()
        chapter = self._chapter_now() if self._has_context else None  # only the context lines read the chapter
        return self._config(chunk, self.system_prompt, self._tools(), chapter)

    def not_started(self, chunk: Chunk) -> ToolCallLoopConfig:
        """The loop config of a chunk the run will not start (what a stopped run reports of it): no message."""
        return ToolCallLoopConfig(self._scope(chunk), self.system_prompt, "", self._tools(), self.max_turns)

    @property
    def _has_context(self) -> bool:
        return self.context.before > 0 or self.context.after > 0

    def _chapter_now(self) -> Chapter:
        """The chapter as it is on disk now (the one the run started from when it cannot be read: the chunk's
        commit will then say what is wrong with the file)."""
        try:
            return self.source.load()
        except (StoreError, OSError):
            return self.chapter

    def context_of(self, chunk: Chunk, chapter: Chapter | None = None) -> ChunkContext:
        """The context lines of ``chunk`` in ``chapter`` (default: the chapter the run started from)."""
        return chunk_context(chapter or self.chapter, chunk, self.context, self.previous)

    def _message(self, chunk: Chunk, chapter: Chapter | None = None) -> str:
        context = self.context_of(chunk, chapter)
        memory = self.memory.section(chunk) if self.memory is not None else ""
        glossary = ""
        if self.glossary is not None:
            text = "\n".join(p.text for pid in chunk.paragraph_ids if (p := chunk.chapter.paragraph(pid)) is not None)
            glossary = self.glossary.section(text)
        return self.prompts.chunk_message(
            chunk,
            self.instruction,
            before=context.before_section(),
            sections=(context.after_section(), memory, glossary),
        )

    def _config(
        self, chunk: Chunk, system: str, tools: tuple[dict[str, Any], ...], chapter: Chapter | None = None
    ) -> ToolCallLoopConfig:
        return ToolCallLoopConfig(self._scope(chunk), system, self._message(chunk, chapter), tools, self.max_turns)

    async def run(self, execute_tool_call_loop: LoopExecutor[T]) -> list[T]:
        """Run the loop on every chunk in order, each config made as the chunk starts (:meth:`starting`); returns
        the loop's result per chunk."""
        return [await execute_tool_call_loop(self.starting(chunk)) for chunk in self.chunks]

    def _scope(self, chunk: Chunk) -> ChunkScope:
        return ChunkScope.for_chunk(
            chunk, self.source, origin=self.rules.origin, model=self.model, max_batch=self.max_batch, apply=self.apply
        )
