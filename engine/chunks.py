"""Chunks: the units of work sent to the model.

A chunk is a run of consecutive paragraphs of the task's work set, in chapter order, packed greedily
by formatted characters. Each entry shows the paragraph's *original* 1-based index (empty paragraphs
counted, so numbers skip where empties were left out) and its ``paragraph_id`` — the only key a
result may be submitted with.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from engine.counted import counted
from engine.settings import CHUNK_CHARS, DEFAULT_CHUNK_CHARS, SettingError
from engine.tasks import TASK_RULES, TASKS, TaskRules, TaskType
from store.model import Chapter, Paragraph

SEPARATOR = "\n\n"


class ChunkSizeError(ValueError):
    """A chunk budget outside the allowed range."""


@dataclass(frozen=True, slots=True)
class BaseState:
    """What a paragraph looked like when its chunk was built: the base a result is merged onto."""

    source_text: str
    selected_translation_id: str | None

    @classmethod
    def of(cls, para: Paragraph) -> BaseState:
        """The base state of ``para`` as it is now."""
        return cls(para.text, para.selected_translation_id)


@dataclass(frozen=True)
class Chunk:
    """One chunk: its 1-based number, the paragraph IDs in chapter order and the text the model gets."""

    index: int
    total: int
    task: TaskType
    paragraph_ids: tuple[str, ...]
    paragraph_indexes: tuple[int, ...]  # 1-based original chapter positions, aligned with paragraph_ids
    entries: tuple[str, ...] = field(repr=False)
    # The (frozen) chapter version the chunk was built from: the base of every result merged later.
    chapter: Chapter = field(repr=False, compare=False)
    part: str | None = None  # "3.1"/"3.2": a half of chunk 3 (a chunk that did not fit the model's context)

    @property
    def label(self) -> str:
        """The chunk's number as shown: ``3``, or ``3.2`` for the second half of chunk 3."""
        return self.part or str(self.index)

    def halves(self) -> tuple[Chunk, Chunk]:
        """The chunk cut into two halves of consecutive paragraphs (it must hold at least two)."""
        if len(self.paragraph_ids) < 2:
            raise ValueError("a chunk of one paragraph cannot be split")
        middle = len(self.paragraph_ids) // 2
        made = []
        for number, (start, stop) in enumerate(((0, middle), (middle, len(self.paragraph_ids))), start=1):
            made.append(
                Chunk(
                    index=self.index,
                    total=self.total,
                    task=self.task,
                    paragraph_ids=self.paragraph_ids[start:stop],
                    paragraph_indexes=self.paragraph_indexes[start:stop],
                    entries=self.entries[start:stop],
                    chapter=self.chapter,
                    part=f"{self.label}.{number}",
                )
            )
        return made[0], made[1]

    def only(self, paragraph_ids: Collection[str]) -> Chunk:
        """The chunk with only those of its paragraphs that are in ``paragraph_ids``, in its order (same number and
        part: its halves are labelled as the chunk's)."""
        rows = zip(self.paragraph_ids, self.paragraph_indexes, self.entries, strict=True)
        ids, indexes, entries = zip(*(row for row in rows if row[0] in paragraph_ids), strict=True)
        return dataclasses.replace(self, paragraph_ids=ids, paragraph_indexes=indexes, entries=entries)

    @cached_property
    def bases(self) -> tuple[BaseState, ...]:
        """What each paragraph looked like when the chunk was built, aligned with ``paragraph_ids``."""
        paragraphs = self.chapter.paragraphs
        return tuple(BaseState.of(paragraphs[index - 1]) for index in self.paragraph_indexes)

    @property
    def text(self) -> str:
        """The entries joined by a blank line: exactly what follows the message header."""
        return SEPARATOR.join(self.entries)

    @property
    def first_index(self) -> int:
        """The original index of the chunk's first paragraph."""
        return self.paragraph_indexes[0]

    @property
    def last_index(self) -> int:
        """The original index of the chunk's last paragraph."""
        return self.paragraph_indexes[-1]

    def heading(self) -> str:
        """One line naming the chunk, e.g. ``── chunk 2/5 · 7 paragraphs · [14]–[27] ──``."""
        count = len(self.paragraph_ids)
        span = f"[{self.first_index}]" if count == 1 else f"[{self.first_index}]–[{self.last_index}]"
        return f"── chunk {self.label}/{self.total} · {counted(count, 'paragraph')} · {span} ──"

    def base_states(self) -> dict[str, BaseState]:
        """Paragraph ID -> the state the chunk was built from."""
        return dict(zip(self.paragraph_ids, self.bases, strict=True))

    def to_json(self) -> dict[str, Any]:
        """``{"index": k, "paragraph_ids": [...], "text": "..."}`` as ``proofdesk chunks --json`` prints it."""
        return {"index": self.index, "paragraph_ids": list(self.paragraph_ids), "text": self.text}


def check_chunk_chars(chunk_chars: int) -> int:
    """Return ``chunk_chars`` if the chunk budget allows it, else raise :class:`ChunkSizeError`."""
    try:
        return CHUNK_CHARS.check(chunk_chars)
    except SettingError as exc:
        raise ChunkSizeError(f"chunk_chars {exc}") from None


def _rules(task: TaskType) -> TaskRules:
    """The task's rules; ``ValueError`` for a task that does not exist."""
    rules = TASK_RULES.get(task)
    if rules is None:
        raise ValueError(f"unknown task {task!r}; expected one of {', '.join(TASKS)}")
    return rules


def work_set(chapter: Chapter, task: TaskType, *, include_all: bool = False, stale: bool = False) -> list[int]:
    """The 0-based positions of the task's work set, in chapter order; with ``stale``, exactly the paragraphs whose
    source changed since their selected translation was made (for translate, a retranslation)."""
    rules = _rules(task)
    # Deferred import: engine.tools imports this module. The non-empty positions are cached per chapter
    # version and shared with the tools, so a run's first tool call does not recompute them.
    from engine.tools.lookup import chapter_index

    paragraphs = chapter.paragraphs
    nonempty = chapter_index(chapter).nonempty
    if stale:
        return [pos for pos in nonempty if paragraphs[pos].stale]
    if rules.revises:
        return [pos for pos in nonempty if paragraphs[pos].selected_translation_id is not None]
    if include_all:
        return list(nonempty)
    return [pos for pos in nonempty if paragraphs[pos].selected_translation_id is None]


def empty_work_reason(chapter: Chapter, task: TaskType, *, stale: bool = False) -> str:
    """Why the task's work set (``work_set``, same flags) is empty, in a few words for the run's first line. With
    ``include_all`` an empty work set has one reason: the chapter has no text."""
    from engine.tools.lookup import chapter_index  # deferred: engine.tools imports this module

    if not chapter_index(chapter).nonempty:
        return "the chapter has no text"
    if stale:
        return "no paragraph's source changed since its translation"
    if _rules(task).revises:
        return "no paragraph has a translation yet"
    return "every paragraph has a translation already"


PROTECTED_MARK = "(reviewed by the editor: suggest only a real error)"


def format_entry(para: Paragraph, index: int, task: TaskType) -> str:
    """The chunk entry of one paragraph; ``index`` is its 1-based original position. A protected paragraph (a
    person's text: what the model submits for it becomes a suggestion) is marked on a line of its own."""
    if TASK_RULES[task].revises:
        entry = f"[{index}] [ID: {para.id}] Source: {para.text}\nTranslation: {para.selected_text}"
    else:
        entry = f"[{index}] [ID: {para.id}] {para.text}"
    return f"{entry}\n{PROTECTED_MARK}" if para.protected else entry


def paragraph_chunk(chapter: Chapter, task: TaskType, paragraph_id: str) -> Chunk:
    """A chunk of one paragraph, whatever the work set says (the editor asked about this very paragraph).

    Raises ``ValueError`` (one sentence) when the paragraph is missing, empty, or has no translation to revise.
    """
    rules = _rules(task)
    pos = chapter.positions.get(paragraph_id)
    if pos is None:
        raise ValueError(f"paragraph {paragraph_id} is not in chapter '{chapter.id}'")
    para = chapter.paragraphs[pos]
    if para.is_empty:
        raise ValueError(f"paragraph {paragraph_id} is empty; there is nothing to {task}")
    if rules.revises and para.selected_text is None:
        raise ValueError(f"paragraph {paragraph_id} has no translation to {task}; translate it first")
    return Chunk(
        index=1,
        total=1,
        task=task,
        paragraph_ids=(para.id,),
        paragraph_indexes=(pos + 1,),
        entries=(format_entry(para, pos + 1, task),),
        chapter=chapter,
    )


def _pack(lengths: Sequence[int], budget: int) -> Iterator[tuple[int, int]]:
    """Greedy packing: yield (start, stop) slices whose joined length stays within ``budget``."""
    start = 0
    size = -1  # no entry yet: the first entry adds no separator
    sep = len(SEPARATOR)
    for i, length in enumerate(lengths):
        grown = size + sep + length if size >= 0 else length
        if size >= 0 and grown > budget:
            yield start, i
            start, size = i, length
        else:
            size = grown
    if size >= 0:
        yield start, len(lengths)


def build_chunks(
    chapter: Chapter,
    task: TaskType,
    *,
    chunk_chars: int = DEFAULT_CHUNK_CHARS,
    include_all: bool = False,
    stale: bool = False,
) -> list[Chunk]:
    """Split the task's work set into chunks of at most ``chunk_chars`` formatted characters.

    The budget counts the chunk text (entries joined by ``"\\n\\n"``), not the message header. A
    paragraph longer than the budget becomes a chunk of its own; paragraphs are never split.
    """
    check_chunk_chars(chunk_chars)
    paragraphs = chapter.paragraphs
    positions = work_set(chapter, task, include_all=include_all, stale=stale)
    entries = [format_entry(paragraphs[pos], pos + 1, task) for pos in positions]
    slices = list(_pack([len(e) for e in entries], chunk_chars))
    total = len(slices)
    chunks: list[Chunk] = []
    for number, (start, stop) in enumerate(slices, start=1):
        picked = positions[start:stop]
        chunks.append(
            Chunk(
                index=number,
                total=total,
                task=task,
                paragraph_ids=tuple(paragraphs[pos].id for pos in picked),
                paragraph_indexes=tuple(pos + 1 for pos in picked),
                entries=tuple(entries[start:stop]),
                chapter=chapter,
            )
        )
    return chunks


def run_chunks(
    chapter: Chapter,
    task: TaskType,
    *,
    chunk_chars: int = DEFAULT_CHUNK_CHARS,
    include_all: bool = False,
    only_paragraph: str | None = None,
    stale: bool = False,
) -> list[Chunk]:
    """The chunks of a run: the work set's, or one chunk of ``only_paragraph`` whatever the work set says (the
    editor asked about this very paragraph)."""
    if only_paragraph is not None:
        return [paragraph_chunk(chapter, task, only_paragraph)]
    return build_chunks(chapter, task, chunk_chars=chunk_chars, include_all=include_all, stale=stale)
