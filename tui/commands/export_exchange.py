"""``proofdesk export --format xliff|xliff12|tmx|po``: chapters in the formats CAT tools speak (design section 18).

XLIFF 2.1, XLIFF 1.2 and TMX are one document for a chapter or a whole workspace (``-o FILE``, or stdout); PO is one
file per chapter, so a workspace of several chapters goes to ``-o DIR/`` (``<chapter file stem>.po`` each). Every
target is checked by ``store.export_target`` before a chapter is read, and written atomically.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from store.loader import load_chapter
from store.model import Chapter
from tui.cli_errors import EXIT_OK, UsageError
from tui.commands.export_job import ExportJob
from tui.commands.export_output import folder_targets, target, write_bytes
from tui.commands.export_plain import to_stdout
from tui.terminal_text import visible


def _xliff2(named: list[tuple[str, Chapter]]) -> bytes:
    from store.formats.xliff2_write import xliff2_bytes

    return xliff2_bytes(named)


def _xliff12(named: list[tuple[str, Chapter]]) -> bytes:
    from store.formats.xliff12_write import xliff12_bytes

    return xliff12_bytes(named)


def _tmx(named: list[tuple[str, Chapter]]) -> bytes:
    from store.formats.tmx_write import tmx_bytes

    return tmx_bytes([chapter for _, chapter in named])


_DOCUMENTS: dict[str, Callable[[list[tuple[str, Chapter]]], bytes]] = {
    "xliff": _xliff2,
    "xliff12": _xliff12,
    "tmx": _tmx,
}


def export_document(job: ExportJob) -> int:
    """One XLIFF or TMX document of every chapter of ``job``, to ``-o`` or stdout."""
    files = job.chapter_files()
    out = job.out
    where = None if out is None else target(out, sources=files, force=job.force)  # before a chapter is read
    data = _DOCUMENTS[job.format]([(path.name, load_chapter(path)) for path in files])
    if where is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return EXIT_OK
    write_bytes(where, data)
    return EXIT_OK


def export_po(job: ExportJob) -> int:
    """One PO file per chapter: ``-o FILE.po`` (or stdout) for one chapter, ``-o DIR/`` for several."""
    from store.formats.po_write import po_text

    files = job.chapter_files()
    out = job.out
    if out is not None and (job.to_folder or len(files) > 1):
        return _po_folder(job, files, out)
    if len(files) > 1:
        raise UsageError(f"{job.source}: a workspace exports one PO file per chapter; name a folder with -o DIR/")
    where = None if out is None else target(out, sources=files, force=job.force)
    text = po_text(load_chapter(files[0]))
    if where is None:
        return to_stdout(text)
    write_bytes(where, text.encode("utf-8"))
    return EXIT_OK


def _po_folder(job: ExportJob, files: list[Path], out: Path) -> int:
    from store.formats.po_write import po_text

    targets = folder_targets(out, [path.stem + ".po" for path in files], sources=files, force=job.force)
    for path, where in zip(files, targets, strict=True):
        write_bytes(where, po_text(load_chapter(path)).encode("utf-8"))
    print(visible(f"{out}: {len(files)} PO files", newlines=False), file=sys.stderr)
    return EXIT_OK
