"""Prompt texts: one system prompt per task and the chunk user message.

The texts live in ``engine/prompts/*.md`` as ``string.Template`` files (``$name`` placeholders, ``$$`` for
a literal dollar). A user overrides any of them by putting a file of the same name in
``<platform config dir>/proofdesk/prompts/``. A :class:`PromptSet` is read once per run (and shared by the runs of
one process while the files stay as they are), so the system prompt is byte-identical for every chunk of that run:
it depends only on the task, the language pair and the batch limit — nothing chunk-specific.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from string import Template

import platformdirs

from engine.chunks import Chunk, TaskType
from engine.counted import counted
from engine.settings import DEFAULT_MAX_BATCH
from engine.tasks import TASK_RULES

PACKAGED_DIR = Path(__file__).parent / "prompts"
TEMPLATE_NAMES: tuple[str, ...] = tuple(
    dict.fromkeys([*(r.system_template for r in TASK_RULES.values()), *(r.chunk_template for r in TASK_RULES.values())])
)

LANGUAGE_NAMES: dict[str, str] = {
    "ar": "Arabic",
    "de": "German",
    "en": "English",
    "es": "Spanish",
    "fr": "French",
    "it": "Italian",
    "ja": "Japanese",
    "ko": "Korean",
    "nl": "Dutch",
    "pl": "Polish",
    "pt": "Portuguese",
    "ru": "Russian",
    "sv": "Swedish",
    "th": "Thai",
    "tr": "Turkish",
    "uk": "Ukrainian",
    "vi": "Vietnamese",
    "zh": "Chinese",
    "zh-hans": "Simplified Chinese",
    "zh-hant": "Traditional Chinese",
    "zh-cn": "Simplified Chinese",
    "zh-tw": "Traditional Chinese",
}


class PromptError(ValueError):
    """A prompt file that cannot be used (one sentence naming the file)."""


def user_prompts_dir() -> Path:
    """Where a user's prompt overrides live: ``<platform config dir>/proofdesk/prompts``."""
    return platformdirs.user_config_path("proofdesk") / "prompts"


def language_label(code: str | None, fallback: str) -> str:
    """``ja`` -> ``Japanese (ja)``; an unknown code is shown as given; None -> ``fallback``."""
    if not code or not code.strip():
        return fallback
    name = LANGUAGE_NAMES.get(code.strip().lower())
    return f"{name} ({code})" if name else code


def _read(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise PromptError(f"{path}: cannot read prompt file: {exc}") from None
    # One final newline is the file's, not the prompt's.
    return text[:-1] if text.endswith("\n") else text


def _chosen(override_dir: Path, name: str) -> Path:
    custom = override_dir / name
    return custom if custom.is_file() else PACKAGED_DIR / name


def _signature(path: Path) -> tuple[int, int]:
    """What tells a changed file apart: its size and modification time (0, 0 when it cannot be read)."""
    try:
        stat = path.stat()
    except OSError:
        return 0, 0
    return stat.st_size, stat.st_mtime_ns


@functools.lru_cache(maxsize=4)
def _read_set(chosen: tuple[tuple[str, Path], ...], signatures: tuple[tuple[int, int], ...]) -> PromptSet:
    """The set of ``chosen`` files; ``signatures`` only makes a changed file a new key."""
    del signatures
    return PromptSet({name: _read(path) for name, path in chosen}, dict(chosen))


@dataclass(frozen=True)
class PromptSet:
    """The prompt templates of one run; ``sources`` says which file each one came from."""

    templates: dict[str, str]
    sources: dict[str, Path]
    _systems: dict[tuple[object, ...], str] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def load(cls, override_dir: Path | None = None) -> PromptSet:
        """Every template, preferring ``override_dir`` (default: :func:`user_prompts_dir`). Read once per process
        while the files stay as they are: the chapters of a ``--jobs`` run share one set (and its system prompts)."""
        override_dir = user_prompts_dir() if override_dir is None else override_dir
        chosen = tuple((name, _chosen(override_dir, name)) for name in TEMPLATE_NAMES)
        return _read_set(chosen, tuple(_signature(path) for _, path in chosen))

    def system_prompt(
        self,
        task: TaskType,
        *,
        source_language: str | None,
        target_language: str | None,
        max_batch: int = DEFAULT_MAX_BATCH,
    ) -> str:
        """The task's system prompt for a language pair (identical for every chunk of a run: one string)."""
        key = (task, source_language, target_language, max_batch)
        if (prompt := self._systems.get(key)) is None:
            prompt = self._systems[key] = Template(self.templates[TASK_RULES[task].system_template]).safe_substitute(
                source_language=language_label(source_language, "the source language"),
                target_language=language_label(target_language, "the target language"),
                max_batch=str(max_batch),
            )
        return prompt

    def chunk_message(
        self, chunk: Chunk, instruction: str | None = None, *, before: str = "", sections: Sequence[str] = ()
    ) -> str:
        """The user message of a chunk: part i of N, how many paragraphs, the index note, the chunk text.

        ``before`` (the context before the chunk) goes between the header and the entries; ``sections`` (the
        context after, the memory, the glossary) follow the entries in that order, each after a blank line; last,
        ``instruction`` (the editor's words about this chunk, such as "more formal").
        """
        message = self._chunk_text(chunk, before)
        for section in sections:
            if section:
                message = f"{message.rstrip()}\n\n{section.rstrip()}\n"
        if instruction and instruction.strip():
            message = f"{message.rstrip()}\n\nThe editor's instruction for this work: {instruction.strip()}\n"
        return message

    def _chunk_text(self, chunk: Chunk, before: str = "") -> str:
        count = len(chunk.paragraph_ids)
        return Template(self.templates[TASK_RULES[chunk.task].chunk_template]).safe_substitute(
            part=chunk.label,
            total_parts=str(chunk.total),
            paragraphs=counted(count, "paragraph"),
            paragraph_count=str(count),
            first_index=str(chunk.first_index),
            last_index=str(chunk.last_index),
            task_verb=chunk.task,
            chunk_text=f"{before}\n\n{chunk.text}" if before else chunk.text,
        )
