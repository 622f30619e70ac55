"""``proofdesk run WORKSPACE``: a folder argument stands for its chapters in file-name order."""

from __future__ import annotations

from pathlib import Path

from store.workspace import Workspace
from tui.cli_errors import UsageError


def expand_workspaces(paths: list[Path]) -> list[Path]:
    """Each folder in ``paths`` replaced by its chapter files in file-name order (ch001.json… = book order)."""
    out: list[Path] = []
    for path in paths:
        if not path.is_dir():
            out.append(path)
            continue
        found = [path / p.name for p in Workspace(path).chapter_paths()]
        if not found:
            raise UsageError(f"{path}: a folder with no chapter files (*.json) to run")
        out.extend(found)
    return out
