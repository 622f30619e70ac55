"""The review queue of a chapter (pure: no I/O): its pending suggestions in chapter order, as typed records.

A suggestion is a version with ``status: suggested`` (see :mod:`store.model`); this module only reads them.
Choosing which ones an ID or a filter names, and accepting or rejecting them, is :mod:`store.review_decisions`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from store.model import Chapter, Paragraph, TranslationVersion

# The run task that writes versions of each AI origin; ``manual`` and ``import`` are no task and keep their word.
_TASK_OF_ORIGIN = {"translation": "translate", "polish": "polish", "proofreading": "proofread"}
AI_ORIGINS = frozenset(_TASK_OF_ORIGIN)


def task_of(origin: str) -> str:
    """The task name of a version's origin: ``translate`` | ``polish`` | ``proofread``, else the origin itself."""
    return _TASK_OF_ORIGIN.get(origin, origin)


@dataclass(frozen=True)
class PendingSuggestion:
    """One pending suggestion where it stands in its chapter (``paragraph_index`` is 1-based, empty paragraphs
    counted), with the paragraph's selected text now and whether the suggestion is ``outdated``."""

    paragraph_index: int
    paragraph_id: str
    version_id: str
    selected_text: str | None
    text: str
    reason: str | None
    category: str | None
    model: str | None
    task: str
    created_at: str
    based_on: str | None
    outdated: bool

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON object, keys in field order."""
        return asdict(self)


def is_outdated(para: Paragraph, version: TranslationVersion) -> bool:
    """True when the paragraph's selected version is no longer the one the model read (``based_on``).

    A suggestion made for a paragraph without a translation (``based_on`` null) is outdated once one is selected.
    """
    return para.selected_translation_id != version.based_on


def _record(index: int, para: Paragraph, version: TranslationVersion) -> PendingSuggestion:
    return PendingSuggestion(
        paragraph_index=index,
        paragraph_id=para.id,
        version_id=version.id,
        selected_text=para.selected_text,
        text=version.text,
        reason=version.reason,
        category=version.category,
        model=version.model,
        task=task_of(version.origin),
        created_at=version.created_at,
        based_on=version.based_on,
        outdated=is_outdated(para, version),
    )


def pending_suggestions(chapter: Chapter) -> list[PendingSuggestion]:
    """Every pending suggestion of ``chapter`` in chapter order: paragraph order, then the order of its versions."""
    return [
        _record(index, para, version)
        for index, para in enumerate(chapter.paragraphs, start=1)
        for version in para.pending
    ]


def _moment(created_at: str) -> datetime | None:
    """``created_at`` as an aware time (a zoneless one taken as UTC), or None when it is no ISO 8601 time."""
    try:
        moment = datetime.fromisoformat(created_at)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _age(position: int, version: TranslationVersion) -> tuple[bool, datetime, int]:
    moment = _moment(version.created_at)
    return (moment is not None, moment or datetime.min.replace(tzinfo=UTC), position)


def pending_by_age(para: Paragraph) -> list[TranslationVersion]:
    """The paragraph's pending suggestions from the oldest to the newest.

    Newer is a later ``created_at``, compared as times (imported files may write fractions or offsets, which do
    not sort as strings); on a tie, the later one in ``translations``. A ``created_at`` that is no time counts as
    older than any that is.
    """
    return [version for position, version in sorted(enumerate(para.pending), key=lambda pv: _age(*pv))]


def newest_pending(para: Paragraph) -> TranslationVersion | None:
    """The paragraph's newest pending suggestion (see :func:`pending_by_age`), the one its paragraph ID stands for;
    None when it has none."""
    ordered = pending_by_age(para)
    return ordered[-1] if ordered else None


def filtered(
    suggestions: Iterable[PendingSuggestion], *, category: str | None = None, model: str | None = None
) -> list[PendingSuggestion]:
    """The suggestions of ``category`` and ``model`` (exact matches; None: any), in their order."""
    return [
        s for s in suggestions if (category is None or s.category == category) and (model is None or s.model == model)
    ]
