"""The order of a workspace's chapter files: the book's own (``.proofdesk/book.json``) where an import wrote one,
else natural (``ch2`` before ``ch10``, ``ch100`` before ``ch1000``); and the ids a new book's chapters get.

:func:`natural_key` is the one sort key of chapter names: every listing sorts with it (``Workspace.chapter_paths``).
The book order is read loosely here (any trouble: natural order; ``books.book_file`` checks the file for the
export) and kept while the file's size and time do not change, so a listing of 5,000 chapters stays cheap.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from pathlib import Path

_DIGITS = re.compile(r"(\d+)")
_BOOK_FILE = Path(".proofdesk") / "book.json"  # STATE_DIR / BOOK_FILE: store.workspace imports this module
_MAX_BOOK_FILE = 64 * 1024 * 1024
_seen: dict[Path, tuple[tuple[int, int, int], dict[str, int]]] = {}


def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key reading runs of digits as numbers (``ch2`` < ``ch10``; ``ch01`` and ``ch1`` by their text)."""
    parts = _DIGITS.split(name)
    runs = ((1, int(part)) if n % 2 else (0, part) for n, part in enumerate(parts) if part)
    return (*runs, (0, name))


def chapter_ids(count: int) -> list[str]:
    """The ids of a new book's ``count`` chapters: ``ch001``… with at least three digits, more when needed."""
    width = max(3, len(str(count)))
    return [f"ch{n:0{width}d}" for n in range(1, count + 1)]


def _stat_key(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _read_positions(path: Path) -> dict[str, int]:
    """Chapter file name -> its place in the book file; empty when the file cannot be read as one."""
    chapters = _chapter_list(path)
    names = (item.get("file") for item in chapters if isinstance(item, dict))
    return {name: n for n, name in enumerate(names) if isinstance(name, str)}


def _chapter_list(path: Path) -> list[object]:
    """The book file's ``chapters`` list, or an empty one."""
    try:
        with open(path, "rb") as fh:
            data = json.loads(fh.read(_MAX_BOOK_FILE + 1))
    except (OSError, ValueError, RecursionError):
        return []
    chapters = data.get("chapters") if isinstance(data, dict) else None
    return chapters if isinstance(chapters, list) else []


def book_positions(root: Path) -> dict[str, int]:
    """The book order of the workspace ``root`` (empty when it has no book file)."""
    path = root / _BOOK_FILE
    key = _stat_key(path)
    if key is None:
        _seen.pop(path, None)
        return {}
    cached = _seen.get(path)
    if cached is None or cached[0] != key:
        cached = (key, _read_positions(path))
        _seen[path] = cached
    return cached[1]


def in_chapter_order(root: Path, paths: Iterable[Path]) -> list[Path]:
    """``paths`` (chapter files of ``root``) in book order, those the book does not list after, naturally."""
    positions = book_positions(root)
    return sorted(paths, key=lambda p: (positions.get(p.name, len(positions)), natural_key(p.name)))
