"""``proofdesk export CHAPTER``: the selected translations as plain text."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path
from typing import Literal

from store.atomic import atomic_write
from store.errors import StoreError
from store.loader import load_chapter
from store.plaintext import export_text
from store.workspace import Workspace
from tui.cli_errors import EXIT_OK, UsageError
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
        help="write to OUT instead of stdout: a file is "
        "replaced atomically; a device or a pipe (/dev/null, /dev/stdout) is written directly",
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
        help="CHAPTER is an imported book's workspace: write it back as an EPUB",
    )
    p.add_argument("--bilingual", action="store_true", help="with --epub: each original block, then its translation")
    p.set_defaults(handler=run)


def _export_epub(args: argparse.Namespace) -> int:
    from store.books.epub_safety import BookError
    from store.books.epub_write import export_epub

    missing: Literal["source", "mark"] = "mark" if args.missing == "mark" else "source"
    try:
        count = export_epub(Path(args.chapter), args.epub, bilingual=args.bilingual, missing=missing)
    except (BookError, StoreError) as exc:
        raise UsageError(str(exc)) from None
    print(visible(f"{args.epub}: {count} chapters", newlines=False), file=sys.stderr)
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    """Export the chapter; the chapter file itself is only read."""
    # Kept as a string until here: a trailing "/" (one file per chapter) would be lost in a Path.
    args.output_is_dir = isinstance(args.output, str) and args.output.endswith(("/", os.sep))
    args.output = Path(args.output) if args.output is not None else None
    if args.epub is not None:
        return _export_epub(args)
    if Path(args.chapter).is_dir() or args.format != "text":
        return _export_formatted(args)
    text = export_text(load_chapter(args.chapter), args.missing)
    out: Path | None = args.output
    if out is None:
        return _to_stdout(text)
    if out.exists() and out.resolve() == Path(args.chapter).resolve():
        raise UsageError(f"{out}: refusing to write the export over the chapter file itself")
    if _is_stream(out):
        return _to_stream(out, text)
    _write(out, text)
    return EXIT_OK


def _to_stdout(text: str) -> int:
    # A terminal would act on control characters in the translations: show them escaped there. A file or a pipe
    # gets the text exactly.
    sys.stdout.write(visible(text) if sys.stdout.isatty() else text)
    sys.stdout.flush()
    return EXIT_OK


def _to_stream(out: Path, text: str) -> int:
    # A device or a pipe cannot be replaced by a rename (and must not be): write to it as it is.
    try:
        with open(out, "wb") as stream:
            stream.write(text.encode("utf-8"))
    except OSError as exc:
        raise UsageError(f"{out}: cannot be written: {exc.strerror or exc}") from None
    return EXIT_OK


def _write(target: Path, text: str) -> None:
    try:
        atomic_write(target, text.encode("utf-8"), expect=None)
    except StoreError as exc:  # CommitError: one sentence, the target unchanged, no temp left
        raise UsageError(f"{target}: {exc}") from None


def _export_formatted(args: argparse.Namespace) -> int:
    from store.books.text_export import SUFFIX, render

    src = Path(args.chapter)
    files = [src / p.name for p in Workspace(src).chapter_paths()] if src.is_dir() else [src]
    if not files:
        raise UsageError(f"{src}: no chapter files in this folder")
    chapters = [load_chapter(f) for f in files]
    out: Path | None = args.output
    if out is not None and (args.output_is_dir or out.is_dir()):
        out.mkdir(parents=True, exist_ok=True)
        for path, chapter in zip(files, chapters, strict=True):
            _write(out / (path.stem + SUFFIX[args.format]), render(chapter, args.format, args.missing))
        print(visible(f"{out}: {len(files)} files", newlines=False), file=sys.stderr)
        return EXIT_OK
    sep = "\n" if args.format == "markdown" else ""
    text = sep.join(render(c, args.format, args.missing) for c in chapters)
    if out is None:
        return _to_stdout(text)
    if any(out.exists() and out.resolve() == f.resolve() for f in files):
        raise UsageError(f"{out}: refusing to write the export over a chapter file")
    _write(out, text)
    return EXIT_OK


def _is_stream(path: Path) -> bool:
    """Whether ``path`` is a character device or a pipe (``/dev/null``, ``/dev/stdout``, ``>(cmd)``)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)
