"""``proofdesk stats WORKSPACE|CHAPTER…``: what each model is worth, per model and task.

The counts and what they mean are :mod:`store.model_stats`. Human output is a small aligned table (a version
without a model shows as ``-``, first); ``--json`` one list of rows with ``model`` null for those. Exit 0, 2 for
bad input.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import astuple
from pathlib import Path

from store.loader import load_chapter
from store.model_stats import ModelStats, model_stats
from tui.cli_errors import EXIT_OK
from tui.commands.chapter_files import chapter_files
from tui.terminal_text import json_text, visible

COLUMNS = ("model", "task", "suggested", "accepted", "rejected", "pending", "applied", "kept", "edited", "replaced")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``stats`` subcommand."""
    p = subparsers.add_parser(
        "stats",
        help="what each model is worth: its suggestions accepted or rejected, its applied versions kept or edited",
        description="Per model and task, over the chapters given (a folder stands for every chapter file in it): "
        "suggested = accepted + rejected + pending (the suggestions, by what the editor decided); applied = the "
        "versions a run selected itself, of which kept = still selected, replaced = another version is selected "
        "now (kept + replaced = applied), edited = replaced by a hand-written version made after it. Exit 0, 2 "
        "for bad input.",
    )
    p.add_argument("paths", metavar="WORKSPACE|CHAPTER", type=Path, nargs="+", help="chapter files or folders")
    p.add_argument("--json", action="store_true", help="print one JSON list of rows")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the table (or the JSON list) of every model and task in the chapters."""
    rows = model_stats(load_chapter(f) for f in chapter_files(args.paths))
    if args.json:
        sys.stdout.write(json_text([row.to_json() for row in rows], indent=2) + "\n")
    elif rows:
        sys.stdout.write(table(rows))
    else:
        print("proofdesk: no model's work in these chapters yet", file=sys.stderr)
    return EXIT_OK


def table(rows: list[ModelStats]) -> str:
    """The rows under a header: model and task left-aligned, the counts right-aligned."""
    lines = [list(COLUMNS), *(_cells(row) for row in rows)]
    widths = [max(len(line[n]) for line in lines) for n in range(len(COLUMNS))]
    return "".join(_aligned(line, widths) for line in lines)


def _cells(row: ModelStats) -> list[str]:
    model = visible(row.model, newlines=False) if row.model is not None else "-"
    return [model, row.task, *(str(count) for count in astuple(row)[2:])]


def _aligned(cells: list[str], widths: list[int]) -> str:
    padded = [cell.ljust(w) if n < 2 else cell.rjust(w) for n, (cell, w) in enumerate(zip(cells, widths, strict=True))]
    return "  ".join(padded).rstrip() + "\n"
