"""Exporting the whole book from the workstation (pure of Textual; blocking: run it in a thread).

The formats are those of ``proofdesk export``: the imported book back as an EPUB (``store.books.epub_write``),
plain or bilingual, the text formats of ``store.books.text_export`` (text, bilingual text, Markdown), the
chapters in book order in one file, or one file per chapter when the path typed ends with ``/``; and the CAT
tools' formats of ``store.formats`` (XLIFF 2.1, XLIFF 1.2 and TMX: one document for the book; PO: one file per
chapter).

The exporters are the store's own; this module picks the chapters, the file names and the place.

Where an export may write: never onto a chapter file, the glossary, anything under ``.proofdesk/`` or an existing
file (the workstation asks for a new name instead of replacing one): :func:`check_place`, then the store's guard of
every export (``store/export_target.py``) for the EPUB it writes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from store.atomic import atomic_write
from store.errors import StoreError
from store.export_target import in_state_dir, same_file
from store.loader import load_chapter
from store.workspace import GLOSSARY_NAME, STATE_DIR

ExportFormat = Literal["epub", "bilingual-epub", "text", "bilingual", "markdown", "xliff", "xliff12", "tmx", "po"]


@dataclass(frozen=True)
class ExportKind:
    """One export the palette offers."""

    label: str  # "EPUB", "bilingual text" ...
    suffix: str  # of the file written (one per chapter for the text formats in a folder)
    epub: bool = False
    document: bool = False  # one document for the whole book, never one file per chapter


EXPORTS: dict[ExportFormat, ExportKind] = {
    "epub": ExportKind("EPUB", ".epub", epub=True),
    "bilingual-epub": ExportKind("bilingual EPUB", ".bilingual.epub", epub=True),
    "text": ExportKind("text", ".txt"),
    "bilingual": ExportKind("bilingual text", ".bilingual.txt"),
    "markdown": ExportKind("Markdown", ".md"),
    "xliff": ExportKind("XLIFF 2.1", ".xlf", document=True),
    "xliff12": ExportKind("XLIFF 1.2", ".xliff12.xlf", document=True),
    "tmx": ExportKind("TMX of the reviewed pairs", ".tmx", document=True),
    "po": ExportKind("PO, one file per chapter", ".po"),
}


class ExportRefused(StoreError):
    """An export the workstation will not write: one sentence, nothing written."""


def default_path(root: Path, fmt: ExportFormat) -> str:
    """Where the prompt proposes to write: beside the workspace folder, named after it (PO: a folder of them)."""
    if fmt == "po":
        return f"{root.parent / (root.name + '-po')}{os.sep}"
    return str(root.parent / f"{root.name}{EXPORTS[fmt].suffix}")


def is_imported_book(root: Path) -> bool:
    """Whether the workspace came from an EPUB (its original is kept, so it can be written back as one)."""
    return (root / STATE_DIR / "source.epub").is_file()


def check_place(out: Path, root: Path, chapters: Sequence[Path]) -> None:
    """Refuse (:class:`ExportRefused`) a place that is, or would become, one of the workspace's own files, or
    that holds a file already."""
    if in_state_dir(out):
        raise ExportRefused(f"refusing to export to {out}: it is inside {STATE_DIR}/, where proofdesk keeps its state")
    if out.name.casefold() == GLOSSARY_NAME or same_file(out, root / GLOSSARY_NAME):
        raise ExportRefused(f"refusing to export to {out}: it is a glossary, which an export never replaces")
    if any(same_file(out, chapter) for chapter in chapters):
        raise ExportRefused(f"refusing to export to {out}: it is a chapter file of this book")
    if out.suffix.casefold() == ".json" and same_file(out.parent, root):
        raise ExportRefused(f"refusing to export to {out}: a .json file in the book's folder would be a chapter")
    if os.path.lexists(out):
        raise ExportRefused(f"{out} already exists; give another name (the workstation never replaces a file)")
    if not out.parent.is_dir():
        raise ExportRefused(f"cannot export to {out}: the folder {out.parent} does not exist")


def export_book(root: Path, chapters: Sequence[Path], fmt: ExportFormat, typed: str) -> str:
    """Write the book in ``fmt`` where ``typed`` says (a path; ending with ``/``: a folder, one file per chapter)
    and say what was written, in one line; raises :class:`StoreError` (nothing written) when it cannot."""
    if not chapters:
        raise ExportRefused(f"{root} has no chapter files to export")
    out = Path(os.path.expanduser(typed))
    if typed.endswith(("/", os.sep)):
        return _export_each(root, chapters, fmt, out)
    kind = EXPORTS[fmt]
    if kind.epub:
        return _export_epub(root, chapters, out, bilingual=fmt == "bilingual-epub")
    if kind.document:
        return _export_document(root, chapters, fmt, out)
    return _export_one(root, chapters, fmt, out)


def _export_epub(root: Path, chapters: Sequence[Path], out: Path, *, bilingual: bool) -> str:
    from store.books.epub_write import export_epub
    from store.export_target import check_target

    check_place(out, root, chapters)
    report = export_epub(root, check_target(out, sources=chapters), bilingual=bilingual)
    replaced = f"; control characters replaced in {', '.join(report.replaced)}" if report.replaced else ""
    repaired = f"; inline codes repaired in {'; '.join(report.codes_repaired)}" if report.codes_repaired else ""
    return f"wrote {out} ({report.chapters} chapters{replaced}{repaired})"


def _export_document(root: Path, chapters: Sequence[Path], fmt: ExportFormat, out: Path) -> str:
    from store.formats.tmx_write import tmx_bytes
    from store.formats.xliff2_write import xliff2_bytes
    from store.formats.xliff12_write import xliff12_bytes

    check_place(out, root, chapters)
    named = [(path.name, load_chapter(path)) for path in chapters]
    render = {"xliff": xliff2_bytes, "xliff12": xliff12_bytes}.get(fmt)
    data = render(named) if render is not None else tmx_bytes([chapter for _, chapter in named])
    atomic_write(out, data, expect=None)
    return f"wrote {out} ({len(chapters)} chapters)"


def _rendered(path: Path, fmt: ExportFormat) -> str:
    from store.books.text_export import render

    if fmt == "po":
        from store.formats.po_write import po_text

        return po_text(load_chapter(path))
    text_format: Literal["text", "bilingual", "markdown"] = (
        "bilingual" if fmt == "bilingual" else "markdown" if fmt == "markdown" else "text"
    )
    return render(load_chapter(path), text_format)


def _export_one(root: Path, chapters: Sequence[Path], fmt: ExportFormat, out: Path) -> str:
    if fmt == "po" and len(chapters) > 1:
        raise ExportRefused(f"a PO file holds one chapter: end {out} with / for one file per chapter")
    check_place(out, root, chapters)
    separator = "\n" if fmt == "markdown" else ""
    text = separator.join(_rendered(path, fmt) for path in chapters)
    atomic_write(out, text.encode("utf-8"), expect=None)
    return f"wrote {out} ({len(chapters)} chapters)"


def _export_each(root: Path, chapters: Sequence[Path], fmt: ExportFormat, folder: Path) -> str:
    kind = EXPORTS[fmt]
    if kind.epub or kind.document:
        raise ExportRefused(f"{kind.label} is one file for the book: give a file name, not the folder {folder}/")
    if in_state_dir(folder) or same_file(folder, root):
        raise ExportRefused(f"refusing to export into {folder}: choose a folder outside the book's own")
    targets = [folder / (path.stem + EXPORTS[fmt].suffix) for path in chapters]
    if folder.exists():
        for target in targets:  # every place checked before the first is written
            check_place(target, root, chapters)
    folder.mkdir(parents=True, exist_ok=True)
    for path, target in zip(chapters, targets, strict=True):
        atomic_write(target, _rendered(path, fmt).encode("utf-8"), expect=None)
    return f"wrote {len(targets)} files into {folder}"
