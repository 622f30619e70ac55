"""``proofdesk import FILE.txt``: make a chapter file from plain text."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from store.atomic import atomic_write
from store.errors import StoreError
from store.model import Chapter
from store.plaintext import chapter_from_text
from store.serialize import chapter_bytes
from tui.cli_errors import EXIT_OK, UsageError
from tui.terminal_text import visible


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``import`` subcommand."""
    p = subparsers.add_parser(
        "import",
        help="make a chapter file from plain text (one paragraph per line)",
        description="Make a chapter file from plain text (encoding detected), or a workspace from an EPUB "
        "(-o DIR): one paragraph per line, verbatim; blank lines "
        "become empty paragraphs (they count in the [n] numbering); a final newline adds no paragraph.",
    )
    p.add_argument("file", metavar="FILE.txt", type=Path, help="the text file to import")
    p.add_argument(
        "-o", "--output", metavar="OUT", type=Path, help="chapter file to write (default: FILE.json beside it)"
    )
    p.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    p.add_argument("--id", dest="chapter_id", help="chapter id (default: the file name without extension)")
    p.add_argument("--title", help="chapter title (default: the first non-empty line)")
    p.add_argument("--source-language", metavar="LANG", help="source language code, e.g. ja")
    p.add_argument("--target-language", metavar="LANG", help="target language code, e.g. en")
    p.add_argument(
        "--encoding",
        help="the text's encoding (default: detected; UTF-8/16 BOM, UTF-8, Shift_JIS, EUC-JP, GB18030, Big5)",
    )
    p.add_argument(
        "--split-chapters",
        action="store_true",
        help="cut a long novel into chapters at heading lines; -o DIR is the workspace to create",
    )
    p.add_argument(
        "--chapter-pattern",
        metavar="REGEX",
        help="with --split-chapters: a line matching REGEX "
        "(at its start, spaces stripped) is a heading, instead of the built-in rule",
    )
    p.add_argument(
        "--translation",
        metavar="TRANSLATED.txt",
        type=Path,
        help="line-aligned translation: line n becomes paragraph n's selected version (origin import)",
    )
    p.set_defaults(handler=run)
    # FILE.epub -o DIR: a workspace of chapters, one per spine document with text


def _read_text(path: Path, encoding: str | None) -> str:
    from store.text_encoding import decode_text

    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise UsageError(f"{path}: is a folder, not a text file") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    try:
        return decode_text(raw, path, encoding)[0]
    except StoreError as exc:
        raise UsageError(str(exc)) from None


def _import_novel(args: argparse.Namespace, text: str) -> int:
    from store.books.text_import import import_novel

    if args.output is None:
        raise UsageError(f"{args.file}: --split-chapters needs -o DIR (the workspace folder to create)")
    pattern = None
    if args.chapter_pattern is not None:
        try:
            pattern = re.compile(args.chapter_pattern)
        except re.error as exc:
            raise UsageError(
                f"--chapter-pattern {args.chapter_pattern!r}: not a valid regular expression: {exc}"
            ) from None
    try:
        count = import_novel(
            text,
            args.output,
            pattern=pattern,
            source_language=args.source_language,
            target_language=args.target_language,
        )
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    print(visible(f"{args.output}: {count} chapters", newlines=False), file=sys.stderr)
    return EXIT_OK


def _import_epub(args: argparse.Namespace) -> int:
    from store.books.epub_import import import_epub
    from store.books.epub_safety import BookError

    if args.output is None:
        raise UsageError(f"{args.file}: importing an EPUB needs -o DIR (the workspace folder to create)")
    try:
        files = import_epub(args.file, args.output, target_language=args.target_language)
    except BookError as exc:
        raise UsageError(str(exc)) from None
    print(visible(f"{args.output}: {len(files)} chapters", newlines=False), file=sys.stderr)
    return EXIT_OK


def _default_id(path: Path) -> str:
    return re.sub(r"\s+", "-", path.stem.strip()) or "chapter"


def _output_of(args: argparse.Namespace, src: Path) -> Path:
    """Where the chapter goes: ``-o``, else beside the text; never the input, never an existing file unasked."""
    out: Path = args.output or src.with_suffix(".json")
    if out.resolve() == src.resolve():
        raise UsageError(f"{out}: the output would replace the input; choose another -o")
    if out.exists() and not args.force:
        raise UsageError(f"{out}: already exists; use --force to overwrite it")
    return out


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

    try:
        return with_translation(chapter, _read_text(args.translation, args.encoding), str(args.translation))
    except StoreError as exc:
        raise UsageError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    """Import the text file and write the chapter atomically; never overwrite without --force."""
    src: Path = args.file
    if src.suffix.lower() == ".epub":
        return _import_epub(args)
    text = _read_text(src, args.encoding)
    if args.split_chapters:
        return _import_novel(args, text)
    out = _output_of(args, src)
    chapter = _chapter_of(args, text, _chapter_id(args, src))
    if args.translation is not None:
        chapter = _with_translation(args, chapter)
    try:
        atomic_write(out, chapter_bytes(chapter), expect=None)
    except StoreError as exc:  # CommitError: one sentence, the target unchanged, no temp left
        raise UsageError(f"{out}: {exc}") from None
    empty = sum(p.is_empty for p in chapter.paragraphs)
    print(visible(f"{out}: {len(chapter.paragraphs)} paragraphs ({empty} empty)", newlines=False), file=sys.stderr)
    return EXIT_OK
