"""The chapter files that CHAPTER|WORKSPACE… arguments stand for (``check``, ``review``, ``stats``)."""

from __future__ import annotations

from pathlib import Path

from store.workspace import Workspace
from tui.cli_errors import UsageError


def chapter_files(paths: list[Path]) -> list[Path]:
    """The chapter files the arguments stand for, in order, each once; a folder gives its chapter files."""
    by_key: dict[Path, Path] = {}
    for file in (file for path in paths for file in _files_of(path)):
        by_key.setdefault(file.resolve(), file)  # the first naming of a file wins, in its place
    return list(by_key.values())


def _files_of(path: Path) -> list[Path]:
    """``path`` itself, or the chapter files of the folder ``path``."""
    if not path.is_dir():
        return [path]
    found = [path / p.name for p in Workspace(path).chapter_paths()]
    if not found:
        raise UsageError(f"{path}: no chapter files in this folder")
    return found
