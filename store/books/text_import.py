"""Text imports of section 13: a novel split into a workspace, and line-aligned translation pairs."""

from __future__ import annotations

import re
from pathlib import Path

from store.books.book_file import FORMAT
from store.books.epub_safety import BookError
from store.books.new_workspace import write_workspace
from store.books.text_split import split_lines_at
from store.chapter_order import chapter_ids
from store.input_limits import ParagraphLimits
from store.model import Chapter, Paragraph, TranslationVersion, is_empty_text, new_id, source_hash_of, utc_now
from store.plaintext import chapter_from_text, split_lines
from store.serialize import chapter_bytes


def import_novel(
    text: str,
    out: Path,
    *,
    pattern: re.Pattern[str] | None = None,
    source_language: str | None = None,
    target_language: str | None = None,
    limits: ParagraphLimits | None = None,
    where: str = "the text",
) -> int:
    """Write one chapter per heading into the new folder ``out``; return the number of chapters.

    A book or a chapter over ``limits`` is refused before any chapter is made; ``where`` (the file) names it."""
    limits = limits or ParagraphLimits()
    lines = split_lines(text)
    limits.check_book(len(lines), where)
    files = []
    order = []
    parts = list(split_lines_at(lines, pattern))
    for n, (cid, chapter_lines) in enumerate(zip(chapter_ids(len(parts)), parts, strict=True), start=1):
        limits.check_chapter(len(chapter_lines), f"{where}: chapter {n}", split=True)
        chapter = chapter_from_text(
            "\n".join(chapter_lines) + "\n",
            chapter_id=cid,
            source_language=source_language,
            target_language=target_language,
        )
        title = next((p.text.strip() for p in chapter.paragraphs if not p.is_empty), None)
        files.append((f"{cid}.json", chapter_bytes(chapter.replace(title=title))))
        order.append({"file": f"{cid}.json"})
    write_workspace(out, files, {"format": FORMAT, "source": None, "chapters": order})
    return len(files)


def with_translation(chapter: Chapter, translated: str, where: str) -> Chapter:
    """``chapter`` (one paragraph per source line) with line n of ``translated`` as paragraph n's selected
    version (origin ``import``). Line counts must match; the error names the first misaligned line."""
    lines = split_lines(translated)
    _check_aligned(chapter.paragraphs, lines, where)
    now = utc_now()
    return chapter.replace(
        paragraphs=tuple(_imported(p, line, now) for p, line in zip(chapter.paragraphs, lines, strict=True))
    )


def _check_aligned(paras: tuple[Paragraph, ...], lines: list[str], where: str) -> None:
    """Refuse translation lines that do not pair with the source lines: blank on one side only, or a count
    that differs; the error names the first misaligned line."""
    for n, (para, line) in enumerate(zip(paras, lines, strict=False), start=1):
        if para.is_empty != is_empty_text(line):
            side = "the source" if para.is_empty else "the translation"
            raise BookError(
                f"{where}: line {n} is blank in {side} but holds text in the other file; "
                f"the files are not line-aligned from there"
            )
    if len(lines) != len(paras):
        raise BookError(
            f"{where}: {len(paras)} source lines but {len(lines)} translation lines (first "
            f"unmatched line: {min(len(lines), len(paras)) + 1})"
        )


def _imported(para: Paragraph, line: str, now: str) -> Paragraph:
    """``para`` with ``line`` as its one, selected version (origin ``import``); an empty paragraph as it is."""
    if para.is_empty:
        return para
    vid = new_id({para.id})
    version = TranslationVersion(
        id=vid, text=line, origin="import", created_at=now, extra={"source_hash": source_hash_of(para.text)}
    )
    return Paragraph(id=para.id, text=para.text, translations=(version,), selected_translation_id=vid)
