"""What the translation memory holds: pairs of an earlier source and its translation, and where each came from.

A chapter gives one entry per reviewed paragraph with a selected translation; a TMX file gives one per translation
unit that has both languages. Sources are compared with every whitespace removed (``squeeze``).
"""

from __future__ import annotations

from dataclasses import dataclass

from store.model import Chapter


@dataclass(frozen=True, slots=True)
class MemoryEntry:
    """One earlier translation: its source, its translation, and the paragraph it is (None for a TMX unit)."""

    source: str
    target: str
    chapter_id: str | None = None
    paragraph_id: str | None = None

    def owned_by(self, chapter_id: str, paragraph_id: str) -> bool:
        """Whether this entry is that paragraph's own translation (never shown as its memory)."""
        return self.paragraph_id == paragraph_id and self.chapter_id == chapter_id


def squeeze(text: str) -> str:
    """``text`` with all whitespace removed (Unicode whitespace, the ideographic space among it): the form in
    which two sources are compared."""
    return "".join(text.split())


def chapter_entries(chapter: Chapter) -> tuple[MemoryEntry, ...]:
    """The memory a chapter gives: each reviewed paragraph with a selected, non-empty translation, in order."""
    found = []
    for para in chapter.paragraphs:
        if not para.reviewed or not para.text.strip():
            continue
        target = para.selected_text
        if target and target.strip():
            found.append(MemoryEntry(para.text, target, chapter.id, para.id))
    return tuple(found)
