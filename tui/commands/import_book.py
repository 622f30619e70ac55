"""``proofdesk import BOOK.epub -o DIR`` and ``import NOVEL.txt --split-chapters -o DIR``: a new workspace folder,
and the bounded reading of every text an import takes."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from store.errors import StoreError
from store.export_target import refuse_own_files
from store.input_limits import ParagraphLimits, read_input
from store.text_encoding import decode_text
from tui.cli_errors import EXIT_OK, UsageError
from tui.terminal_text import visible


def read_text(path: Path, encoding: str | None) -> str:
    """The text of ``path``, read up to the input cap and decoded (``encoding``, else detected)."""
    try:
        return decode_text(read_input(path), path, encoding)[0]
    except StoreError as exc:
        raise UsageError(str(exc)) from None


def _workspace_out(args: argparse.Namespace, what: str) -> Path:
    if args.output is None:
        raise UsageError(f"{args.file}: {what} needs -o DIR (the workspace folder to create)")
    out: Path = args.output
    try:
        refuse_own_files(out, doing="import")
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    return out


def import_novel_command(args: argparse.Namespace, limits: ParagraphLimits) -> int:
    """Cut the text into chapters at its headings and make the workspace ``-o DIR``."""
    from store.books.new_workspace import refuse_taken
    from store.books.text_import import import_novel

    out = _workspace_out(args, "--split-chapters")
    try:
        refuse_taken(out)  # before reading a byte of the text
        count = import_novel(
            read_text(args.file, args.encoding),
            out,
            pattern=args.chapter_pattern,
            source_language=args.source_language,
            target_language=args.target_language,
            limits=limits,
            where=str(args.file),
        )
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    print(visible(f"{out}: {count} chapters", newlines=False), file=sys.stderr)
    return EXIT_OK


def import_epub_command(args: argparse.Namespace, limits: ParagraphLimits) -> int:
    """Make the workspace ``-o DIR`` of the EPUB's spine documents."""
    from store.books.epub_import import import_epub
    from store.books.new_workspace import refuse_taken

    out = _workspace_out(args, "importing an EPUB")
    try:
        refuse_taken(out)  # before reading the book
        made = import_epub(
            args.file,
            out,
            source_language=args.source_language,
            target_language=args.target_language,
            limits=limits,
        )
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    print(visible(f"{out}: {len(made.files)} chapters", newlines=False), file=sys.stderr)
    print(f"paragraphs: {kind_counts(made.kinds)}", file=sys.stderr)
    for kind, count in made.skipped.most_common():
        print(visible(f"not imported, kept as it is: {kind} ×{count}", newlines=False), file=sys.stderr)
    return EXIT_OK


def kind_counts(kinds: Counter[str]) -> str:
    """``p 812, h2 14, td 40, loose text 3``: the most frequent kind first."""
    return visible(", ".join(f"{kind} {count:,}" for kind, count in kinds.most_common()) or "none", newlines=False)
