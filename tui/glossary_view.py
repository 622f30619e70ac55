"""The workspace glossary as the workstation shows it, never read on the event loop.

One ``GlossaryView`` per workspace (``WorkspaceSession.glossary``), over the ``GlossarySource`` that the
workstation's runs share. A look (``current``, ``entries_in``, and the app's ``look`` every second) answers from
the last snapshot at once; when a ``stat`` says the file changed (an edit in another program, a run's proposal),
it asks the app for a reload (``reload_requested``), which reads, parses and indexes the file in a thread worker and
then tells the screens (``GlossaryChanged``). A file that turned invalid keeps the last good glossary (and says
why).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.glossary.source import GlossarySnapshot, GlossarySource
from store.glossary import Glossary, GlossaryEntry
from store.glossary_commit import GlossaryStore
from store.workspace import Workspace


class GlossaryView:
    """The glossary of one workspace: the last snapshot, a reload asked for when the file changed."""

    def __init__(self, workspace: Workspace) -> None:
        self.source = GlossarySource(GlossaryStore(workspace))
        self.store = self.source.store
        # Set by the app: starts its reload worker. Without an app (a script) a look reads the file itself.
        self.reload_requested: Callable[[], object] | None = None
        self._asked = False

    @property
    def snapshot(self) -> GlossarySnapshot:
        """The glossary in use and its index (no I/O: safe from any thread)."""
        return self.source.snapshot

    @property
    def problem(self) -> str | None:
        """Why the file on disk is not the one shown (it turned invalid), or None."""
        return self.source.problem

    def current(self) -> Glossary:
        """The glossary in use; a reload is asked for when the file changed since it was read."""
        self._look()
        return self.source.snapshot.glossary

    def entries_in(self, text: str) -> list[GlossaryEntry]:
        """The entries (with a target) whose source or an alias occurs in ``text``, in order."""
        self._look()
        return self.source.snapshot.entries_in(text)

    def look(self) -> None:
        """Ask for a reload when the file changed since it was read (a ``stat``: cheap enough for a timer)."""
        self._look()

    def reload(self) -> GlossarySnapshot:
        """Read the file again (blocking: the app's reload worker)."""
        self._asked = False  # before the read: a change made during it is noticed at the next look
        return self.source.refresh()

    def change(self, edit: Callable[[Glossary], Glossary]) -> GlossarySnapshot:
        """Apply an edit to the file under its lock and adopt the result (blocking: a worker thread)."""
        return self.source.change(edit)

    def _look(self) -> None:
        if self._asked or not self.source.stale():
            return
        if self.reload_requested is None:
            self.source.refresh()
            return
        self._asked = True
        self.reload_requested()
