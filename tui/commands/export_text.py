"""``proofdesk export CHAPTER``: the selected translations as plain text."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path

from store.atomic import atomic_write
from store.errors import StoreError
from store.loader import load_chapter
from store.plaintext import export_text
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
    p.add_argument("-o", "--output", metavar="OUT", type=Path, help="write to OUT instead of stdout: a file is "
                   "replaced atomically; a device or a pipe (/dev/null, /dev/stdout) is written directly")
    p.add_argument("--missing", choices=("blank", "source", "mark"), default="blank",
                   help="for paragraphs without a translation: an empty line (default), the source text, or "
                   "'[untranslated ID] source'")
    p.add_argument("--epub", metavar="OUT.epub", type=Path,
                   help="CHAPTER is an imported book's workspace: write it back as an EPUB")
    p.add_argument("--bilingual", action="store_true", help="with --epub: each original block, then its translation")
    p.set_defaults(handler=run)


def _export_epub(args: argparse.Namespace) -> int:
    from store.books.epub_safety import BookError
    from store.books.epub_write import export_epub

    missing = "mark" if args.missing == "mark" else "source"
    try:
        count = export_epub(Path(args.chapter), args.epub, bilingual=args.bilingual, missing=missing)
    except (BookError, StoreError) as exc:
        raise UsageError(str(exc)) from None
    print(visible(f"{args.epub}: {count} chapters", newlines=False), file=sys.stderr)
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    """Export the chapter; the chapter file itself is only read."""
    if args.epub is not None:
        return _export_epub(args)
    chapter = load_chapter(args.chapter)
    text = export_text(chapter, args.missing)
    if args.output is None:
        # A terminal would act on control characters in the translations: show them escaped there. A file or
        # a pipe gets the text exactly.
        sys.stdout.write(visible(text) if sys.stdout.isatty() else text)
        sys.stdout.flush()
        return EXIT_OK
    out: Path = args.output
    if out.exists() and out.resolve() == Path(args.chapter).resolve():
        raise UsageError(f"{out}: refusing to write the export over the chapter file itself")
    if _is_stream(out):
        # A device or a pipe cannot be replaced by a rename (and must not be): write to it as it is.
        try:
            with open(out, "wb") as stream:
                stream.write(text.encode("utf-8"))
        except OSError as exc:
            raise UsageError(f"{out}: cannot be written: {exc.strerror or exc}") from None
        return EXIT_OK
    try:
        atomic_write(out, text.encode("utf-8"), expect=None)
    except StoreError as exc:  # CommitError: one sentence, the target unchanged, no temp left
        raise UsageError(f"{out}: {exc}") from None
    return EXIT_OK


def _is_stream(path: Path) -> bool:
    """Whether ``path`` is a character device or a pipe (``/dev/null``, ``/dev/stdout``, ``>(cmd)``)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)
