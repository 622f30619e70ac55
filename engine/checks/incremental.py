"""The QA warnings of one chapter, kept up to date as the chapter changes: the one pass over a chapter.

``ChapterChecks.of(chapter, glossary)`` checks every translated paragraph; ``checks.update(chapter)`` gives the
checks of a later state of that chapter. An update re-runs the per-paragraph checks only for paragraphs whose
object changed and whose (source, translation) pair was not checked before, and INCONSISTENT (which compares the
chapter's paragraphs with each other) only when an ID or a text changed; a dismissal or a review mark costs a
look at the paragraphs with warnings. Other approved glossary terms (``update(chapter, glossary)``) re-run, for
every pair, only the checks that read the glossary (``paragraph.READS_GLOSSARY``); the others' findings hold.
``check_chapter`` and ``check_workspace`` (``proofdesk check``) and the workstation's chapter view all use it.

Every object here is immutable: a worker thread computes the next ``ChapterChecks`` from the current one while
the UI thread reads the current one, and nothing is shared that either side changes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from engine.checks.consistency import ChapterConsistency
from engine.checks.dismissal import dismissed_codes
from engine.checks.glossary import GlossaryTerm, GlossaryTerms, as_terms
from engine.checks.languages import Languages, languages
from engine.checks.paragraph import READS_GLOSSARY, findings, glossary_findings
from engine.checks.warning import CODE_ORDER, CheckWarning, Finding
from store.model import Chapter, Paragraph, is_empty_text

TextPair = tuple[str, str]  # (source, selected translation)
_STOP_EVERY = 256  # paragraphs checked between two looks at whether the result is still wanted


def _never() -> bool:
    return False


def _by_code(warning: CheckWarning | Finding) -> int:
    return CODE_ORDER[warning.code]


@dataclass(frozen=True)
class ChapterWarnings:
    """The undismissed QA warnings of one chapter state, by paragraph ID."""

    chapter: Chapter | None = None  # the state they were computed for
    by_id: Mapping[str, tuple[CheckWarning, ...]] = field(default_factory=dict)
    texts: Mapping[str, TextPair] = field(default_factory=dict)  # the texts each paragraph's warnings are about
    positions: tuple[int, ...] = ()  # positions of the paragraphs with warnings, ascending
    count: int = 0

    @cached_property
    def ids(self) -> frozenset[str]:
        """IDs of the paragraphs with warnings."""
        return frozenset(self.by_id)

    def of(self, para: Paragraph) -> tuple[CheckWarning, ...]:
        """The warnings of ``para`` as it is (none while its texts differ from those checked)."""
        found = self.by_id.get(para.id)
        if not found or self.texts.get(para.id) != (para.text, para.selected_text):
            return ()
        return found

    def paragraphs_per_code(self) -> dict[str, int]:
        """How many paragraphs have a warning of each code, in the order of the codes."""
        counts = Counter(w.code for warnings in self.by_id.values() for w in warnings)
        return {code: counts[code] for code in sorted(counts, key=CODE_ORDER.__getitem__)}

    def ids_with(self, code: str | None) -> frozenset[str]:
        """IDs of the paragraphs with a warning of ``code`` (None: any warning)."""
        if code is None:
            return self.ids
        return frozenset(pid for pid, warnings in self.by_id.items() if any(w.code == code for w in warnings))

    def positions_in(self, chapter: Chapter) -> tuple[int, ...]:
        """Positions in ``chapter`` of the paragraphs with warnings (another state's are looked up by ID)."""
        if chapter is self.chapter:
            return self.positions
        where = chapter.positions
        return tuple(sorted(where[pid] for pid in self.by_id if pid in where))


NO_WARNINGS = ChapterWarnings()
NO_TERMS = GlossaryTerms()


SOURCE_CHANGED = Finding(
    "SOURCE_CHANGED", "the source changed since this translation was made (run --stale translates it again)"
)


@dataclass
class _Pass:
    """One update's walk over the paragraphs (local to the thread that runs it)."""

    previous: ChapterChecks
    langs: Languages
    glossary: GlossaryTerms
    reusable: bool  # the previous findings hold for this language pair and glossary
    comparable: bool  # the previous state is compared with this one (the same language pair)
    reused: Mapping[TextPair, tuple[Finding, ...]] = field(default_factory=dict)  # the previous findings that hold
    # the previous findings that hold but for the checks that read the glossary (the approved terms changed)
    reglossed: Mapping[TextPair, tuple[Finding, ...]] = field(default_factory=dict)
    found: dict[TextPair, tuple[Finding, ...]] = field(default_factory=dict)
    local: dict[int, tuple[CheckWarning, ...]] = field(default_factory=dict)
    same_ids: bool = True  # every paragraph ID is at its place in the previous state
    changed: list[int] = field(default_factory=list)  # positions whose texts changed (with the same ID)

    def walk(self, chapter: Chapter, stop: Callable[[], bool]) -> bool:
        """Check every paragraph of ``chapter``; False when ``stop()`` said to give up."""
        paragraphs = chapter.paragraphs
        old = self.previous.chapter.paragraphs if self.previous.chapter is not None and self.comparable else ()
        self.same_ids = len(old) == len(paragraphs)
        befores = (*old[: len(paragraphs)], *[None] * (len(paragraphs) - len(old)))
        for pos, (para, before) in enumerate(zip(paragraphs, befores, strict=True)):
            if pos % _STOP_EVERY == 0 and stop():
                return False
            self.paragraph(pos, para, before)
        return True

    def paragraph(self, pos: int, para: Paragraph, before: Paragraph | None) -> None:
        translation = para.selected_text
        if before is not para:
            self._compare(pos, para, before, translation)
        if translation is None or is_empty_text(para.text):
            return
        if before is para and self.reusable:  # the same object at the same place: the same warnings
            self._keep(pos, (para.text, translation))
        else:
            self._check(pos, para, (para.text, translation))

    def _compare(self, pos: int, para: Paragraph, before: Paragraph | None, translation: str | None) -> None:
        """Note how ``para`` differs from ``before``, the paragraph at its place in the previous state."""
        if before is None or before.id != para.id:
            self.same_ids = False
        elif (before.text, before.selected_text) != (para.text, translation):
            self.changed.append(pos)

    def _keep(self, pos: int, key: TextPair) -> None:
        self.found[key] = self.previous.found.get(key, ())
        kept = self.previous.local.get(pos)
        if kept:
            self.local[pos] = kept

    def _check(self, pos: int, para: Paragraph, key: TextPair) -> None:
        hits = self.found.get(key)
        if hits is None:
            hits = self.found[key] = self._findings(key)
        if para.stale:  # not a property of the two texts: of the version, made for another source
            hits = tuple(sorted((*hits, SOURCE_CHANGED), key=_by_code))
        if hits:
            self.local[pos] = tuple(CheckWarning.of(f, para.id, pos + 1) for f in hits)

    def _findings(self, key: TextPair) -> tuple[Finding, ...]:
        hits = self.reused.get(key)
        if hits is not None:
            return hits
        before = self.reglossed.get(key)
        if before is None:
            return tuple(findings(*key, self.langs, self.glossary))
        kept = [f for f in before if f.code not in READS_GLOSSARY]
        return tuple(sorted((*kept, *glossary_findings(*key, self.langs, self.glossary)), key=_by_code))


@dataclass(frozen=True)
class ChapterChecks:
    """The QA warnings of one chapter state, and what it takes to update them for the next state."""

    chapter: Chapter | None = None  # the state checked (None: nothing yet)
    glossary: GlossaryTerms = NO_TERMS  # the approved entries the findings were made with
    consistency: bool = True  # INCONSISTENT among the chapter's own paragraphs is checked
    found: Mapping[TextPair, tuple[Finding, ...]] = field(default_factory=dict)  # per pair in the chapter
    local: Mapping[int, tuple[CheckWarning, ...]] = field(default_factory=dict)  # per position, no INCONSISTENT
    consistent: ChapterConsistency | None = None  # INCONSISTENT among the paragraphs (when ``consistency``)
    warnings: ChapterWarnings = NO_WARNINGS  # the undismissed ones, for the view

    @property
    def inconsistent(self) -> list[CheckWarning]:
        """INCONSISTENT among the chapter's paragraphs, in paragraph order."""
        return [] if self.consistent is None else self.consistent.listed()

    @classmethod
    def of(cls, chapter: Chapter, glossary: Sequence[GlossaryTerm] = (), *, consistency: bool = True) -> ChapterChecks:
        """The checks of ``chapter`` (``consistency``: INCONSISTENT among its paragraphs too)."""
        checks = cls(glossary=as_terms(glossary), consistency=consistency).update(chapter)
        assert checks is not None  # only stop() makes an update give up
        return checks

    def update(
        self,
        chapter: Chapter,
        glossary: Sequence[GlossaryTerm] | None = None,
        *,
        stop: Callable[[], bool] = _never,
    ) -> ChapterChecks | None:
        """The checks of ``chapter``, a later state of this one (``glossary``: the terms now, None: the same),
        reusing what still holds; None when ``stop()`` (asked every few hundred paragraphs) said it is not
        wanted any more."""
        terms = self.glossary if glossary is None else as_terms(glossary)
        comparable = self.chapter is not None and _pair_of(chapter) == _pair_of(self.chapter)
        same_terms = terms is self.glossary or terms == self.glossary
        reusable = comparable and same_terms
        walk = _Pass(self, languages(*_pair_of(chapter)), terms, reusable, comparable)
        if comparable:
            walk.reused, walk.reglossed = (self.found, {}) if same_terms else ({}, self.found)
        if not walk.walk(chapter, stop):
            return None
        consistent = self._consistent(chapter, walk)
        inconsistent = () if consistent is None else consistent.warnings.values()
        undismissed = _undismissed(chapter, _per_position(walk.local, inconsistent))
        return ChapterChecks(chapter, terms, self.consistency, walk.found, walk.local, consistent, undismissed)

    def _consistent(self, chapter: Chapter, walk: _Pass) -> ChapterConsistency | None:
        """INCONSISTENT among the paragraphs of ``chapter``: only the groups of changed texts are found again,
        unless paragraphs came, went or moved."""
        if not self.consistency:
            return None
        if walk.same_ids and self.consistent is not None:
            return self.consistent.update(chapter, walk.changed)
        return ChapterConsistency.of(chapter)

    def listed(
        self,
        *,
        include_dismissed: bool = False,
        codes: Collection[str] | None = None,
        inconsistent: Iterable[CheckWarning] | None = None,
    ) -> list[CheckWarning]:
        """Every warning in paragraph order, each paragraph's in the order of the codes; ``codes`` keeps only
        those; dismissed ones only with ``include_dismissed``; ``inconsistent`` replaces the chapter's own
        INCONSISTENT warnings (with those found across a workspace)."""
        chapter = self.chapter
        if chapter is None:
            return []
        extra = self.inconsistent if inconsistent is None else inconsistent
        left_out = _nothing if include_dismissed else dismissed_codes
        wanted = CODE_ORDER.keys() if codes is None else codes
        out: list[CheckWarning] = []
        for pos, warnings in sorted(_per_position(self.local, extra).items()):
            out.extend(_kept(warnings, wanted, left_out(chapter.paragraphs[pos])))
        return out


def _nothing(para: Paragraph) -> frozenset[str]:
    return frozenset()


def _kept(warnings: Iterable[CheckWarning], wanted: Collection[str], left_out: frozenset[str]) -> list[CheckWarning]:
    return [w for w in warnings if w.code in wanted and w.code not in left_out]


def _pair_of(chapter: Chapter) -> tuple[str | None, str | None]:
    return (chapter.source_language, chapter.target_language)


def _per_position(
    local: Mapping[int, tuple[CheckWarning, ...]], inconsistent: Iterable[CheckWarning]
) -> dict[int, list[CheckWarning]]:
    """Every warning by 0-based position, each position's in the order of the codes."""
    out = {pos: list(warnings) for pos, warnings in local.items()}
    extra: set[int] = set()
    for w in inconsistent:
        out.setdefault(w.paragraph_index - 1, []).append(w)
        extra.add(w.paragraph_index - 1)
    for pos in extra:
        out[pos].sort(key=_by_code)
    return out


def _undismissed(chapter: Chapter, per_position: Mapping[int, list[CheckWarning]]) -> ChapterWarnings:
    by_id: dict[str, tuple[CheckWarning, ...]] = {}
    texts: dict[str, TextPair] = {}
    positions: list[int] = []
    count = 0
    for pos in sorted(per_position):
        para = chapter.paragraphs[pos]
        dismissed = dismissed_codes(para)
        kept = tuple(w for w in per_position[pos] if w.code not in dismissed)
        if not kept:
            continue
        by_id[para.id] = kept
        texts[para.id] = (para.text, para.selected_text or "")
        positions.append(pos)
        count += len(kept)
    return ChapterWarnings(chapter, by_id, texts, tuple(positions), count)
