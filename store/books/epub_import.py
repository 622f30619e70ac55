"""``proofdesk import BOOK.epub -o DIR``: a workspace of chapters in spine order, the original kept."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from store.books.book_file import FORMAT
from store.books.epub_read import SpineDoc, read_book
from store.books.epub_safety import BookError
from store.books.new_workspace import write_workspace
from store.chapter_order import chapter_ids
from store.input_limits import ParagraphLimits
from store.language_tag import is_language_tag
from store.model import Chapter, Paragraph, new_id
from store.serialize import chapter_bytes


@dataclass
class EpubImport:
    """What an EPUB import made: the chapter files in book order, the paragraphs by the kind of element they came
    from, and what holds text but was left as it is (kind -> count)."""

    files: list[Path] = field(default_factory=list)
    kinds: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)


def import_epub(
    book: Path,
    out: Path,
    *,
    source_language: str | None = None,
    target_language: str | None = None,
    limits: ParagraphLimits | None = None,
) -> EpubImport:
    """Read the whole book first (any error: nothing written), then create ``out`` in one rename.

    ``source_language`` defaults to the book's own ``dc:language`` when that is a well-formed tag; a document or a
    book over ``limits`` is refused before any chapter is made. Chapter files are numbered with as many digits as
    the book needs (``ch001``…, ``ch0001``… from 1,000 chapters)."""
    read = read_book(book)
    pkg, docs = read.pkg, read.docs
    if not docs:
        raise BookError(f"{book}: no spine document holds text to translate{_left_note(read.skipped)}")
    _check_size(book, docs, limits or ParagraphLimits())
    language = source_language or _book_language(pkg.language)
    chapters: list[tuple[str, bytes]] = []
    order = []
    for cid, doc in zip(chapter_ids(len(docs)), docs, strict=True):
        chapter = _chapter(cid, doc, language, target_language)
        chapters.append((f"{chapter.id}.json", chapter_bytes(chapter)))
        order.append({"file": f"{chapter.id}.json", "href": doc.href})
    write_workspace(out, chapters, {"format": FORMAT, "source": "source.epub", "chapters": order}, source=book)
    made = EpubImport([out / name for name, _ in chapters], skipped=read.skipped)
    made.kinds.update(block.kind for doc in docs for block in doc.blocks)
    return made


def _left_note(skipped: Counter[str]) -> str:
    """`` (left as they are: math ×2, …)`` for a refusal, or nothing."""
    left = ", ".join(f"{kind} ×{count}" for kind, count in skipped.most_common())
    return f" (left as they are: {left})" if left else ""


def _check_size(book: Path, docs: list[SpineDoc], limits: ParagraphLimits) -> None:
    for doc in docs:
        limits.check_document(len(doc.blocks), f"{book}: {doc.href}")
    limits.check_book(sum(len(doc.blocks) for doc in docs), str(book))


def _book_language(declared: str | None) -> str | None:
    """The book's ``dc:language`` as a chapter's source language: ``en_US`` read as ``en-US``; a value that is no
    BCP 47 tag is not copied into the chapters (it stays in the kept original)."""
    if declared is None:
        return None
    tag = declared.replace("_", "-")
    return tag if is_language_tag(tag) else None


def _chapter(cid: str, doc: SpineDoc, source_language: str | None, target_language: str | None) -> Chapter:
    """The chapter of one spine document: a paragraph per block, each remembering where it came from."""
    taken: set[str] = set()
    paragraphs = []
    for block in doc.blocks:
        pid = new_id(taken)
        taken.add(pid)
        # An unknown key, kept: epub_write finds the block by it (and, with "codes", restores its inline markup).
        source_ref: dict[str, object] = {"href": doc.href, "path": block.path}
        if block.codes is not None:
            source_ref["codes"] = block.codes
        paragraphs.append(Paragraph(id=pid, text=block.text, extra={"source_ref": source_ref}))
    return Chapter(
        id=cid,
        title=doc.title,
        title_translation=None,
        source_language=source_language,
        target_language=target_language,
        paragraphs=tuple(paragraphs),
    )
