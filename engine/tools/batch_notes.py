"""What a batch item says about its change: ``reason`` (one sentence) and ``category``, read leniently.

They never refuse a batch: a reason over the limit is cut (``REASON_TOO_LONG``), an unknown category is kept as
``other`` (``UNKNOWN_CATEGORY``); each such warning goes back to the model in the result's ``warnings``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from store.model import CATEGORIES, MAX_REASON_CHARS


@dataclass(frozen=True, slots=True)
class ItemNotes:
    """An item's reason and category as they are stored, and the warnings reading them gave."""

    reason: str | None = None
    category: str | None = None
    warnings: tuple[dict[str, str], ...] = ()


NO_NOTES = ItemNotes()


def _warning(paragraph_id: str, code: str, message: str) -> dict[str, str]:
    return {"paragraph_id": paragraph_id, "code": code, "message": message}


def _reason(paragraph_id: str, value: Any, warnings: list[dict[str, str]]) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None  # left out (or not text): a reason is optional
    reason = value.strip()
    if len(reason) > MAX_REASON_CHARS:
        warnings.append(
            _warning(
                paragraph_id,
                "REASON_TOO_LONG",
                f"the reason was {len(reason)} characters and was cut to {MAX_REASON_CHARS}; give one sentence",
            )
        )
        reason = reason[:MAX_REASON_CHARS]
    return reason


def _category(paragraph_id: str, value: Any, warnings: list[dict[str, str]]) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    word = value.strip().lower() if isinstance(value, str) else None
    if word in CATEGORIES:
        return word
    warnings.append(
        _warning(
            paragraph_id,
            "UNKNOWN_CATEGORY",
            f"category {str(value)[:40]!r} is not one of {', '.join(CATEGORIES)}; it was stored as 'other'",
        )
    )
    return "other"


def item_notes(paragraph_id: str, item: dict[str, Any]) -> ItemNotes:
    """The reason and category of one batch item (``NO_NOTES`` when it gives neither)."""
    if "reason" not in item and "category" not in item:
        return NO_NOTES
    warnings: list[dict[str, str]] = []
    reason = _reason(paragraph_id, item.get("reason"), warnings)
    category = _category(paragraph_id, item.get("category"), warnings)
    return ItemNotes(reason, category, tuple(warnings))
