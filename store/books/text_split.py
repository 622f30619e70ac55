"""Cutting a long novel into chapters at heading lines.

A heading is a WHOLE line (surrounding spaces, U+3000 included, ignored) that starts with a chapter mark —
``第N章/話/回/節/部/巻``, ``序章``, ``終章``, ``プロローグ``, ``エピローグ``, ``番外編``, ``Chapter N``, ``Prologue``,
``Epilogue`` (N in ASCII, full-width or kanji numerals) — optionally followed by a separator and a short
title, at most 60 characters in all. Dialogue is never a heading: a line that opens with a quotation bracket
(「…第一章…」) does not start with a mark, and a sentence that merely begins with one (``第一章を読んだ…``)
has no separator after the mark.
"""

from __future__ import annotations

import re

from store.books.heading_scan import heading_lines
from store.plaintext import split_lines

_NUM = r"[0-9０-９一二三四五六七八九十百千〇零两]+"
HEADING = re.compile(
    rf"^(?:第{_NUM}[章話话回節节部巻卷]|序章|終章|终章|プロローグ|エピローグ|番外編|番外篇"
    rf"|(?:Chapter|CHAPTER)\s*(?:[0-9０-９]+|[IVXLCivxlc]+)|Prologue|PROLOGUE|Epilogue|EPILOGUE)"
    r"(?:[\s\u3000:：.．、\-—―「『(（].*)?$"
)
MAX_HEADING = 60


def is_heading(line: str, pattern: re.Pattern[str] | None = None) -> bool:
    """Whether ``line`` is a chapter heading under the built-in rule (or ``pattern``, matched at the start)."""
    stripped = line.strip()
    if not stripped:
        return False
    if pattern is not None:
        return pattern.match(stripped) is not None
    return len(stripped) <= MAX_HEADING and HEADING.match(stripped) is not None


def split_chapters(text: str, pattern: re.Pattern[str] | None = None) -> list[list[str]]:
    """The lines of each chapter; a heading line starts a chapter (and is its first line). Text before the
    first heading is a chapter of its own if it holds any text; no heading at all gives one chapter.

    A custom ``pattern`` runs under a time limit (:mod:`store.books.heading_scan`); a slow one raises
    :class:`~store.books.heading_scan.PatternTooSlow`."""
    return split_lines_at(split_lines(text), pattern)


def split_lines_at(lines: list[str], pattern: re.Pattern[str] | None = None) -> list[list[str]]:
    """:func:`split_chapters` of text already split into lines."""
    if pattern is None:
        headings = {n for n, line in enumerate(lines) if is_heading(line)}
    else:
        headings = set(heading_lines(lines, pattern))
    chapters: list[list[str]] = [[]]
    for n, line in enumerate(lines):
        if n in headings and any(x.strip() for x in chapters[-1]):
            chapters.append([])
        chapters[-1].append(line)
    return [c for c in chapters if c]
