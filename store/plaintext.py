"""Plain text <-> chapter: ``proofdesk import`` and ``proofdesk export``.

One paragraph per line, verbatim. Lines end at LF, CRLF or CR only — never at U+2028 and the
other separators ``str.splitlines`` knows, which are legitimate characters inside a paragraph.
"""

from __future__ import annotations

import re
from typing import Literal

from store.model import Chapter, Paragraph, new_id

MissingPolicy = Literal["blank", "source", "mark"]
_LINE_END = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """Split on LF/CRLF/CR; a final line end closes the last line and adds no empty line."""
    text = text.removeprefix("\ufeff")
    if not text:
        return []
    lines = _LINE_END.split(text)
    if lines and lines[-1] == "" and _LINE_END.search(text[-2:]):
        lines.pop()
    return lines


def chapter_from_text(
    text: str,
    *,
    chapter_id: str,
    title: str | None = None,
    source_language: str | None = None,
    target_language: str | None = None,
) -> Chapter:
    """A new chapter with one paragraph per line (blank lines kept as empty paragraphs), fresh 8-hex IDs."""
    taken: set[str] = set()
    paragraphs = []
    for line in split_lines(text):
        pid = new_id(taken)
        taken.add(pid)
        paragraphs.append(Paragraph(id=pid, text=line, translations=(), selected_translation_id=None,
                                    reviewed=False))
    return Chapter(id=chapter_id, title=title, title_translation=None, source_language=source_language,
                   target_language=target_language, paragraphs=tuple(paragraphs))


def missing_mark(para: Paragraph) -> str:
    """The placeholder ``--missing mark`` writes for an untranslated paragraph."""
    return f"[untranslated {para.id}] {para.text}"


def export_lines(chapter: Chapter, missing: MissingPolicy = "blank") -> list[str]:
    """One line per paragraph: the selected translation; empty paragraphs as empty lines.

    A translation that itself spans several lines is joined with spaces so line *n* of the export
    is always paragraph *n* of the chapter.
    """
    out: list[str] = []
    for para in chapter.paragraphs:
        chosen = para.selected_text
        if para.is_empty:
            out.append("")
        elif chosen is not None:
            out.append(" ".join(split_lines(chosen)) if ("\n" in chosen or "\r" in chosen) else chosen)
        elif missing == "source":
            out.append(para.text)
        elif missing == "mark":
            out.append(missing_mark(para))
        else:
            out.append("")
    return out


def export_text(chapter: Chapter, missing: MissingPolicy = "blank") -> str:
    """The export as one string with a trailing newline (empty string for a chapter without paragraphs)."""
    lines = export_lines(chapter, missing)
    return "\n".join(lines) + "\n" if lines else ""
