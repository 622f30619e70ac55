"""``proofdesk run WORKSPACE``: a folder argument stands for its chapters in book order (``store.chapter_order``:
``.proofdesk/book.json``, else natural order of the names, ``ch2`` before ``ch10``)."""

from __future__ import annotations

from pathlib import Path

from store.workspace import Workspace
from tui.cli_errors import UsageError


def expand_workspaces(paths: list[Path]) -> list[Path]:
    """Each folder in ``paths`` replaced by its chapter files in book order (``Workspace.chapter_paths``)."""
    return [chapter for chapter, _ in with_previous(paths)]


def with_previous(paths: list[Path]) -> list[tuple[Path, Path | None]]:
    """Each chapter with the one before it in its workspace folder (for the context of its start), or None: a
    chapter named on its own, and a folder's first chapter, have none."""
    out: list[tuple[Path, Path | None]] = []
    for path in paths:
        if not path.is_dir():
            out.append((path, None))
            continue
        found = [path / p.name for p in Workspace(path).chapter_paths()]
        if not found:
            raise UsageError(f"{path}: a folder with no chapter files (*.json) to run")
        out.extend(zip(found, [None, *found[:-1]], strict=True))
    return out
