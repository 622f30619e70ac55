"""The glossary source's snapshots: the approved terms the checks use are a new object exactly when they changed
(the chapter views check again only then), with their automata built in the thread that read the file."""

from __future__ import annotations

from pathlib import Path

from engine.checks.glossary import GlossaryTerm, GlossaryTerms
from engine.glossary.source import GlossarySource
from store.glossary import GlossaryEntry
from store.glossary_commit import GlossaryStore, add_entry, approve_entries, update_entry
from store.workspace import Workspace


def test_the_approved_terms_change_only_with_the_approved_entries(tmp_path: Path) -> None:
    source = GlossarySource(GlossaryStore(Workspace(tmp_path)))
    first = source.change(add_entry(GlossaryEntry(id="e1", source="下人", target="the servant"))).approved_terms
    assert isinstance(first, GlossaryTerms) and list(first) == [GlossaryTerm("下人", "the servant")]
    old_woman = GlossaryEntry(id="e2", source="老婆", target="the old woman", status="proposed")
    proposed = source.change(add_entry(old_woman))
    assert proposed.approved_terms is first  # a proposal is no rule: the same terms, the same automata
    assert source.change(update_entry("e1", note="the protagonist")).approved_terms is first
    approved = source.change(approve_entries(["e2"])).approved_terms
    assert approved is not first and [t.source for t in approved] == ["下人", "老婆"]
    aliased = source.change(update_entry("e2", target_aliases=["the crone"])).approved_terms
    assert aliased[1] == GlossaryTerm("老婆", "the old woman", target_aliases=("the crone",))
