"""``proofdesk import BOOK.epub -o DIR``: a workspace of chapters in spine order, the original kept."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from store.atomic import fsync_folder
from store.books.epub_read import SpineDoc, read_book
from store.books.epub_safety import BookError
from store.model import Chapter, Paragraph, new_id
from store.serialize import chapter_bytes

BOOK_FILE = "book.json"  # .proofdesk/book.json: spine order and source path of each chapter file


def import_epub(book: Path, out: Path, *, target_language: str | None = None) -> list[Path]:
    """Read the whole book first (any error: nothing written), then create ``out`` in one rename."""
    pkg, docs = read_book(book)
    if not docs:
        raise BookError(f"{book}: no spine document holds text")
    _refuse_taken(out)
    chapters: list[tuple[str, bytes]] = []
    order = []
    for n, doc in enumerate(docs, start=1):
        chapter = _chapter(f"ch{n:03d}", doc, pkg.language, target_language)
        chapters.append((f"{chapter.id}.json", chapter_bytes(chapter)))
        order.append({"file": f"{chapter.id}.json", "href": doc.href})
    meta = {"format": "proofdesk.book/1", "source": "source.epub", "chapters": order}
    write_workspace(out, chapters, meta, source=book)
    return [out / name for name, _ in chapters]


def _chapter(cid: str, doc: SpineDoc, source_language: str | None, target_language: str | None) -> Chapter:
    """The chapter of one spine document: a paragraph per block, each remembering where it came from."""
    taken: set[str] = set()
    paragraphs = []
    for block in doc.blocks:
        pid = new_id(taken)
        taken.add(pid)
        source_ref = {"href": doc.href, "path": block.path}  # an unknown key, kept: epub_write finds the block by it
        paragraphs.append(Paragraph.model_validate({"id": pid, "text": block.text, "source_ref": source_ref}))
    return Chapter(
        id=cid,
        title=doc.title,
        title_translation=None,
        source_language=source_language,
        target_language=target_language,
        paragraphs=tuple(paragraphs),
    )


def _refuse_taken(out: Path) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise BookError(f"{out}: already exists and is not an empty folder")


def _fill_staging(
    staging: Path, chapters: list[tuple[str, bytes]], meta: Mapping[str, object], source: Path | None
) -> None:
    """Write the workspace's files into ``staging``, every one and both folders durable."""
    state = staging / ".proofdesk"
    state.mkdir()
    if source is not None:
        shutil.copyfile(source, state / "source.epub")
    (state / BOOK_FILE).write_text(json.dumps(meta, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    for name, data in chapters:
        with open(staging / name, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    fsync_folder(state)
    fsync_folder(staging)


def write_workspace(
    out: Path, chapters: list[tuple[str, bytes]], meta: Mapping[str, object], source: Path | None = None
) -> None:
    """Create the folder ``out`` with the chapter files and ``.proofdesk/book.json`` (and the source EPUB):
    built in a hidden sibling folder, then renamed into place, so an error leaves nothing behind."""
    _refuse_taken(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.importing-", dir=out.parent))
    try:
        _fill_staging(staging, chapters, meta, source)
        if out.exists():
            out.rmdir()
        os.rename(staging, out)
        fsync_folder(out.parent)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
