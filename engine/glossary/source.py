"""One workspace's glossary, parsed once per change of the file and shared by everyone who reads it.

A ``GlossarySource`` holds the latest ``GlossarySnapshot``: the parsed glossary, its Aho–Corasick index and the
approved terms the checks use (with their automata), built together in the thread that parsed the file and never
changed afterwards (a new snapshot object exactly when the entries changed; the approved terms a new object exactly
when they changed, so the checks look again only then). Reading ``snapshot`` does no I/O,
so an event loop (the workstation's) may read it at any time; ``refresh`` and ``change`` read, parse or write the
file and belong in a worker thread or a headless run. The workstation's views and its runs share one source per
workspace, so a change is parsed once, whoever notices it first.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from engine.checks.glossary import GlossaryTerm, GlossaryTerms
from engine.glossary.index import GlossaryIndex
from engine.glossary.search_text import SearchText
from store.glossary import Glossary, GlossaryEntry, GlossaryLoadError
from store.glossary_commit import GlossaryStore

Stamp = tuple[int, int] | None  # (mtime_ns, size) of the file, None when there is none


@dataclass(frozen=True, eq=False)
class GlossarySnapshot:
    """A glossary as read at one moment, with what is derived from it (built on first use, then kept)."""

    glossary: Glossary = field(default_factory=Glossary)
    terms: GlossaryTerms | None = field(default=None, repr=False)  # the approved terms, when made already

    @cached_property
    def index(self) -> GlossaryIndex:
        """The automaton of the entries with a target (a candidate from ``extract`` is not shown)."""
        return GlossaryIndex([e for e in self.glossary.entries if e.target.strip()])

    @cached_property
    def search_text(self) -> SearchText:
        """The entries' fields folded into one text, for ``search_glossary`` (built on its first call)."""
        return SearchText(self.glossary.entries)

    @cached_property
    def approved_terms(self) -> GlossaryTerms:
        """The approved entries with a target, as the checks use them (a proposal is not a rule yet)."""
        return terms_of(self.glossary) if self.terms is None else self.terms

    def entries_in(self, text: str) -> list[GlossaryEntry]:
        """The entries (with a target) whose source or an alias occurs in ``text``, in order of first mention."""
        return self.index.occurring(text)

    def built(self) -> GlossarySnapshot:
        """The snapshot with its index and terms made now (call off the event loop: 100,000 entries take ~1 s)."""
        _ = self.index, self.approved_terms.prepared()
        return self


def terms_of(glossary: Glossary) -> GlossaryTerms:
    """The approved entries of ``glossary`` (with a target) as the checks' terms."""
    return GlossaryTerms(
        GlossaryTerm(e.source, e.target, e.aliases, e.target_aliases)
        for e in glossary.entries
        if e.status == "approved" and e.target.strip()
    )


class GlossarySource:
    """The glossary of one workspace: the latest snapshot, and the file it comes from."""

    def __init__(self, store: GlossaryStore) -> None:
        self.store = store
        self.snapshot = GlossarySnapshot()
        self.problem: str | None = None  # why the file on disk is not the one in use (it turned invalid)
        self.read_stamp: Stamp = None  # the file's stamp when it was last read
        self._lock = threading.Lock()  # one reader or writer of the file (and of the store's parse cache) at a time

    def stamp(self) -> Stamp:
        """The file's modification time and size now (a ``stat``, no read)."""
        try:
            st = os.stat(self.store.path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size)

    def stale(self) -> bool:
        """Whether the file changed since the snapshot was read (cheap enough for an event loop)."""
        return self.stamp() != self.read_stamp

    def refresh(self, *, strict: bool = False) -> GlossarySnapshot:
        """Read the file again (blocking: a worker thread or a headless run) and return the snapshot now in use.

        The same entries as last time give the same snapshot. A file that turned invalid keeps the last good
        glossary and says why in ``problem``; with ``strict`` it raises ``GlossaryLoadError`` instead (a run's bad
        input)."""
        with self._lock:
            self.read_stamp = self.stamp()
            try:
                glossary = self.store.load()
            except GlossaryLoadError as exc:
                if strict:
                    raise
                self.problem = exc.line
                return self.snapshot
            self._adopt(glossary)
            return self.snapshot

    def change(self, edit: Callable[[Glossary], Glossary]) -> GlossarySnapshot:
        """Apply ``edit`` to the file under its lock (``GlossaryStore.change``; blocking) and return the new
        snapshot; raises what the change raises."""
        with self._lock:
            glossary = self.store.change(edit)
            self.read_stamp = self.stamp()
            self._adopt(glossary)
            return self.snapshot

    def _adopt(self, glossary: Glossary) -> None:
        self.problem = None
        old = self.snapshot.glossary
        if glossary is not old and glossary != old:
            self.snapshot = GlossarySnapshot(glossary, self._terms(glossary)).built()

    def _terms(self, glossary: Glossary) -> GlossaryTerms:
        """The approved terms of ``glossary``: the same object as before when they did not change (a proposal, a
        note), so their automata are kept and the checks see no change."""
        terms, before = terms_of(glossary), self.snapshot.approved_terms
        return before if terms == before else terms
