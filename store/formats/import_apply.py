"""What the units of an exchange file do to a chapter (design section 18), as a pure function run inside
``ChapterStore.update`` (one locked, atomic commit per chapter, on the chapter as it is on disk then).

By paragraph ID, never by position. A target equal to the selected text (or to a pending suggestion) adds nothing; a
different one becomes a version with origin ``import``: selected, or a pending suggestion when the paragraph is
protected (section 16) or ``suggest`` is asked. A unit marked done sets ``reviewed`` when its target is the selected
text; nothing here ever clears it. A unit whose ID the chapter does not know, or whose source is no longer the
chapter's, is skipped and named. When nothing changes the chapter object itself comes back, so nothing is written.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from store.formats.units import ImportUnit
from store.model import Chapter, Paragraph, append_version

Action = Literal["selected", "suggested", "marked", "unchanged"]
SkipReason = Literal["unknown ID", "source changed"]


@dataclass(frozen=True)
class Skipped:
    """A unit that was not applied, and why."""

    paragraph_id: str
    why: SkipReason


@dataclass
class ImportOutcome:
    """The chapter after the units, how many did what, and the units skipped."""

    chapter: Chapter
    counts: dict[Action, int] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)


def apply_units(chapter: Chapter, units: Iterable[ImportUnit], *, suggest: bool, reason: str) -> ImportOutcome:
    """``chapter`` with ``units`` applied; ``reason`` is written on every suggestion (where it came from)."""
    changed: dict[int, Paragraph] = {}
    outcome = ImportOutcome(chapter)
    for unit in units:
        pos = chapter.positions.get(unit.paragraph_id)
        why = _skip(chapter, pos, unit)
        if why is not None:
            outcome.skipped.append(Skipped(unit.paragraph_id, why))
            continue
        assert pos is not None
        para, action = apply_unit(changed.get(pos, chapter.paragraphs[pos]), unit, suggest=suggest, reason=reason)
        outcome.counts[action] = outcome.counts.get(action, 0) + 1
        if action != "unchanged":
            changed[pos] = para
    if changed:
        outcome.chapter = chapter.with_paragraphs(changed)
    return outcome


def _skip(chapter: Chapter, pos: int | None, unit: ImportUnit) -> SkipReason | None:
    if pos is None:
        return "unknown ID"
    return "source changed" if chapter.paragraphs[pos].text != unit.source else None


def apply_unit(para: Paragraph, unit: ImportUnit, *, suggest: bool, reason: str) -> tuple[Paragraph, Action]:
    """One unit on its paragraph: the paragraph after it and what it did."""
    after, action = _with_target(para, unit.target, suggest=suggest, reason=reason)
    if unit.done and unit.target and after.selected_text == unit.target and not after.reviewed:
        return after.replace(reviewed=True), "marked" if action == "unchanged" else action
    return after, action


def _with_target(para: Paragraph, target: str | None, *, suggest: bool, reason: str) -> tuple[Paragraph, Action]:
    if not target or target == para.selected_text or any(v.text == target for v in para.pending):
        return para, "unchanged"
    if suggest or para.protected:
        notes: dict[str, str | None] = {
            "status": "suggested",
            "reason": reason,
            "based_on": para.selected_translation_id,
        }
        return append_version(para, target, origin="import", model=None, select=False, notes=notes)[0], "suggested"
    return append_version(para, target, origin="import", model=None)[0], "selected"
