"""The editor's decisions about suggestions (pure: no I/O): which pending suggestions the IDs and filters of a
review name across the chapters given, and those decisions applied to one chapter.

Everything is resolved on the chapters as read, before anything is written: an ID that names no pending
suggestion is reported with why, so the caller can write nothing at all. :func:`apply_decisions` then runs inside
``ChapterStore.update`` (one locked, atomic commit per chapter) on the chapter as it is on disk at that moment.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from store.edits import EditError, accept, reject
from store.model import Chapter, Paragraph
from store.suggestions import filtered, newest_pending, pending_by_age, pending_suggestions

Verdict = Literal["accepted", "rejected"]


@dataclass(frozen=True)
class Target:
    """One pending suggestion: the chapter (its position among those given), the paragraph (1-based index and
    ID) and the version."""

    chapter: int
    paragraph_index: int
    paragraph_id: str
    version_id: str


@dataclass(frozen=True)
class Decision:
    """Accept or reject one suggestion."""

    target: Target
    verdict: Verdict


@dataclass(frozen=True)
class Unresolved:
    """An ID that names no single pending suggestion: ``why`` in a few words, and the places it does name as
    (chapter position, paragraph index)."""

    given: str
    why: str
    places: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class ReviewRequest:
    """What the editor asked for: IDs to accept and reject, and at most one of ``accept_all`` / ``reject_all``
    for the pending suggestions of ``category`` and ``model`` (None: any) that no ID decides."""

    accept: tuple[str, ...] = ()
    reject: tuple[str, ...] = ()
    accept_all: bool = False
    reject_all: bool = False
    category: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class ReviewPlan:
    """The decisions (chapter order) and what stands in their way: IDs that name no single pending suggestion,
    and suggestions asked to be both accepted and rejected. Nothing may be written unless :attr:`clear`."""

    decisions: tuple[Decision, ...]
    unresolved: tuple[Unresolved, ...] = ()
    contradicted: tuple[Target, ...] = ()

    @property
    def clear(self) -> bool:
        """Every ID named one pending suggestion and no suggestion is both accepted and rejected."""
        return not self.unresolved and not self.contradicted

    def of_chapter(self, chapter: int) -> tuple[Decision, ...]:
        """The decisions about the chapter at position ``chapter``."""
        return self._by_chapter.get(chapter, ())

    @cached_property
    def _by_chapter(self) -> dict[int, tuple[Decision, ...]]:
        grouped: dict[int, list[Decision]] = {}
        for decision in self.decisions:
            grouped.setdefault(decision.target.chapter, []).append(decision)
        return {chapter: tuple(group) for chapter, group in grouped.items()}


class _Index:
    """Where the pending suggestions of the chapters are, by version ID (built once for all the IDs given)."""

    def __init__(self, chapters: Sequence[Chapter]) -> None:
        self.chapters = chapters
        self.by_version: dict[str, list[Target]] = {}
        for c, chapter in enumerate(chapters):
            for index, para in enumerate(chapter.paragraphs, start=1):
                for version in para.pending:
                    self.by_version.setdefault(version.id, []).append(Target(c, index, para.id, version.id))

    def targets(self, given: str) -> list[Target]:
        """The pending suggestions ``given`` names: as a version ID, and as a paragraph ID (its newest one)."""
        found = list(self.by_version.get(given, ()))
        for c, chapter in enumerate(self.chapters):
            pos = chapter.positions.get(given)
            newest = None if pos is None else newest_pending(chapter.paragraphs[pos])
            if pos is not None and newest is not None:
                target = Target(c, pos + 1, given, newest.id)
                if target not in found:  # a version whose ID is also its paragraph's
                    found.append(target)
        return found


_ORDINARY = "an ordinary version, not a suggestion"


def _version_places(chapters: Sequence[Chapter], given: str) -> Iterable[tuple[int, int, str]]:
    """(chapter, paragraph index, why) for every version with the ID ``given``: why it is not pending."""
    for c, chapter in enumerate(chapters):
        for index, para in enumerate(chapter.paragraphs, start=1):
            for version in para.translations:
                if version.id == given:
                    yield c, index, f"already {version.status}" if version.status else _ORDINARY


def _why_not(chapters: Sequence[Chapter], given: str) -> Unresolved:
    """Why ``given`` names no pending suggestion: a version decided before or no suggestion at all, a paragraph
    without any pending one, or nothing."""
    decided = next(iter(_version_places(chapters, given)), None)
    if decided is not None:
        c, index, why = decided
        return Unresolved(given, why, ((c, index),))
    for c, chapter in enumerate(chapters):
        pos = chapter.positions.get(given)
        if pos is not None:
            return Unresolved(given, "a paragraph without pending suggestions", ((c, pos + 1),))
    return Unresolved(given, "no suggestion or paragraph has this ID")


def resolve_ids(chapters: Sequence[Chapter], ids: Iterable[str]) -> tuple[list[Target], list[Unresolved]]:
    """The pending suggestion each ID names (a version ID, or a paragraph ID for that paragraph's newest pending
    suggestion), and the IDs that name none, or more than one (the same ID in several places)."""
    index = _Index(chapters)
    found: list[Target] = []
    unresolved: list[Unresolved] = []
    for given in dict.fromkeys(ids):
        targets = index.targets(given)
        if len(targets) == 1:
            found.append(targets[0])
        elif targets:
            places = tuple((t.chapter, t.paragraph_index) for t in targets)
            unresolved.append(Unresolved(given, f"names {len(targets)} pending suggestions", places))
        else:
            unresolved.append(_why_not(chapters, given))
    return found, unresolved


def filtered_targets(chapters: Sequence[Chapter], *, category: str | None, model: str | None) -> list[Target]:
    """Every pending suggestion of ``category`` and ``model`` (None: any) in the chapters, in chapter order."""
    return [
        Target(c, s.paragraph_index, s.paragraph_id, s.version_id)
        for c, chapter in enumerate(chapters)
        for s in filtered(pending_suggestions(chapter), category=category, model=model)
    ]


def _bulk_verdict(request: ReviewRequest) -> Verdict | None:
    if request.accept_all:
        return "accepted"
    return "rejected" if request.reject_all else None


def plan_review(chapters: Sequence[Chapter], request: ReviewRequest) -> ReviewPlan:
    """The decisions ``request`` makes on ``chapters``: its IDs first, then ``accept_all`` / ``reject_all`` for
    every other pending suggestion that passes the filters (an ID given wins over the bulk verdict)."""
    accepted, not_accepted = resolve_ids(chapters, request.accept)
    rejected, not_rejected = resolve_ids(chapters, request.reject)
    verdicts: dict[Target, Verdict] = dict.fromkeys(accepted, "accepted")
    contradicted = tuple(t for t in rejected if t in verdicts)
    for target in rejected:
        verdicts.setdefault(target, "rejected")
    bulk = _bulk_verdict(request)
    if bulk is not None:
        for target in filtered_targets(chapters, category=request.category, model=request.model):
            verdicts.setdefault(target, bulk)
    decisions = sorted(
        (Decision(t, v) for t, v in verdicts.items()), key=lambda d: (d.target.chapter, d.target.paragraph_index)
    )
    unresolved = tuple({u.given: u for u in (*not_accepted, *not_rejected)}.values())
    return ReviewPlan(tuple(decisions), unresolved, contradicted)


def _decide(para: Paragraph, decisions: list[Decision]) -> Paragraph:
    """``para`` with ``decisions`` applied: rejections first, then acceptances from the oldest suggestion to the
    newest, so when several are accepted at once the newest ends selected. A suggestion someone decided meanwhile
    (no longer pending on disk) keeps that decision."""
    age = {version.id: n for n, version in enumerate(pending_by_age(para))}
    for decision in sorted(decisions, key=lambda d: (d.verdict == "accepted", age.get(d.target.version_id, -1))):
        decide = accept if decision.verdict == "accepted" else reject
        try:
            para = decide(para, decision.target.version_id)
        except EditError:
            continue
    return para


def apply_decisions(chapter: Chapter, decisions: Iterable[Decision]) -> Chapter:
    """``chapter`` with ``decisions`` applied (found by paragraph ID, so a paragraph that moved is still found, one
    that is gone is skipped). Accepting selects the suggestion, sets its status ``accepted`` and marks the paragraph
    reviewed; rejecting sets ``rejected`` and changes nothing else. Returns ``chapter`` itself when nothing changes,
    so ``ChapterStore.update`` writes nothing."""
    by_position: dict[int, list[Decision]] = {}
    for decision in decisions:
        pos = chapter.positions.get(decision.target.paragraph_id)
        if pos is not None:
            by_position.setdefault(pos, []).append(decision)
    replacements: dict[int, Paragraph] = {}
    for pos, group in by_position.items():
        decided = _decide(chapter.paragraphs[pos], group)
        if decided is not chapter.paragraphs[pos]:
            replacements[pos] = decided
    return chapter.with_paragraphs(replacements) if replacements else chapter
