"""Merging a batch of AI results onto the chapter as it is on disk now (pure: no I/O).

Rules: if any paragraph's source text changed, or the paragraph is gone, the whole
batch is stale and nothing is applied. A text equal to the selected version's text is ``unchanged``. If
the selection on disk differs from the one the run saw, a person selected or wrote a version since: the AI
version is appended but does not take the selection (manual work wins). Otherwise the version is appended
and selected. The version cap prunes the oldest unselected versions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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

    @classmethod
    def based_on(cls, para: Paragraph, text: str) -> BatchItem:
        """An item whose base is ``para`` as the run saw it (source text and selection)."""
        return cls(para.id, text, para.text, para.selected_translation_id)


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

    ``accepted`` lists every ID that got a new version (including those in ``kept_selection``). When
    ``stale`` is not empty the batch was refused: ``chapter`` is the input unchanged and the other lists
    are empty.
    """

    chapter: Chapter
    accepted: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    kept_selection: tuple[KeptSelection, ...] = ()
    stale: tuple[StaleItem, ...] = ()

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


def merge_batch(
    chapter: Chapter,
    items: Sequence[BatchItem],
    *,
    origin: Origin,
    model: str | None,
    keep_versions: int = DEFAULT_KEEP_VERSIONS,
    created_at: str | None = None,
) -> MergeOutcome:
    """Apply ``items`` onto ``chapter`` under the merge rules; see :class:`MergeOutcome`."""
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
    for item in items:
        pos = positions[item.paragraph_id]
        para = chapter.paragraphs[pos]
        if para.selected_text == item.text:
            unchanged.append(item.paragraph_id)
            continue
        person_chose = para.selected_translation_id != item.base_selected_id
        new_para, version = append_version(
            para, item.text, origin=origin, model=model, select=not person_chose, created_at=stamp
        )
        replacements[pos] = prune_versions(new_para, keep_versions)
        accepted.append(item.paragraph_id)
        if person_chose:
            kept.append(KeptSelection.of(para, item, version.id))
    merged = chapter.with_paragraphs(replacements) if replacements else chapter
    return MergeOutcome(
        chapter=merged, accepted=tuple(accepted), unchanged=tuple(unchanged), kept_selection=tuple(kept)
    )
