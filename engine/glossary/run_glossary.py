"""The glossary as a run sees it: reloaded at the start of every chunk (a person's edits and the model's proposals
are in the next chunk's message), searched and extended by the model's tools, committed through the store."""

from __future__ import annotations

from engine.checks.glossary import GlossaryTerm
from engine.glossary.index import GlossaryIndex, glossary_section
from engine.glossary.source import GlossarySource, terms_of
from store.glossary import Glossary, GlossaryEntry, GlossaryLoadError, new_entry_id
from store.glossary_commit import GlossaryStore, add_entry
from store.glossary_read import entry_from


class RunGlossary:
    """One run's view of the workspace glossary (a ``GlossarySource``, shared with the workstation's views when
    the run is the workstation's)."""

    def __init__(self, source: GlossarySource | GlossaryStore | None, *, model: str | None = None) -> None:
        self.source = GlossarySource(source) if isinstance(source, GlossaryStore) else source
        self.model = model
        if self.source is not None:
            self.source.refresh(strict=True)  # a broken file at the start is the run's bad input: raised

    @property
    def glossary(self) -> Glossary:
        """The glossary in use."""
        return self.source.snapshot.glossary if self.source is not None else Glossary()

    @property
    def problem(self) -> str | None:
        """Why the file on disk is not the one in use (it turned invalid), or None."""
        return self.source.problem if self.source is not None else None

    def reload(self) -> None:
        """Read the file again; a file that turned invalid keeps the last good glossary (and says why)."""
        if self.source is not None:
            self.source.refresh()

    @property
    def index(self) -> GlossaryIndex:
        """The automaton of the current entries (built once per glossary version)."""
        return self.source.snapshot.index if self.source is not None else GlossaryIndex([])

    def section(self, text: str) -> str:
        """The chunk message's glossary lines for a chunk whose source text is ``text``."""
        return glossary_section(self.index.occurring(text))

    def approved_terms(self) -> tuple[GlossaryTerm, ...]:
        """The approved entries, as the checks use them (a proposal is not a rule yet)."""
        return self.source.snapshot.approved_terms if self.source is not None else ()

    @staticmethod
    def terms_of(glossary: Glossary) -> tuple[GlossaryTerm, ...]:
        """The approved entries of ``glossary`` (with a target) as the checks' terms."""
        return terms_of(glossary)

    def search(self, query: str, max_results: int) -> list[GlossaryEntry]:
        """Entries whose source, target or an alias contains ``query`` (Latin letters case-insensitively)."""
        if self.source is None:
            return []
        return self.source.snapshot.search_text.find(query, max_results)

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
        entry = entry_from(
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
        if self.source is None:
            raise GlossaryLoadError("this run has no workspace glossary to write to")
        before = self.source.refresh().glossary.by_source(entry.source)
        kept = self.source.change(add_entry(entry)).glossary.by_source(entry.source) or entry
        return kept, before is None or not before.target.strip()
