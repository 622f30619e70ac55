"""Context lines: the paragraphs around a chunk, shown to the model for reading only.

The seeds keep every paragraph tool inside the chunk and count on a "buffer" in the chunk message for context;
this is that buffer. Before the entries, up to ``before`` non-empty paragraphs that precede the chunk's first one
(nearest last, in chapter order); after them, up to ``after`` that follow its last one. Each is
``(context) [index] source``, then ``  → translation`` when the paragraph has a *clean* translation
(``engine.checks.clean``: a bad translation is never fed back). Context lines carry no ``[ID: …]`` and their
paragraphs stay outside the chunk for every tool. The lines of both sections, newlines included, total at most
``chars``: whole paragraphs are dropped, the one farthest from the chunk first (on a tie, the one before it).

A workspace run fills a chapter's first chunk's ``before`` from the end of the previous chapter (its own indexes),
after a line naming that chapter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.checks.clean import clean_translation
from engine.checks.languages import languages
from engine.chunks import Chunk
from store.model import Chapter

if TYPE_CHECKING:
    from engine.tools.lookup import ChapterIndex

BEFORE_HEADING = "Context before (for reading only; not part of this chunk, do not submit):"
AFTER_HEADING = "Context after (for reading only):"


@dataclass(frozen=True, slots=True)
class ContextSettings:
    """How much context a chunk gets (0 turns a side off)."""

    before: int = 3
    after: int = 1
    chars: int = 1200


@dataclass(frozen=True, slots=True)
class ContextLine:
    """One context paragraph: its ID (never shown to the model), index, source, and the translation its ``→``
    line shows (None: no such line)."""

    paragraph_id: str
    index: int
    text: str
    translation: str | None
    distance: int  # 1 = the paragraph next to the chunk
    previous_chapter: bool = False  # from the end of the previous chapter

    def rendered(self) -> str:
        """The line(s) as the model reads them, with the final newline."""
        line = f"(context) [{self.index}] {self.text}\n"
        return line if self.translation is None else f"{line}  → {self.translation}\n"

    def to_json(self) -> dict[str, Any]:
        """``{paragraph_id, index, text, translation}`` as ``proofdesk chunks --json`` prints it."""
        return {
            "paragraph_id": self.paragraph_id,
            "index": self.index,
            "text": self.text,
            "translation": self.translation,
        }


@dataclass(frozen=True, slots=True)
class ChunkContext:
    """The context of one chunk: the lines before (in chapter order) and after, within the character cap."""

    before: tuple[ContextLine, ...] = ()
    after: tuple[ContextLine, ...] = ()
    previous_title: str | None = None  # the previous chapter's title, when some lines before come from it

    def before_section(self) -> str:
        """The section that goes between the message header and the entries ("" when empty)."""
        if not self.before:
            return ""
        head = BEFORE_HEADING + "\n"
        if any(line.previous_chapter for line in self.before):
            head += _previous_line(self.previous_title)
        return head + "".join(line.rendered() for line in self.before).rstrip("\n")

    def after_section(self) -> str:
        """The section right after the entries ("" when empty)."""
        if not self.after:
            return ""
        return AFTER_HEADING + "\n" + "".join(line.rendered() for line in self.after).rstrip("\n")


NO_CONTEXT = ChunkContext()
DEFAULT_CONTEXT = ContextSettings()


def _index(chapter: Chapter) -> ChapterIndex:
    """The chapter's lookup tables (imported here: the workstation starts without the tools' package)."""
    from engine.tools.lookup import chapter_index

    return chapter_index(chapter)


def _previous_line(title: str | None) -> str:
    return f"(from the previous chapter: {title or 'untitled'})\n"


def chunk_context(
    chapter: Chapter, chunk: Chunk, settings: ContextSettings, previous: Chapter | None = None
) -> ChunkContext:
    """The context of ``chunk`` in ``chapter`` as it is now; ``previous``: the chapter before, in a workspace run."""
    if settings.before <= 0 and settings.after <= 0:
        return NO_CONTEXT
    before = _lines(chapter, _positions_before(chapter, chunk, settings.before))
    missing = settings.before - len(before)
    if missing > 0 and previous is not None and previous is not chapter:
        tail = _from_end(previous, missing, len(before))
        before = tail + before
    after = _lines(chapter, _index(chapter).next_positions(chunk.paragraph_indexes[-1] - 1, settings.after))
    return _capped(tuple(before), tuple(after), settings.chars, previous.title if previous is not None else None)


def _positions_before(chapter: Chapter, chunk: Chunk, count: int) -> list[int]:
    """Up to ``count`` non-empty positions before the chunk's first paragraph, nearest first."""
    return _index(chapter).previous_positions(chunk.paragraph_indexes[0] - 1, count) if count > 0 else []


def _lines(chapter: Chapter, positions: Sequence[int], *, first_distance: int = 1) -> list[ContextLine]:
    """Context lines of ``positions`` (nearest first), returned in chapter order."""
    langs = languages(chapter.source_language, chapter.target_language)
    lines = []
    for distance, pos in enumerate(positions, start=first_distance):
        para = chapter.paragraphs[pos]
        lines.append(ContextLine(para.id, pos + 1, para.text, clean_translation(para, langs), distance))
    return sorted(lines, key=lambda line: line.index)


def _from_end(previous: Chapter, count: int, taken: int) -> list[ContextLine]:
    """The last ``count`` non-empty paragraphs of the previous chapter, farther than the ``taken`` lines before."""
    index = _index(previous)
    positions = index.previous_positions(len(previous.paragraphs), count)
    lines = _lines(previous, positions, first_distance=taken + 1)
    return [
        ContextLine(line.paragraph_id, line.index, line.text, line.translation, line.distance, True) for line in lines
    ]


def _size(before: Sequence[ContextLine], after: Sequence[ContextLine], title: str | None) -> int:
    size = sum(len(line.rendered()) for line in (*before, *after))
    if any(line.previous_chapter for line in before):
        size += len(_previous_line(title))
    return size


def _capped(
    before: tuple[ContextLine, ...], after: tuple[ContextLine, ...], chars: int, title: str | None
) -> ChunkContext:
    """Drop whole paragraphs, the farthest from the chunk first (before the chunk on a tie), until within ``chars``."""
    kept_before, kept_after = list(before), list(after)
    while (kept_before or kept_after) and _size(kept_before, kept_after, title) > chars:
        kept_before, kept_after = _without_farthest(kept_before, kept_after)
    return ChunkContext(tuple(kept_before), tuple(kept_after), title)


def _without_farthest(
    before: list[ContextLine], after: list[ContextLine]
) -> tuple[list[ContextLine], list[ContextLine]]:
    """The lines without the paragraph farthest from the chunk (the one before it on a tie)."""
    far_before = max((line.distance for line in before), default=0)
    far_after = max((line.distance for line in after), default=0)
    if far_before >= far_after:
        return [line for line in before if line.distance != far_before], after
    return before, [line for line in after if line.distance != far_after]
