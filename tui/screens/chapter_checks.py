"""QA warnings on the chapter view: computed off the UI loop, marked on rows, listed in the detail pane, jumped
to, dismissed, and used to filter the rows.

Mixed into :class:`tui.screens.chapter.ChapterScreen`. The warnings of a chapter state are computed in a thread
worker whenever the chapter object changes (a commit, a reload, an outside edit). The findings of each
(source, translation) pair are kept from one state to the next, so after the first pass only the paragraphs whose
texts changed are checked again: a run committing batches into a 10,000-paragraph chapter costs milliseconds per
commit, not a full pass. These are the checks of one chapter (``proofdesk check CHAPTER`` gives the same): the
workspace-wide INCONSISTENT needs every chapter and is left to ``proofdesk check WORKSPACE``; INCONSISTENT
among the chapter's own paragraphs is included.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from textual import on, work
from textual.binding import Binding
from textual.dom import DOMNode
from textual.worker import get_current_worker

from engine.checks import SEVERITIES, CheckWarning, Finding, GlossaryTerm
from engine.checks.consistency import check_consistency
from engine.checks.dismissal import dismissed_codes
from engine.checks.languages import languages
from engine.checks.paragraph import findings
from engine.checks.warning import CODE_ORDER
from store.model import Chapter, Paragraph, is_empty_text
from tui.screens.choice import ChoiceScreen
from tui.widgets.paragraph_table import ParagraphTable

if TYPE_CHECKING:
    from tui.screens.chapter import ChapterScreen

_TextPair = tuple[str, str]  # (source, selected translation)
_STOP_EVERY = 256  # paragraphs checked between two looks at whether the computation is still wanted
ANY_WARNING = "any warning"


@dataclass(frozen=True)
class FindingCache:
    """What the per-paragraph checks found for each (source, translation) pair, for one language pair."""

    languages: tuple[str | None, str | None] = (None, None)
    found: Mapping[_TextPair, tuple[Finding, ...]] = field(default_factory=dict)
    glossary: tuple[GlossaryTerm, ...] = ()  # the approved entries the findings were made with


@dataclass(frozen=True)
class ChapterWarnings:
    """The undismissed QA warnings of one chapter state, by paragraph ID."""

    chapter: Chapter | None = None  # the state they were computed for
    by_id: Mapping[str, tuple[CheckWarning, ...]] = field(default_factory=dict)
    texts: Mapping[str, _TextPair] = field(default_factory=dict)  # the texts each paragraph's warnings are about
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


def compute_warnings(
    chapter: Chapter,
    cache: FindingCache,
    glossary: Sequence[GlossaryTerm] = (),
    *,
    stop: Callable[[], bool] = lambda: False,
) -> tuple[ChapterWarnings, FindingCache] | None:
    """The chapter's undismissed warnings, the same as ``check_chapter``'s, and the findings to reuse next time
    (``cache``: those of an earlier state). None when ``stop()`` said the result is no longer wanted."""
    pair = (chapter.source_language, chapter.target_language)
    glossary = tuple(glossary)
    previous = cache.found if cache.languages == pair and cache.glossary == glossary else {}
    langs = languages(*pair)
    found: dict[_TextPair, tuple[Finding, ...]] = {}
    by_position: dict[int, list[CheckWarning]] = {}
    for pos, para in enumerate(chapter.paragraphs):
        if pos % _STOP_EVERY == 0 and stop():
            return None
        translation = para.selected_text
        if translation is None or is_empty_text(para.text):
            continue
        key = (para.text, translation)
        hits = found.get(key)
        if hits is None:
            hits = previous.get(key)
            if hits is None:
                hits = tuple(findings(para.text, translation, langs, glossary))
            found[key] = hits
        if hits:
            by_position[pos] = [CheckWarning.of(f, para.id, pos + 1) for f in hits]
    for w in check_consistency([chapter])[0]:
        by_position.setdefault(w.paragraph_index - 1, []).append(w)
    by_id: dict[str, tuple[CheckWarning, ...]] = {}
    texts: dict[str, _TextPair] = {}
    positions: list[int] = []
    count = 0
    for pos in sorted(by_position):
        para = chapter.paragraphs[pos]
        dismissed = dismissed_codes(para)
        kept = sorted((w for w in by_position[pos] if w.code not in dismissed), key=lambda w: CODE_ORDER[w.code])
        if not kept:
            continue
        by_id[para.id] = tuple(kept)
        texts[para.id] = (para.text, para.selected_text or "")
        positions.append(pos)
        count += len(kept)
    return (ChapterWarnings(chapter, by_id, texts, tuple(positions), count), FindingCache(pair, found, glossary))


def _paragraphs(n: int) -> str:
    return f"{n} paragraph" if n == 1 else f"{n} paragraphs"


class ChapterChecks(DOMNode):
    """The QA warning keys of the chapter view (see the module docstring)."""

    BINDINGS = [
        Binding("w", "next_warning(1)", "Next warning (rows marked !)", show=False, id="chapter.next_warning"),
        Binding("W", "next_warning(-1)", "Previous warning", show=False, id="chapter.previous_warning"),
        Binding("d", "dismiss_warning", "Dismiss a warning", show=False, id="chapter.dismiss_warning"),
        Binding("o", "warning_filter", "Filter rows by warning code", show=False, id="chapter.warning_filter"),
    ]

    warnings: ChapterWarnings = NO_WARNINGS
    filter_on = False  # the rows shown are those with warnings of ``filter_code`` (None: any)
    filter_code: str | None = None
    _checks_wanted: Chapter | None = None  # the chapter state the last computation was started for
    _finding_cache = FindingCache()

    @property
    def _view(self) -> ChapterScreen:
        return self  # type: ignore[return-value]

    # -- computing -------------------------------------------------------------------------------------------

    def want_warnings(self, chapter: Chapter | None) -> None:
        """Compute the warnings of ``chapter`` (in a thread) unless that state's are computed or on their way."""
        if chapter is None or chapter is self._checks_wanted:
            return
        first = self._checks_wanted is None
        self._checks_wanted = chapter
        if first:
            # The first check of a big chapter holds the interpreter for a second or more: after the first frame.
            self.call_after_refresh(self._compute_warnings, chapter, self._finding_cache)
        else:
            self._compute_warnings(chapter, self._finding_cache)

    @work(thread=True, exclusive=True, group="checks", description="QA checks", exit_on_error=False)
    def _compute_warnings(self, chapter: Chapter, cache: FindingCache) -> None:
        worker = get_current_worker()
        terms = self._view.workspace.glossary.snapshot.approved_terms  # immutable, read in the app's worker
        result = compute_warnings(chapter, cache, terms, stop=lambda: worker.is_cancelled)
        if result is not None:
            self.app.call_from_thread(self._show_warnings, chapter, *result)

    def _show_warnings(self, chapter: Chapter, warnings: ChapterWarnings, cache: FindingCache) -> None:
        self._finding_cache = cache  # whichever state it was for: its findings are right for their texts
        view = self._view
        if chapter is not view.session.chapter:
            return
        self.warnings = warnings
        view.table.set_warned(warnings.ids)
        if self.filter_on:
            self._apply_filter()
        view._update_detail()
        view.update_status()

    def warnings_status(self) -> list[str]:
        """The status line's parts about warnings: the filter, and how many there are."""
        parts: list[str] = []
        table = self._view.table
        if self.filter_on and table.filter_label is not None:
            parts.append(f"only {table.filter_label}: {_paragraphs(len(table.only_ids or ()))} (o: all)")
        if self.warnings.chapter is None and self._checks_wanted is not None:
            parts.append("checking…")
        elif self.warnings.count:
            count = self.warnings.count
            parts.append(f"{count} warning{'' if count == 1 else 's'}: w")
        return parts

    # -- moving ------------------------------------------------------------------------------------------------

    def action_next_warning(self, step: int) -> None:
        view = self._view
        chapter = view.session.chapter
        if chapter is None or not chapter.paragraphs:
            return
        table = view.table
        positions = [p for p in self.warnings.positions_in(chapter) if table.is_shown(p)]
        if not positions:
            view.notify("No paragraph shown has warnings." if self.warnings.count else "No warnings in this chapter.")
            return
        cursor = table.cursor
        if step > 0:
            at = bisect_right(positions, cursor)
            wrapped = at == len(positions)
            target = positions[0 if wrapped else at]
        else:
            at = bisect_left(positions, cursor) - 1
            wrapped = at < 0
            target = positions[at]
        if target == cursor:
            view.notify("No other paragraph has warnings.", timeout=2)
            return
        if wrapped:
            view.notify("Wrapped to the first warning." if step > 0 else "Wrapped to the last warning.", timeout=2)
        table.move_to(target)

    # -- dismissing ----------------------------------------------------------------------------------------------

    def action_dismiss_warning(self) -> None:
        view = self._view
        para = view.table.current_paragraph
        if para is None:
            return
        warnings = self.warnings.of(para)
        if not warnings:
            busy = self._checks_wanted is not view.session.chapter or self.warnings.chapter is not self._checks_wanted
            view.notify(
                "The checks are still running." if busy else "No warning on this paragraph.", severity="warning"
            )
            return
        seen = para.selected_text
        position = view.table.cursor
        if len(warnings) == 1:
            self._dismiss(para, position, [warnings[0].code], seen)
            return

        def chosen(index: int | None) -> None:
            if index is None:
                return
            codes = [w.code for w in warnings] if index == len(warnings) else [warnings[index].code]
            self._dismiss(para, position, codes, seen)

        choices = [f"{w.code} · {w.severity} · {w.message}" for w in warnings]
        choices.append(f"All {len(warnings)} warnings of this paragraph")
        self.app.push_screen(
            ChoiceScreen(
                f"Dismiss a warning of [{position + 1}] {para.id}",
                choices,
                hint="↑↓ or j k: move · enter: dismiss · esc: cancel",
            ),
            chosen,
        )

    def _dismiss(self, para: Paragraph, position: int, codes: list[str], seen: str | None) -> None:
        view = self._view
        view._commit(
            view.session.dismiss_warnings,
            para.id,
            codes,
            seen,
            done=f"[{position + 1}] {para.id}: dismissed {', '.join(codes)} (until either text changes)",
        )

    # -- filtering -------------------------------------------------------------------------------------------------

    def action_warning_filter(self) -> None:
        view = self._view
        if self.filter_on:
            self._set_filter(False, None)
            view.notify("Showing every paragraph.", timeout=2)
            return
        counts = self.warnings.paragraphs_per_code()
        if not counts:
            view.notify("No warnings in this chapter: nothing to filter.", severity="warning")
            return
        codes = list(counts)
        choices = [f"{ANY_WARNING} ({_paragraphs(len(self.warnings.by_id))})"]
        choices.extend(f"{code} ({_paragraphs(n)}) · {SEVERITIES[code]}" for code, n in counts.items())

        def chosen(index: int | None) -> None:
            if index is not None:
                self._set_filter(True, None if index == 0 else codes[index - 1])

        self.app.push_screen(
            ChoiceScreen(
                "Show only the paragraphs with warnings of",
                choices,
                hint="↑↓ or j k: move · enter: filter · esc: cancel · o again: all",
            ),
            chosen,
        )

    def _set_filter(self, on: bool, code: str | None) -> None:
        self.filter_on, self.filter_code = on, code
        if on:
            self._apply_filter()
        else:
            self._view.table.set_filter(None, None)
        self._view.update_status()

    def _apply_filter(self) -> None:
        """Show the rows the filter wants now (the warnings changed, or the filter did); when no paragraph is
        left to show, the filter ends."""
        label = self.filter_code or ANY_WARNING
        if self._view.table.set_filter(label, self.warnings.ids_with(self.filter_code)):
            return
        self.filter_on, self.filter_code = False, None
        self._view.notify(f"No paragraph is left with {label}: showing every paragraph.", markup=False)

    @on(ParagraphTable.FilterDropped)
    def _filter_dropped(self, message: ParagraphTable.FilterDropped) -> None:
        if not self.filter_on:
            return
        self.filter_on, self.filter_code = False, None
        self._view.notify(f"Showing every paragraph again: {message.reason}.", timeout=3, markup=False)
        self._view.update_status()
