"""``proofdesk export CHAPTER|WORKSPACE``: the selected translations in one of the formats of
:mod:`tui.commands.export_formats` (plain text, bilingual, Markdown, EPUB, XLIFF 2.1/1.2, PO, TMX)."""

from __future__ import annotations

import argparse
from pathlib import Path

from tui.commands.export_formats import FORMATS
from tui.commands.export_job import ExportJob
from tui.commands.export_output import add_force_flag


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``export`` subcommand."""
    p = subparsers.add_parser(
        "export",
        help="write the selected translations as text, EPUB, XLIFF, PO or TMX",
        description="Write the selected translations as plain text: line n is paragraph n of the chapter, empty "
        "paragraphs as empty lines. Every line break inside a paragraph (CR, LF, VT, FF, NEL, U+2028, U+2029 and "
        "the like) becomes a space, so line n stays paragraph n for any reader. Other formats: "
        + "; ".join(f"{f.name}: {f.words}" for f in FORMATS.values())
        + ". XLIFF and PO come back with 'proofdesk import FILE --into CHAPTER|WORKSPACE'.",
    )
    p.add_argument("chapter", metavar="CHAPTER", type=Path, help="the chapter file, or a workspace folder")
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
        choices=tuple(FORMATS),
        default="text",
        help="text (default: one line per paragraph), bilingual, markdown, epub, xliff (2.1), xliff12, po or tmx; "
        "CHAPTER may be a workspace folder (every chapter in order; -o DIR/ for one file each)",
    )
    p.add_argument(
        "--epub",
        metavar="OUT.epub",
        type=Path,
        help="CHAPTER is an imported book's workspace: write it back as an EPUB in the target language (its "
        "language, a new identifier, the modification time; nav titles from the translated headings; = --format "
        "epub -o OUT.epub)",
    )
    p.add_argument(
        "--bilingual",
        action="store_true",
        help="with --epub (--format epub): each original block, then its translation (marked with the target's "
        "lang; a caption or table cell holds it inside)",
    )
    add_force_flag(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Export the chapter (or every chapter of a workspace) in ``--format``; the chapter files are only read."""
    epub = args.epub is not None
    job = ExportJob(
        source=Path(args.chapter),
        # Kept as a string: a trailing "/" (one file per chapter) would be lost in a Path.
        output=str(args.epub) if epub else args.output,
        format="epub" if epub else args.format,
        missing=args.missing,
        bilingual=args.bilingual,
        force=args.force,
    )
    return FORMATS[job.format].export(job)
