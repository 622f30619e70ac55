"""Plain text <-> chapter: ``proofdesk import`` and ``proofdesk export``.

Import: one paragraph per line, verbatim. Lines end at LF, CRLF or CR only — never at U+2028 and the
other separators ``str.splitlines`` knows, which are legitimate characters inside a paragraph.

Export: line n is paragraph n for *every* reader, including those that break lines where ``str.splitlines``
does (Python, JavaScript, many editors). So inside a paragraph each line-breaking character — CR, LF, CRLF,
VT, FF, the file/group/record separators U+001C–U+001E, NEL U+0085, U+2028 and U+2029 — becomes one space,
in translations, source text (``--missing source``/``mark``) alike.
"""

from __future__ import annotations

import re
from typing import Literal

from store.books.code_text import unescape
from store.model import Chapter, Paragraph, new_id

MissingPolicy = Literal["blank", "source", "mark"]
_LINE_END = re.compile(r"\r\n|\r|\n")
# Every line boundary str.splitlines knows (CRLF counted once): none may survive inside an exported paragraph.
_ANY_LINE_BREAK = re.compile("\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_FINAL_LINE_BREAK = re.compile("(?:\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029])\\Z")


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
        paragraphs.append(Paragraph(id=pid, text=line, translations=(), selected_translation_id=None, reviewed=False))
    return Chapter(
        id=chapter_id,
        title=title,
        title_translation=None,
        source_language=source_language,
        target_language=target_language,
        paragraphs=tuple(paragraphs),
    )


def missing_mark(para: Paragraph) -> str:
    """The placeholder ``--missing mark`` writes for an untranslated paragraph."""
    return f"[untranslated {para.id}] {para.text}"


def one_line(text: str) -> str:
    """``text`` with every line-breaking character (CRLF as one) replaced by a space; a final one is dropped."""
    return _ANY_LINE_BREAK.sub(" ", _FINAL_LINE_BREAK.sub("", text, count=1))


def export_lines(chapter: Chapter, missing: MissingPolicy = "blank") -> list[str]:
    """One line per paragraph: the selected translation; empty paragraphs as empty lines.

    Text that itself holds line breaks (of any kind, see the module docstring) has each replaced by a space,
    so line *n* of the export is always paragraph *n* of the chapter. A book's inline codes are left out
    (:func:`words`).
    """
    return [_line(para, missing) for para in chapter.paragraphs]


def _line(para: Paragraph, missing: MissingPolicy) -> str:
    chosen = para.selected_text
    if para.is_empty:
        return ""
    if chosen is not None:
        return one_line(words(para, chosen))
    if missing == "source":
        return one_line(words(para, para.text))
    if missing == "mark":
        return one_line(words(para, missing_mark(para)))
    return ""


def words(para: Paragraph, text: str) -> str:
    """``text`` (the paragraph's source or a translation of it) as plain words: in a paragraph imported with inline
    codes (``source_ref.codes``, an EPUB's markup) the codes are left out and doubled brackets read as one."""
    ref = para.extra.get("source_ref")
    return unescape(text) if isinstance(ref, dict) and "codes" in ref else text


def export_text(chapter: Chapter, missing: MissingPolicy = "blank") -> str:
    """The export as one string with a trailing newline (empty string for a chapter without paragraphs)."""
    lines = export_lines(chapter, missing)
    return "\n".join(lines) + "\n" if lines else ""
