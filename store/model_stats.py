"""What each model is worth (pure: no I/O): per model and task, what became of its versions in the chapters.

The counts, from what a chapter file holds. Versions are only ever appended, so the order of ``translations`` is
the order they were made in (``created_at`` has one-second steps and comes from several clocks, so it is not used);
the file holds the selection now, not its history.

- ``suggested`` = ``accepted`` + ``rejected`` + ``pending``: the versions that carry a ``status``, by status.
- ``applied``: versions of an AI origin (translation, polish, proofreading) without a status: the run selected them
  itself. A version an older proofdesk appended unselected (a person's selection kept, before suggestions existed)
  cannot be told apart and counts here too.
- ``kept``: applied and selected now.
- ``replaced``: applied and not selected now: another version took the selection (a later one, or an earlier one
  chosen again). ``kept + replaced = applied``.
- ``edited``: replaced, and the version selected now is a ``manual`` one that comes after it in ``translations``: the
  editor rewrote it by hand (other versions may have come in between; the file does not tell).
  ``edited <= replaced``.

``manual`` and ``import`` versions without a status are nobody's model work and count nowhere; versions pruned by
the version cap are gone and count nowhere either.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from store.model import Chapter, Paragraph, TranslationVersion
from store.suggestions import AI_ORIGINS, task_of

_Key = tuple[str | None, str]


@dataclass(frozen=True)
class ModelStats:
    """The counts of one model (None: versions without a model) and task; see the module docstring."""

    model: str | None
    task: str
    suggested: int = 0
    accepted: int = 0
    rejected: int = 0
    pending: int = 0
    applied: int = 0
    kept: int = 0
    edited: int = 0
    replaced: int = 0

    def to_json(self) -> dict[str, Any]:
        """The row as a JSON object, keys in field order."""
        return asdict(self)


_STATUS_COLUMN = {"suggested": "pending", "accepted": "accepted", "rejected": "rejected"}


def _key(version: TranslationVersion) -> _Key:
    return version.model, task_of(version.origin)


def _count_paragraph(counts: defaultdict[_Key, Counter[str]], para: Paragraph) -> None:
    selected = para.selected_translation_id
    # Where the selected version is when it is a manual one: it rewrote every applied version before it.
    manual_at = next(
        (n for n, v in enumerate(para.translations) if v.id == selected and v.origin == "manual"),
        -1,
    )
    for position, version in enumerate(para.translations):
        if version.status is not None:
            counts[_key(version)].update(("suggested", _STATUS_COLUMN[version.status]))
        elif version.origin in AI_ORIGINS:
            counts[_key(version)].update(_applied_columns(version.id == selected, position < manual_at))


def _applied_columns(kept: bool, before_manual_selection: bool) -> tuple[str, ...]:
    if kept:
        return ("applied", "kept")
    return ("applied", "replaced", "edited") if before_manual_selection else ("applied", "replaced")


def _order(row: ModelStats) -> tuple[bool, str, str]:
    """Versions without a model first, then models and tasks by name."""
    return row.model is not None, row.model or "", row.task


def model_stats(chapters: Iterable[Chapter]) -> list[ModelStats]:
    """One row per (model, task) with any version in ``chapters``, summed over them; sorted by model (None first),
    then task."""
    counts: defaultdict[_Key, Counter[str]] = defaultdict(Counter)
    for chapter in chapters:
        for para in chapter.paragraphs:
            _count_paragraph(counts, para)
    rows = [ModelStats(model, task, **counter) for (model, task), counter in counts.items()]
    return sorted(rows, key=_order)
