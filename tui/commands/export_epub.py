"""``proofdesk export WORKSPACE --format epub -o OUT.epub`` (or ``--epub OUT.epub``): an imported book's workspace
written back as an EPUB by :func:`store.books.epub_write.export_epub`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal

from store.errors import StoreError
from tui.cli_errors import EXIT_OK, UsageError
from tui.commands.export_job import ExportJob
from tui.commands.export_output import said_replaced, target
from tui.terminal_text import visible


def export_book(job: ExportJob) -> int:
    """Write the workspace of ``job`` as the EPUB ``-o``; one sentence and exit 2 for anything refused."""
    from store.books.epub_safety import BookError
    from store.books.epub_write import export_epub

    out = job.out
    if out is None:
        raise UsageError("--format epub: name the book to write with -o OUT.epub")
    where = target(out, sources=job.chapter_files(), force=job.force)
    missing: Literal["source", "mark"] = "mark" if job.missing == "mark" else "source"
    try:
        report = export_epub(job.source, where, bilingual=job.bilingual, missing=missing)
    except (BookError, StoreError) as exc:
        raise UsageError(str(exc)) from None
    said_replaced(where)
    if report.replaced:
        print(visible(_replaced_controls(out, report.replaced), newlines=False), file=sys.stderr)
    if report.codes_repaired:
        print(visible(_repaired_codes(out, report.codes_repaired), newlines=False), file=sys.stderr)
    print(visible(f"{out}: {report.chapters} chapters", newlines=False), file=sys.stderr)
    return EXIT_OK


def _replaced_controls(out: Path, where: list[str], shown: int = 20) -> str:
    """One line naming the paragraphs and titles whose control characters an EPUB cannot hold."""
    more = f" and {len(where) - shown} more" if len(where) > shown else ""
    return f"{out}: control characters an EPUB cannot hold were written as U+FFFD in {', '.join(where[:shown])}{more}"


def _repaired_codes(out: Path, where: list[str], shown: int = 20) -> str:
    """One line naming the paragraphs whose inline codes differed from the source's (CODES_DIFFER)."""
    more = f" and {len(where) - shown} more" if len(where) > shown else ""
    return (
        f"{out}: inline codes differed from the source's; missing images, anchors and marks were appended at the "
        f"block's end and unplaceable markup dropped around its words in {'; '.join(where[:shown])}{more}"
    )
