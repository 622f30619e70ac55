"""One ``proofdesk export`` as the format writers see it: what to export, where, and the flags that shape it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from store.plaintext import MissingPolicy
from store.workspace import Workspace
from tui.cli_errors import UsageError


@dataclass(frozen=True)
class ExportJob:
    """CHAPTER|WORKSPACE as given, ``-o`` as typed (a trailing ``/`` means a folder: one file per chapter), and the
    flags some formats read (``--missing``, ``--bilingual``, ``--force``)."""

    source: Path
    output: str | None
    format: str
    missing: MissingPolicy = "blank"
    bilingual: bool = False
    force: bool = False

    @property
    def out(self) -> Path | None:
        """``-o`` as a path."""
        return None if self.output is None else Path(self.output)

    @property
    def to_folder(self) -> bool:
        """``-o DIR/`` or an existing folder: one file per chapter."""
        if self.output is None:
            return False
        return self.output.endswith(("/", os.sep)) or Path(self.output).is_dir()

    def chapter_files(self) -> list[Path]:
        """The chapter file, or every chapter file of the workspace folder in order."""
        if not self.source.is_dir():
            return [self.source]
        files = [self.source / p.name for p in Workspace(self.source).chapter_paths()]
        if not files:
            raise UsageError(f"{self.source}: no chapter files in this folder")
        return files
