"""``proofdesk import FILE.txt``: make a chapter file from plain text (``import_book`` does EPUBs and novels)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from store.atomic import atomic_write
from store.errors import StoreError
from store.export_target import refuse_own_files
from store.input_limits import MAX_INPUT_BYTES, ParagraphLimits
from store.model import Chapter
from store.plaintext import chapter_from_text, split_lines
from store.serialize import chapter_bytes
from tui.cli_errors import EXIT_OK, UsageError
from tui.commands.import_book import import_epub_command, import_novel_command, read_text
from tui.commands.text_args import count_arg, encoding_arg, language_arg, pattern_arg, text_arg
from tui.terminal_text import visible

EXCHANGE_SUFFIXES = (".xlf", ".xliff", ".po")  # read back by tui/commands/import_exchange.py
_ENCODINGS = "default: detected; UTF-8/16 BOM, UTF-8, Shift_JIS, EUC-JP, GB18030, Big5"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``import`` subcommand."""
    p = subparsers.add_parser(
        "import",
        help="make a chapter file from plain text, or read XLIFF/PO back with --into",
        description="Make a chapter file from plain text (encoding detected), or a workspace from an EPUB "
        "(-o DIR): one paragraph per line, verbatim; blank lines "
        "become empty paragraphs (they count in the [n] numbering); a final newline adds no paragraph. "
        "An EPUB gives one chapter per spine document and a paragraph per element that holds text (tables, "
        "captions, pre, SVG text and loose text included); the import prints the count per kind. "
        f"A text is read up to {MAX_INPUT_BYTES // (1024 * 1024)} MiB; a chapter may have 50,000 paragraphs and a "
        "book 200,000 (--max-paragraphs). With --into, FILE.xlf, FILE.xliff or FILE.po (a CAT tool's work) goes "
        "back into chapters by paragraph ID instead.",
    )
    p.add_argument("file", metavar="FILE.txt", type=Path, help="the text file to import")
    p.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        type=Path,
        help="chapter file to write (default: FILE.json beside it); for an EPUB or --split-chapters, the "
        "workspace folder to make (it must not exist, or be empty)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="replace OUT if it is an existing chapter file (a workspace folder is never replaced)",
    )
    p.add_argument(
        "--id", dest="chapter_id", type=text_arg, help="chapter id (default: the file name without extension)"
    )
    p.add_argument("--title", type=text_arg, help="chapter title (default: the first non-empty line)")
    p.add_argument("--source-language", metavar="LANG", type=language_arg, help="source language (BCP 47), e.g. ja")
    p.add_argument("--target-language", metavar="LANG", type=language_arg, help="target language (BCP 47), e.g. en")
    p.add_argument("--encoding", type=encoding_arg, help=f"the text's encoding ({_ENCODINGS})")
    p.add_argument(
        "--split-chapters",
        action="store_true",
        help="cut a long novel into chapters at heading lines; -o DIR is the workspace to create",
    )
    p.add_argument(
        "--chapter-pattern",
        metavar="REGEX",
        type=pattern_arg,
        help="with --split-chapters: a line matching REGEX (at its start, spaces stripped) is a heading, instead of "
        "the built-in rule; a pattern that takes too long on the text is refused",
    )
    p.add_argument(
        "--translation",
        metavar="TRANSLATED.txt",
        type=Path,
        help="line-aligned translation: line n becomes paragraph n's selected version (origin import)",
    )
    p.add_argument(
        "--translation-encoding", type=encoding_arg, help=f"the translation's encoding ({_ENCODINGS}; its own)"
    )
    p.add_argument(
        "--max-paragraphs",
        metavar="N",
        type=count_arg,
        help="refuse more than N paragraphs in a chapter or in the book (default: 50,000 in a chapter or EPUB "
        "document, 200,000 in a book)",
    )
    p.add_argument(
        "--into",
        metavar="CHAPTER|WORKSPACE",
        type=Path,
        help="FILE.xlf, FILE.xliff or FILE.po (from 'proofdesk export --format xliff|xliff12|po'): read its "
        "targets back into these chapters by paragraph ID; a different target becomes an 'import' version "
        "(a suggestion for a reviewed or hand-edited paragraph); units whose ID is unknown or whose source "
        "changed are named and skipped (exit 1)",
    )
    p.add_argument("--suggest", action="store_true", help="with --into: store every changed target as a suggestion")
    p.set_defaults(handler=run)


def _has_surrogates(text: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in text)


def _default_id(path: Path) -> str:
    if _has_surrogates(path.stem):
        raise UsageError(
            f"{path}: the file name is not valid UTF-8, so it cannot be the chapter id; give one with --id"
        )
    return re.sub(r"\s+", "-", path.stem.strip()) or "chapter"


def _output_of(args: argparse.Namespace, src: Path) -> Path:
    """Where the chapter goes: ``-o``, else beside the text; never the input, a link, a glossary or
    ``.proofdesk/``, never an existing file unasked, never into a folder that does not exist."""
    out: Path = args.output or src.with_suffix(".json")
    _refuse_place(out)
    inputs = [src] if args.translation is None else [src, args.translation]
    if any(_same_file(out, path) for path in inputs):
        raise UsageError(f"{out}: the output would replace an input of the import; choose another -o")
    if out.is_dir():
        raise UsageError(f"{out}: is a folder; name the chapter file to write")
    if out.exists() and not args.force:
        raise UsageError(f"{out}: already exists; use --force to overwrite it")
    return out


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _refuse_place(out: Path) -> None:
    """Refuse a glossary, ``.proofdesk/``, a symbolic link, or a place whose folder is missing."""
    try:
        refuse_own_files(out, doing="import")
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    if os.path.islink(out):
        raise UsageError(f"{out}: is a symbolic link, which an import does not replace; choose another -o")
    folder = Path(os.path.abspath(out)).parent
    if not folder.is_dir():
        said = "is not a folder" if folder.exists() else "does not exist"
        raise UsageError(f"{out}: the folder {folder} {said}; create it first or choose another -o")


def _chapter_id(args: argparse.Namespace, src: Path) -> str:
    chapter_id: str = args.chapter_id or _default_id(src)
    if not chapter_id or re.search(r"\s", chapter_id):
        raise UsageError(f"--id {chapter_id!r}: an id must be non-empty and contain no whitespace")
    return chapter_id


def _chapter_of(args: argparse.Namespace, text: str, chapter_id: str) -> Chapter:
    """The chapter of the text's lines; its title is ``--title``, else its first non-empty line."""
    chapter = chapter_from_text(
        text,
        chapter_id=chapter_id,
        title=args.title,
        source_language=args.source_language,
        target_language=args.target_language,
    )
    if args.title is not None:
        return chapter
    return chapter.replace(title=next((p.text.strip() for p in chapter.paragraphs if not p.is_empty), None))


def _with_translation(args: argparse.Namespace, chapter: Chapter) -> Chapter:
    from store.books.text_import import with_translation

    # The translation's encoding is its own: detected, or --translation-encoding (never the source's --encoding).
    translated = read_text(args.translation, args.translation_encoding)
    try:
        return with_translation(chapter, translated, str(args.translation))
    except StoreError as exc:
        raise UsageError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    """Import the text file and write the chapter atomically; never overwrite without --force."""
    src: Path = args.file
    limits = ParagraphLimits.at_most(args.max_paragraphs)
    if src.suffix.lower() in EXCHANGE_SUFFIXES:
        from tui.commands.import_exchange import import_exchange_command

        return import_exchange_command(src, args.into, suggest=args.suggest)
    if args.into is not None:
        raise UsageError(f"{src}: --into takes an XLIFF or PO file ({', '.join(EXCHANGE_SUFFIXES)})")
    if src.suffix.lower() == ".epub":
        return import_epub_command(args, limits)
    if args.split_chapters:
        return import_novel_command(args, limits)
    out = _output_of(args, src)
    chapter_id = _chapter_id(args, src)
    text = read_text(src, args.encoding)
    try:
        limits.check_chapter(len(split_lines(text)), str(src))
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    chapter = _chapter_of(args, text, chapter_id)
    if args.translation is not None:
        chapter = _with_translation(args, chapter)
    try:
        atomic_write(out, chapter_bytes(chapter), expect=None)
    except StoreError as exc:  # CommitError: one sentence, the target unchanged, no temp left
        raise UsageError(f"{out}: {exc}") from None
    empty = sum(p.is_empty for p in chapter.paragraphs)
    print(visible(f"{out}: {len(chapter.paragraphs)} paragraphs ({empty} empty)", newlines=False), file=sys.stderr)
    return EXIT_OK
