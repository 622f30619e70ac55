"""Where the export commands write (``export``, ``export --epub``, ``glossary export``): the checks of
``store.export_target`` turned into one sentence and exit 2, text made safe when the output is a terminal, and
"replaced OUT" on stderr when a file was replaced (``--force``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path

from store.errors import StoreError
from store.export_target import ExportTarget, check_folder, check_target, make_folder, write_target
from tui.cli_errors import UsageError
from tui.terminal_text import visible


def add_force_flag(parser: argparse.ArgumentParser) -> None:
    """``--force``: the one way an export replaces an existing ordinary file."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace OUT if it is an existing ordinary file (a chapter file, a glossary or anything under "
        ".proofdesk/ is never replaced)",
    )


def target(path: Path, *, sources: Iterable[Path], force: bool) -> ExportTarget:
    """The checked target of an export to ``path``, or a UsageError naming why not (nothing written)."""
    try:
        return check_target(path, sources=sources, force=force)
    except StoreError as exc:
        raise UsageError(str(exc)) from None


def folder_targets(folder: Path, names: list[str], *, sources: Iterable[Path], force: bool) -> list[ExportTarget]:
    """The checked targets of one file per chapter in ``folder``, created if needed once every one passed."""
    try:
        targets = check_folder(folder, names, sources=sources, force=force)
        make_folder(folder)
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    return targets


def write_text(where: ExportTarget, text: str) -> None:
    """Write ``text`` as UTF-8; a terminal gets control characters as visible escapes (design section 10)."""
    data = text.encode("utf-8")
    write_bytes(where, data, on_terminal=visible(text).encode("utf-8"))


def write_bytes(where: ExportTarget, data: bytes, *, on_terminal: bytes | None = None) -> None:
    """Write ``data`` to a checked target, saying so on stderr when it replaced a file."""
    try:
        write_target(where, data, on_terminal=on_terminal)
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    said_replaced(where)


def said_replaced(where: ExportTarget) -> None:
    """Tell the person a file of theirs was replaced (only ever with ``--force``)."""
    if where.replaces:
        print(visible(f"replaced {where.path}", newlines=False), file=sys.stderr)
