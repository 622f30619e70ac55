"""``proofdesk export CHAPTER``: the selected translations as plain text."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Literal

from store.books.text_export import SUFFIX, render
from store.errors import StoreError
from store.loader import load_chapter
from store.workspace import Workspace
from tui.cli_errors import EXIT_OK, UsageError
from tui.commands.export_output import add_force_flag, folder_targets, said_replaced, target, write_text
from tui.terminal_text import visible


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``export`` subcommand."""
    p = subparsers.add_parser(
        "export",
        help="write the selected translations as plain text, one line per paragraph",
        description="Write the selected translations as plain text: line n is paragraph n of the chapter, empty "
        "paragraphs as empty lines. Every line break inside a paragraph (CR, LF, VT, FF, NEL, U+2028, U+2029 and "
        "the like) becomes a space, so line n stays paragraph n for any reader.",
    )
    p.add_argument("chapter", metavar="CHAPTER", type=Path, help="the chapter file")
    p.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="write to OUT instead of stdout: a new file, or an existing one with --force, is written "
        "atomically; a device or a pipe (/dev/null, /dev/stdout) is written directly",
    )
    p.add_argument(
        "--missing",
        choices=("blank", "source", "mark"),
        default="blank",
        help="for paragraphs without a translation: an empty line (default), the source text, or "
        "'[untranslated ID] source'",
    )
    p.add_argument(
        "--format",
        choices=("text", "bilingual", "markdown"),
        default="text",
        help="text (default: one line per paragraph), bilingual (source, translation, blank line) or "
        "markdown; CHAPTER may be a workspace folder (every chapter in order; -o DIR/ for one file each)",
    )
    p.add_argument(
        "--epub",
        metavar="OUT.epub",
        type=Path,
        help="CHAPTER is an imported book's workspace: write it back as an EPUB in the target language (its "
        "language, a new identifier, the modification time; nav titles from the translated headings)",
    )
    p.add_argument(
        "--bilingual",
        action="store_true",
        help="with --epub: each original block, then its translation (marked with the target's lang; a "
        "caption or table cell holds it inside)",
    )
    add_force_flag(p)
    p.set_defaults(handler=run)


def _export_epub(args: argparse.Namespace) -> int:
    from store.books.epub_safety import BookError
    from store.books.epub_write import export_epub

    workspace = Path(args.chapter)
    where = target(args.epub, sources=_chapter_files(workspace), force=args.force)
    missing: Literal["source", "mark"] = "mark" if args.missing == "mark" else "source"
    try:
        report = export_epub(workspace, where, bilingual=args.bilingual, missing=missing)
    except (BookError, StoreError) as exc:
        raise UsageError(str(exc)) from None
    said_replaced(where)
    if report.replaced:
        print(visible(_replaced_controls(args.epub, report.replaced), newlines=False), file=sys.stderr)
    print(visible(f"{args.epub}: {report.chapters} chapters", newlines=False), file=sys.stderr)
    return EXIT_OK


def _replaced_controls(out: Path, where: list[str], shown: int = 20) -> str:
    """One line naming the paragraphs and titles whose control characters an EPUB cannot hold."""
    more = f" and {len(where) - shown} more" if len(where) > shown else ""
    return f"{out}: control characters an EPUB cannot hold were written as U+FFFD in {', '.join(where[:shown])}{more}"


def run(args: argparse.Namespace) -> int:
    """Export the chapter (or every chapter of a workspace); the chapter files themselves are only read."""
    # Kept as a string until here: a trailing "/" (one file per chapter) would be lost in a Path.
    output_is_dir = isinstance(args.output, str) and args.output.endswith(("/", os.sep))
    out = Path(args.output) if args.output is not None else None
    if args.epub is not None:
        return _export_epub(args)
    files = _chapter_files(Path(args.chapter))
    if out is None:
        return _to_stdout(_rendered(args, files))
    if output_is_dir or out.is_dir():
        return _one_file_each(args, files, out)
    where = target(out, sources=files, force=args.force)  # checked before a chapter is read
    write_text(where, _rendered(args, files))
    return EXIT_OK


def _rendered(args: argparse.Namespace, files: list[Path]) -> str:
    """Every chapter in ``--format``, in order."""
    sep = "\n" if args.format == "markdown" else ""
    return sep.join(render(load_chapter(f), args.format, args.missing) for f in files)


def _chapter_files(src: Path) -> list[Path]:
    """The chapter file, or every chapter file of the workspace folder in order."""
    if not src.is_dir():
        return [src]
    files = [src / p.name for p in Workspace(src).chapter_paths()]
    if not files:
        raise UsageError(f"{src}: no chapter files in this folder")
    return files


def _to_stdout(text: str) -> int:
    # A terminal would act on control characters in the translations: show them escaped there. A file or a pipe
    # gets the text exactly.
    sys.stdout.write(visible(text) if sys.stdout.isatty() else text)
    sys.stdout.flush()
    return EXIT_OK


def _one_file_each(args: argparse.Namespace, files: list[Path], out: Path) -> int:
    """One file per chapter in the folder ``out``: every target checked before the first is written."""
    names = [path.stem + SUFFIX[args.format] for path in files]
    targets = folder_targets(out, names, sources=files, force=args.force)
    for path, where in zip(files, targets, strict=True):
        write_text(where, render(load_chapter(path), args.format, args.missing))
    print(visible(f"{out}: {len(files)} files", newlines=False), file=sys.stderr)
    return EXIT_OK
