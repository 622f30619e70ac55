"""A new workspace folder made by an import: built whole in a hidden sibling folder, then renamed into place.

An import never replaces a folder: the one named must not exist, or be an empty folder (a workspace holds a
person's translations and reviews, which a new import cannot merge). A symbolic link there is refused rather than
followed or replaced. Any failure (a read-only or full file system, a name that is a file) is one sentence, and
leaves nothing behind: neither the staging folder nor the parent folders the import created.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path

from store.atomic import fsync_folder
from store.books.book_file import BOOK_FILE
from store.books.epub_safety import BookError
from store.workspace import STATE_DIR


def refuse_taken(out: Path) -> None:
    """Refuse ``out`` unless it is missing or an empty folder (and not a symbolic link)."""
    try:
        st = os.lstat(out)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise BookError(f"{out}: cannot be looked at: {exc.strerror or exc}") from None
    if stat.S_ISLNK(st.st_mode):
        raise BookError(
            f"{out}: is a symbolic link; an import makes the workspace as a real folder, so remove the link or "
            "choose another -o"
        )
    if not stat.S_ISDIR(st.st_mode):
        raise BookError(f"{out}: already exists and is not a folder; choose another -o")
    if any(out.iterdir()):
        raise BookError(
            f"{out}: already exists and is not empty; an import never replaces a folder (it may hold translations "
            "and reviews), so remove or rename it, or choose another -o"
        )


def _make_parents(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return those created (deepest first) to undo on failure."""
    missing = []
    probe = folder
    while not os.path.lexists(probe) and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    if not probe.is_dir():
        raise BookError(f"{probe}: is not a folder, so the workspace cannot be made inside it")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _remove_empty(missing)
        raise BookError(f"cannot create the folder {folder}: {exc.strerror or exc}") from None
    return missing


def _remove_empty(folders: list[Path]) -> None:
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return  # not empty (someone else's now) or already gone: leave the rest alone


def _write_durable(path: Path, data: bytes) -> None:
    with open(path, "xb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _copy_durable(source: Path, path: Path) -> None:
    shutil.copyfile(source, path)
    with open(path, "rb") as fh:
        os.fsync(fh.fileno())


def _fill_staging(
    staging: Path, chapters: list[tuple[str, bytes]], meta: Mapping[str, object], source: Path | None
) -> None:
    """Write the workspace's files into ``staging``, every one and both folders durable."""
    state = staging / STATE_DIR
    state.mkdir()
    if source is not None:
        _copy_durable(source, state / "source.epub")
    _write_durable(state / BOOK_FILE, (json.dumps(meta, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))
    for name, data in chapters:
        _write_durable(staging / name, data)
    fsync_folder(state)
    fsync_folder(staging)


def write_workspace(
    out: Path, chapters: list[tuple[str, bytes]], meta: Mapping[str, object], source: Path | None = None
) -> None:
    """Create the folder ``out`` with the chapter files and ``.proofdesk/book.json`` (and the source EPUB).

    Raises :class:`BookError` in one sentence when ``out`` is taken or the folder cannot be made; nothing is left.
    """
    refuse_taken(out)
    made = _make_parents(out.parent)
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.importing-", dir=out.parent))
    except OSError as exc:
        _remove_empty(made)
        raise BookError(f"{out}: the workspace cannot be made: {exc.strerror or exc}") from None
    try:
        _fill_staging(staging, chapters, meta, source)
        _into_place(staging, out)
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        _remove_empty(made)
        if isinstance(exc, OSError):
            raise BookError(f"{out}: the workspace cannot be made: {exc.strerror or exc}") from None
        raise


def _into_place(staging: Path, out: Path) -> None:
    """Rename the finished workspace into place (over an empty folder), durably; undone if that fails."""
    if out.exists():
        out.rmdir()
    os.rename(staging, out)
    try:
        fsync_folder(out.parent)
    except OSError:
        shutil.rmtree(out, ignore_errors=True)  # only ever the workspace this import just made
        raise
