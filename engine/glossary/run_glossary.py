"""The glossary as a run sees it: reloaded at the start of every chunk (a person's edits and the model's proposals
are in the next chunk's message), searched and extended by the model's tools, committed through the store."""

from __future__ import annotations

from engine.checks.glossary import GlossaryTerm
from engine.glossary.index import GlossaryIndex, fold, glossary_section
from store.glossary import Glossary, GlossaryEntry, GlossaryLoadError, new_entry_id
from store.glossary_commit import GlossaryStore, add_entry


class RunGlossary:
    """One run's view of the workspace glossary."""

    def __init__(self, store: GlossaryStore | None, *, model: str | None = None) -> None:
        self.store = store
        self.model = model
        self.glossary = Glossary()
        self.problem: str | None = None  # why the file on disk is not the one in use (it turned invalid)
        self._index: GlossaryIndex | None = None
        if store is not None:
            self.glossary = store.load()  # a broken file at the start is the run's bad input: raised

    def reload(self) -> None:
        """Read the file again; a file that turned invalid keeps the last good glossary (and says why)."""
        if self.store is None:
            return
        try:
            fresh = self.store.load()
        except GlossaryLoadError as exc:
            self.problem = exc.line
            return
        self.problem = None
        if fresh is not self.glossary and fresh != self.glossary:
            self.glossary, self._index = fresh, None

    @property
    def index(self) -> GlossaryIndex:
        """The automaton of the current entries (built once per glossary version)."""
        if self._index is None:  # a candidate without a target yet (from extract) is not shown to the model
            self._index = GlossaryIndex([e for e in self.glossary.entries if e.target.strip()])
        return self._index

    def section(self, text: str) -> str:
        """The chunk message's glossary lines for a chunk whose source text is ``text``."""
        return glossary_section(self.index.occurring(text))

    def approved_terms(self) -> tuple[GlossaryTerm, ...]:
        """The approved entries, as the checks use them (a proposal is not a rule yet)."""
        return self.terms_of(self.glossary)

    @staticmethod
    def terms_of(glossary: Glossary) -> tuple[GlossaryTerm, ...]:
        """The approved entries of ``glossary`` (with a target) as the checks' terms."""
        return tuple(
            GlossaryTerm(e.source, e.target, e.aliases)
            for e in glossary.entries
            if e.status == "approved" and e.target.strip()
        )

    def search(self, query: str, max_results: int) -> list[GlossaryEntry]:
        """Entries whose source, target or an alias contains ``query`` (Latin letters case-insensitively)."""
        needle = fold(query.strip())
        return [e for e in self.glossary.entries if any(needle in fold(t) for t in (e.source, e.target, *e.aliases))][
            :max_results
        ]

    def propose(
        self,
        source: str,
        target: str,
        *,
        kind: str = "term",
        note: str = "",
        aliases: tuple[str, ...] = (),
        gender: str | None = None,
    ) -> tuple[GlossaryEntry, bool]:
        """Add a ``proposed`` entry (committed to the file at once); returns it and whether it is new. Raises
        ``GlossaryConflict`` when the source is there with another target."""
        entry = GlossaryEntry.model_validate(
            {
                "id": new_entry_id(),
                "source": source.strip(),
                "target": target.strip(),
                "kind": kind,
                "note": note,
                "aliases": [a.strip() for a in aliases if a.strip()],
                "status": "proposed",
                "origin": "model",
                "model": self.model,
                "gender": gender,
            }
        )
        if self.store is None:
            raise GlossaryLoadError("this run has no workspace glossary to write to")
        before = self.store.load().by_source(entry.source)
        self.glossary = self.store.change(add_entry(entry))
        self._index = None
        kept = self.glossary.by_source(entry.source) or entry
        return kept, before is None or not before.target.strip()
