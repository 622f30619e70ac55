"""What defines one run: the chapter, the task, the model settings and the limits, built once from flags over the
configuration (``RunRequest.configured``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.chunk_context import DEFAULT_CONTEXT, ContextSettings
from engine.chunks import TaskType
from engine.config import ModelSettings, RunDefaults
from engine.settings import (
    DEFAULT_CHUNK_CHARS,
    DEFAULT_MAX_BATCH,
    DEFAULT_MAX_TURNS,
    DEFAULT_MEMORY_MAX,
    DEFAULT_MEMORY_THRESHOLD,
    ONE_PARAGRAPH_CONTEXT,
)
from store.merge import DEFAULT_KEEP_VERSIONS


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
    only_paragraph: str | None = None  # run one chunk of just this paragraph, in the work set or not
    instruction: str | None = None  # the editor's words added to every chunk message ("more formal")
    trace_path: Path | None = None
    keep_versions: int = DEFAULT_KEEP_VERSIONS
    source_language: str | None = None
    target_language: str | None = None
    demo_delay: float = 0.0  # seconds between the demo model's streamed words (TUI demo)
    force: bool = False  # --force: run beside another run of the chapter; write a read-only chapter
    # Select new texts of unprotected paragraphs (True) or store every submission as a suggestion (False); None:
    # the task's default (translate and polish apply, a proofread suggests unless ``[run] proofread_apply``).
    apply: bool | None = None
    context: ContextSettings = DEFAULT_CONTEXT  # the context lines around each chunk
    previous_chapter: Path | None = None  # a workspace run: the chapter before this one (context for its start)
    stale: bool = False  # --stale: the work set is exactly the paragraphs whose source changed since translated
    memory_threshold: float = DEFAULT_MEMORY_THRESHOLD  # translation memory: how similar, how many lines a chunk
    memory_max: int = DEFAULT_MEMORY_MAX

    @classmethod
    def configured(
        cls,
        chapter_path: Path,
        task: TaskType,
        settings: ModelSettings,
        run: RunDefaults,
        *,
        chunk_chars: int | None = None,
        max_batch: int | None = None,
        max_turns: int | None = None,
        apply: bool | None = None,
        context_before: int | None = None,
        context_after: int | None = None,
        **options: Any,
    ) -> RunRequest:
        """The run as configured: each flag given (not None) over the config file's ``[run]`` value.

        The one builder of run requests (the CLI and the workstation both use it); the values were validated
        where they were read (``engine.settings``).
        """
        return cls(
            chapter_path=chapter_path,
            task=task,
            settings=settings,
            chunk_chars=run.chunk_chars if chunk_chars is None else chunk_chars,
            max_batch=run.max_batch if max_batch is None else max_batch,
            max_turns=run.max_turns if max_turns is None else max_turns,
            keep_versions=run.keep_versions,
            source_language=run.source_language,
            target_language=run.target_language,
            apply=run.proofread_apply if apply is None and task == "proofread" else apply,
            context=_context(
                run, context_before, context_after, one_paragraph=options.get("only_paragraph") is not None
            ),
            memory_threshold=run.memory_threshold,
            memory_max=run.memory_max,
            **options,
        )


def _context(run: RunDefaults, before: int | None, after: int | None, *, one_paragraph: bool) -> ContextSettings:
    """Each flag given over the config's value; a one-paragraph run (the editor's question about one paragraph)
    reads more around it by default."""
    default_before = ONE_PARAGRAPH_CONTEXT if one_paragraph else run.context_before
    default_after = ONE_PARAGRAPH_CONTEXT if one_paragraph else run.context_after
    return ContextSettings(
        default_before if before is None else before,
        default_after if after is None else after,
        run.context_chars,
    )
