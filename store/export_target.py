"""Where an export may write: the one place that decides, for every export (text, bilingual, markdown, one file
per chapter, EPUB, glossary).

An export never writes onto a chapter file, a glossary or anything under ``.proofdesk/``, whatever the path's
spelling: ``..`` and symbolic links are resolved, the files being exported are compared by identity
(``os.path.samefile``, which also sees hard links and another case on a case-insensitive file system), and the
names that make a file a chapter, a glossary or proofdesk's state are compared casefolded, so ``GLOSSARY.JSON``
or ``.ProofDesk/`` are refused on every file system rather than only on those where they are the same file. An
existing ordinary file is replaced only when the person asked (``force``); a device or a pipe (``/dev/null``,
``/dev/stdout``, ``>(cmd)``) is written directly and never replaced. Every check runs before anything is written.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from store.atomic import CommitError, ConcurrentChange, FileState, atomic_write, file_state
from store.errors import StoreError
from store.workspace import GLOSSARY_NAME, STATE_DIR

Kind = Literal["new", "replace", "stream"]


class ExportRefused(StoreError):
    """An export that may not write where it was asked to: one sentence, nothing written."""


@dataclass(frozen=True)
class ExportTarget:
    """A checked place to write an export: a new file, an existing file to replace, or a device/pipe."""

    path: Path
    kind: Kind
    state: FileState | None = None  # the file as checked, for a replacement: changed since means refused

    @property
    def replaces(self) -> bool:
        """Whether writing replaces an existing file (the person is told)."""
        return self.kind == "replace"


def _refuse(path: Path, why: str, doing: str = "export") -> ExportRefused:
    return ExportRefused(f"refusing to {doing} to {path}: {why}")


def _chapter_like(name: str) -> bool:
    # The workstation lists every visible *.json of a folder (but the glossary) as a chapter.
    folded = name.casefold()
    return folded.endswith(".json") and not name.startswith(".") and folded != GLOSSARY_NAME


def in_state_dir(path: Path) -> bool:
    """Whether ``path`` is inside a ``.proofdesk/`` folder, however it is spelled."""
    # Both spellings: the normalised one (WS/.proofdesk/../x is WS/x) and the resolved one (a link into .proofdesk).
    spelled = Path(os.path.normpath(os.path.abspath(path)))
    return any(part.casefold() == STATE_DIR for p in (spelled, path.resolve()) for part in p.parts)


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are the same file (False when either does not exist)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _is_workspace(folder: Path, sources: Iterable[Path]) -> bool:
    """Whether ``folder`` holds chapters: a new ``*.json`` there would be listed as one."""
    if any(same_file(folder, s.parent) for s in sources) or os.path.lexists(folder / STATE_DIR):
        return True
    try:
        return any(_chapter_like(entry.name) for entry in os.scandir(folder))
    except OSError:
        return False


def refuse_own_files(path: Path, *, doing: str = "export") -> None:
    """Refuse ``path`` if it is inside a ``.proofdesk`` folder or is a workspace's glossary, in any spelling: no
    command but the glossary's own ever writes there (``doing`` names the command in the sentence)."""
    if in_state_dir(path):
        raise _refuse(path, f"it is inside a {STATE_DIR} folder, where proofdesk keeps its own state", doing)
    if GLOSSARY_NAME in {path.name.casefold(), path.resolve().name.casefold()}:
        raise _refuse(path, "it is a workspace's glossary, which only the glossary commands change", doing)


def _refuse_protected(path: Path, sources: list[Path]) -> None:
    """Refuse a target that is, or would become, one of the workspace's own files."""
    refuse_own_files(path)
    if any(same_file(path, s) for s in sources):
        raise _refuse(path, "it is the file being exported")
    real = path.resolve()
    if not any(_chapter_like(n) for n in (path.name, real.name)):
        return
    if os.path.lexists(path) and not _glossary_export(real):
        raise _refuse(
            path,
            "it is a .json file other than a glossary export, so possibly a chapter, which an export never replaces",
        )
    if not os.path.lexists(path) and _is_workspace(real.parent, sources):
        raise _refuse(path, "a .json file in a folder of chapters would be listed as a chapter")


# What ``glossary export --format json`` writes first: such a file is an earlier export, not a chapter.
_GLOSSARY_EXPORT = re.compile(rb'\A\s*\{\s*"format"\s*:\s*"proofdesk\.glossary/')


def _glossary_export(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            head = fh.read(256)
    except OSError:
        return False
    return _GLOSSARY_EXPORT.match(head) is not None


def _stream(path: Path) -> bool:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def check_target(path: Path, *, sources: Iterable[Path] = (), force: bool = False) -> ExportTarget:
    """Whether an export may write ``path``: the checked target, or :class:`ExportRefused` naming why not.

    ``sources`` are the files the export reads (its chapters, the glossary); they and every chapter, glossary and
    ``.proofdesk`` file are refused in any spelling. An existing ordinary file needs ``force``.
    """
    path = Path(path)
    known = [Path(s) for s in sources]
    if _stream(path) and not in_state_dir(path):
        return ExportTarget(path, "stream")
    _refuse_protected(path, known)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return _new_file(path)
    except OSError as exc:
        raise _refuse(path, f"it cannot be looked at ({exc.strerror or exc})") from None
    return _existing(path, st.st_mode, force)


def _existing(path: Path, mode: int, force: bool) -> ExportTarget:
    """An existing ordinary file, replaced only with ``force``; a link or a folder never."""
    if stat.S_ISLNK(mode):
        raise _refuse(path, "it is a symbolic link, which would become a plain file; write to the file it points to")
    if stat.S_ISDIR(mode):
        raise _refuse(path, "it is a folder; name the file to write")
    if not stat.S_ISREG(mode):
        raise _refuse(path, "it is neither a file, a device nor a pipe")
    if not force:
        raise _refuse(path, "it already exists; pass --force to replace it")
    return ExportTarget(path, "replace", file_state(path))


def _new_file(path: Path) -> ExportTarget:
    folder = Path(os.path.abspath(path)).parent
    if not folder.is_dir():
        raise ExportRefused(f"cannot export to {path}: the folder {folder} does not exist")
    return ExportTarget(path, "new")


def check_folder(
    folder: Path, names: Iterable[str], *, sources: Iterable[Path] = (), force: bool = False
) -> list[ExportTarget]:
    """The targets of one file per chapter in ``folder`` (which may not exist yet), every one checked before any
    is written; the folder itself must not be, or be inside, a ``.proofdesk`` folder."""
    folder = Path(folder)
    known = [Path(s) for s in sources]
    if in_state_dir(folder):
        raise _refuse(folder, f"it is inside a {STATE_DIR} folder, where proofdesk keeps its own state")
    if os.path.lexists(folder) and not folder.is_dir():
        raise _refuse(folder, "it is not a folder")
    if not folder.exists():
        return [ExportTarget(folder / name, "new") for name in names]
    return [check_target(folder / name, sources=known, force=force) for name in names]


def make_folder(folder: Path) -> None:
    """Create the folder of a one-file-per-chapter export (and its parents); one sentence if it cannot be."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExportRefused(f"cannot create the folder {folder}: {exc.strerror or exc}") from None


def write_target(target: ExportTarget, data: bytes, *, on_terminal: bytes | None = None) -> None:
    """Write ``data`` to a checked target: atomically for a file (a replaced file must still be the one checked),
    directly for a device or a pipe. A stream that is a terminal gets ``on_terminal`` instead (text made safe to
    show), or is refused when there is none (a binary export). Raises :class:`StoreError` in one sentence; a file
    target is then unchanged and no temp is left."""
    if target.kind == "stream":
        _write_stream(target.path, data, on_terminal)
        return
    try:
        atomic_write(target.path, data, expect=target.state)
    except ConcurrentChange:
        raise ExportRefused(f"{target.path} changed while it was being exported; nothing was written") from None
    except CommitError as exc:
        raise ExportRefused(f"could not write {target.path}: {exc.reason}") from None


def _write_stream(path: Path, data: bytes, on_terminal: bytes | None) -> None:
    try:
        with open(path, "wb") as stream:
            if stream.isatty():
                if on_terminal is None:
                    raise ExportRefused(f"refusing to export to {path}: it is a terminal, and this export is binary")
                data = on_terminal
            stream.write(data)
    except OSError as exc:
        raise ExportRefused(f"could not write {path}: {exc.strerror or exc}") from None
