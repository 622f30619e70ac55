"""Merging a batch of AI results onto the chapter as it is on disk now (pure: no I/O).

Rules: if any paragraph's source text changed, or the paragraph is gone, the whole
batch is stale and nothing is applied. A text equal to the selected version's text, or to a pending suggestion's,
is ``unchanged``. The AI version becomes a **suggestion** (appended, never selected) when the paragraph is
protected (reviewed, or its selected text written by hand), when the run applies nothing (``apply=False``), or
when the selection on disk differs from the one the run saw (a person selected or wrote a version since: manual
work wins). Otherwise the version is appended and selected. The version cap prunes the oldest unselected versions
that are not pending suggestions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from store.model import Chapter, Origin, Paragraph, append_version, first_repeated, prune_versions, utc_now

DEFAULT_KEEP_VERSIONS = 20
KEEP_VERSIONS_MAX = 1000


def check_keep_versions(keep_versions: int) -> int:
    """``keep_versions`` if it is a usable cap: 0 (no cap) or 2 to ``KEEP_VERSIONS_MAX``.

    With a cap of 1 a version appended unselected (a person's selection kept) would be pruned at once: lost.
    """
    if keep_versions != 0 and not 2 <= keep_versions <= KEEP_VERSIONS_MAX:
        raise ValueError(f"keep_versions must be 0 (no cap) or 2 to {KEEP_VERSIONS_MAX}, got {keep_versions}")
    return keep_versions


@dataclass(frozen=True)
class BatchItem:
    """One result of a run: the new text and the state of the paragraph the run based it on."""

    paragraph_id: str
    text: str
    base_source: str
    base_selected_id: str | None
    reason: str | None = None  # why the model made the change (kept on the version)
    category: str | None = None

    @classmethod
    def based_on(
        cls, para: Paragraph, text: str, *, reason: str | None = None, category: str | None = None
    ) -> BatchItem:
        """An item whose base is ``para`` as the run saw it (source text and selection)."""
        return cls(para.id, text, para.text, para.selected_translation_id, reason, category)


# Why a submission became a suggestion: the paragraph is a person's (reviewed or hand-written), the run applies
# nothing (``--suggest``, a proofread by default), or a person chose another version while the run worked.
SuggestedWhy = Literal["protected", "suggest_mode", "selection_changed"]


@dataclass(frozen=True)
class Suggested:
    """A submission stored as a pending suggestion, and why it was not selected."""

    paragraph_id: str
    version_id: str
    why: SuggestedWhy


@dataclass(frozen=True)
class StaleItem:
    """A batch item whose paragraph changed source text (or disappeared) since the run read it."""

    paragraph_id: str
    base_source: str
    current_source: str | None  # None: the paragraph is gone


@dataclass(frozen=True)
class KeptSelection:
    """An AI version appended without taking the selection, because a person's selection differs."""

    paragraph_id: str
    version_id: str
    base_selected_id: str | None
    current_selected_id: str | None
    current_selected_text: str | None

    @classmethod
    def of(cls, para: Paragraph, item: BatchItem, version_id: str) -> KeptSelection:
        """What was kept when ``item``'s version ``version_id`` went into ``para`` without its selection."""
        return cls(
            item.paragraph_id, version_id, item.base_selected_id, para.selected_translation_id, para.selected_text
        )


@dataclass(frozen=True)
class MergeOutcome:
    """The merged chapter and what happened to each item.

    ``accepted`` lists every ID that got a new version (including those in ``suggested``, and the
    ``kept_selection`` ones, which are suggestions too). When ``stale`` is not empty the batch was refused:
    ``chapter`` is the input unchanged and the other lists are empty.
    """

    chapter: Chapter
    accepted: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    kept_selection: tuple[KeptSelection, ...] = ()
    stale: tuple[StaleItem, ...] = ()
    suggested: tuple[Suggested, ...] = ()

    @property
    def changed(self) -> bool:
        """Whether the chapter must be written."""
        return bool(self.accepted)


def find_stale(chapter: Chapter, items: Sequence[BatchItem]) -> tuple[StaleItem, ...]:
    """The items whose paragraph is gone or whose source text differs from the item's base."""
    stale: list[StaleItem] = []
    for item in items:
        para = chapter.paragraph(item.paragraph_id)
        if para is None or para.text != item.base_source:
            stale.append(StaleItem(item.paragraph_id, item.base_source, None if para is None else para.text))
    return tuple(stale)


def _suggested_why(para: Paragraph, item: BatchItem, apply: bool) -> SuggestedWhy | None:
    if para.selected_translation_id != item.base_selected_id:
        return "selection_changed"
    if para.protected:
        return "protected"
    return None if apply else "suggest_mode"


def _notes(item: BatchItem, why: SuggestedWhy | None) -> dict[str, str | None]:
    """The new version's optional keys: the model's reason and category; a suggestion's status and base too."""
    notes = {"reason": item.reason, "category": item.category}
    if why is not None:
        notes.update(status="suggested", based_on=item.base_selected_id)
    return notes


def _unchanged(para: Paragraph, text: str) -> bool:
    """The text is already there: the selected one, or a suggestion still waiting for the editor."""
    return para.selected_text == text or any(v.text == text for v in para.pending)


def merge_batch(
    chapter: Chapter,
    items: Sequence[BatchItem],
    *,
    origin: Origin,
    model: str | None,
    keep_versions: int = DEFAULT_KEEP_VERSIONS,
    created_at: str | None = None,
    apply: bool = True,
) -> MergeOutcome:
    """Apply ``items`` onto ``chapter`` under the merge rules; see :class:`MergeOutcome`.

    ``apply=False`` stores every new text as a suggestion; with ``apply=True`` only protected paragraphs (and
    those whose selection a person changed) get one.
    """
    check_keep_versions(keep_versions)
    twice = first_repeated(item.paragraph_id for item in items)
    if twice is not None:
        # The tool rejects duplicates before a commit; reaching here is a programming error.
        raise ValueError(f"paragraph {twice!r} appears twice in one batch")
    stale = find_stale(chapter, items)
    if stale:
        return MergeOutcome(chapter=chapter, stale=stale)

    stamp = created_at or utc_now()
    positions = chapter.positions
    replacements: dict[int, Paragraph] = {}
    accepted: list[str] = []
    unchanged: list[str] = []
    kept: list[KeptSelection] = []
    suggested: list[Suggested] = []
    for item in items:
        pos = positions[item.paragraph_id]
        para = chapter.paragraphs[pos]
        if _unchanged(para, item.text):
            unchanged.append(item.paragraph_id)
            continue
        why = _suggested_why(para, item, apply)
        new_para, version = append_version(
            para, item.text, origin=origin, model=model, select=why is None, created_at=stamp, notes=_notes(item, why)
        )
        replacements[pos] = prune_versions(new_para, keep_versions)
        accepted.append(item.paragraph_id)
        if why is not None:
            suggested.append(Suggested(item.paragraph_id, version.id, why))
        if why == "selection_changed":
            kept.append(KeptSelection.of(para, item, version.id))
    merged = chapter.with_paragraphs(replacements) if replacements else chapter
    return MergeOutcome(
        chapter=merged,
        accepted=tuple(accepted),
        unchanged=tuple(unchanged),
        kept_selection=tuple(kept),
        suggested=tuple(suggested),
    )
