"""``.proofdesk/book.json``: an imported book's chapter files in spine order, each with the document it came from.

Written by the import, read back by the EPUB export. Whatever it holds (a hand edit, a broken sync, a hostile
workspace), reading it gives the entries or one sentence naming the file and what is wrong; an entry's ``file`` is
only ever a chapter file directly in the workspace, never a path that leads elsewhere (``..``, ``/etc/passwd``, a
sub-folder, a symbolic link out, ``.proofdesk/``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from store.books.epub_safety import BookError
from store.errors import StoreError
from store.input_limits import read_input
from store.workspace import STATE_DIR, is_chapter_name

BOOK_FILE = "book.json"
FORMAT = "proofdesk.book/1"


@dataclass(frozen=True)
class BookEntry:
    """One chapter of the book: its file in the workspace and the document's href (relative to the OPF)."""

    file: Path
    href: str


def book_file(workspace: Path) -> Path:
    """Where the workspace's book file is."""
    return workspace / STATE_DIR / BOOK_FILE


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _parse(path: Path) -> object:
    try:
        text = read_input(path).decode("utf-8")
        return json.loads(text, parse_constant=_refuse_constant)
    except StoreError as exc:
        raise BookError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise BookError(f"{path}: not UTF-8 (byte {exc.start}); re-import the book or restore the file") from None
    except ValueError as exc:  # JSONDecodeError, NaN, a number too long to read
        raise BookError(f"{path}: not valid JSON ({exc}); re-import the book or restore the file") from None
    except RecursionError:
        raise BookError(f"{path}: nested too deeply to be a book file; re-import the book") from None


def read_entries(workspace: Path) -> list[BookEntry]:
    """The book's chapters in order, every entry checked; :class:`BookError` names the first bad one."""
    path = book_file(workspace)
    data = _parse(path)
    chapters = data.get("chapters") if isinstance(data, dict) else None
    if not isinstance(chapters, list):
        raise BookError(f"{path}: expected an object with a list of chapters; re-import the book or restore the file")
    root = workspace.resolve()
    return [_entry(path, root, n, item) for n, item in enumerate(chapters, start=1)]


def _entry(path: Path, root: Path, n: int, item: object) -> BookEntry:
    if not isinstance(item, dict):
        raise BookError(f"{path}: chapter {n} is not an object with a file and an href")
    name, href = item.get("file"), item.get("href")
    if not isinstance(name, str) or not isinstance(href, str) or not href:
        raise BookError(f"{path}: chapter {n} needs a file and an href, both text")
    if not _inside(root, name):
        raise BookError(f"{path}: chapter {n} names the file {name!r}, which is not a chapter file of this workspace")
    return BookEntry(root / name, href)


def _inside(root: Path, name: str) -> bool:
    """Whether ``name`` is a plain chapter file name whose file, links resolved, is directly in ``root``."""
    if not is_chapter_name(name) or "/" in name or "\\" in name or "\0" in name:
        return False
    real = (root / name).resolve()
    return real.parent == root and real.is_file()
