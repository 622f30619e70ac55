"""The workspace glossary as the workstation shows it: read again whenever the file changed on disk (an edit in
another program, a run's proposal), a file that turned invalid keeping the last good one (and saying why)."""

from __future__ import annotations

import os

from engine.glossary.index import GlossaryIndex
from store.glossary import Glossary, GlossaryEntry, GlossaryLoadError
from store.glossary_commit import GlossaryStore
from store.workspace import Workspace


class GlossaryView:
    """The glossary of one workspace, reloaded when the file's size or time changed (a stat per look)."""

    def __init__(self, workspace: Workspace) -> None:
        self.store = GlossaryStore(workspace)
        self.glossary = Glossary()
        self.problem: str | None = None
        self._seen: tuple[int, int] | None = None
        self._index: GlossaryIndex | None = None

    def current(self) -> Glossary:
        """The glossary, read again if the file changed since the last look."""
        try:
            st = os.stat(self.store.path)
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        if stamp != self._seen or (stamp is None and self.glossary.entries):
            self._seen = stamp
            try:
                fresh = self.store.load()
            except GlossaryLoadError as exc:
                self.problem = exc.line
                return self.glossary
            self.problem = None
            if fresh != self.glossary:
                self.glossary, self._index = fresh, None
        return self.glossary

    def forget(self) -> None:
        """Read the file at the next look (after a change made here)."""
        self._seen = None

    def entries_in(self, text: str) -> list[GlossaryEntry]:
        """The entries (with a target) whose source or an alias occurs in ``text``, in order."""
        glossary = self.current()
        if self._index is None:
            self._index = GlossaryIndex([e for e in glossary.entries if e.target.strip()])
        return self._index.occurring(text)
