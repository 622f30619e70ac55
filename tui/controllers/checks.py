"""QA warnings on the chapter view: rows marked ``!``, the warnings in the detail pane, ``w`` / ``W`` to step
between them, ``d`` to dismiss one, ``o`` to show only the paragraphs with warnings (of one code).

:class:`ChecksControl` keeps an :class:`engine.checks.incremental.ChapterChecks` for the chapter shown. Each new
state of the chapter is checked in a thread worker from the last checks (immutable: the worker reads them while
the UI thread shows them, and hands the next ones back with ``call_from_thread``), so after a run's batch or an
edit only the changed paragraphs are checked again. These are the checks of one chapter (``proofdesk check
CHAPTER`` gives the same): the workspace-wide INCONSISTENT needs every chapter and is left to ``proofdesk check
WORKSPACE``; INCONSISTENT among the chapter's own paragraphs is included.

The glossary reaches the checks through one function, ``glossary_terms`` (given by the screen): the approved
entries of the glossary's immutable snapshot, read on the UI thread and handed to the worker with the chapter; a
new glossary is checked again like a new chapter state (only the checks that read the glossary run again:
``ChapterChecks.update``), and warnings computed with terms no longer in use are never shown.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable

from textual import on, work
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.worker import get_current_worker

from engine.checks import SEVERITIES, CheckWarning
from engine.checks.glossary import GlossaryTerms
from engine.checks.incremental import NO_TERMS, NO_WARNINGS, ChapterChecks, ChapterWarnings
from store.model import Chapter, Paragraph
from tui.messages import ChapterStateChanged, Redrawn
from tui.screens.choice import ChoiceScreen
from tui.session import ChapterSession
from tui.status_fit import Part
from tui.widgets.paragraph_table import ParagraphTable
from tui.worker_failures import ReportsWorkerFailures

ANY_WARNING = "any warning"
_WRAPPED = {True: "Wrapped to the first warning.", False: "Wrapped to the last warning."}


def _paragraphs(n: int) -> str:
    return f"{n} paragraph" if n == 1 else f"{n} paragraphs"


def _target(positions: list[int], cursor: int, step: int) -> tuple[int, bool]:
    """The position of the next (``step`` > 0) or previous warning from ``cursor``, and whether that wrapped."""
    if step > 0:
        at = bisect_right(positions, cursor)
        wrapped = at == len(positions)
        return positions[0 if wrapped else at], wrapped
    at = bisect_left(positions, cursor) - 1
    return positions[at], at < 0


class ChecksControl(Vertical, ReportsWorkerFailures):
    """The QA warning keys of the chapter view and the warnings of the chapter shown (see the module docstring)."""

    HELP_GROUP = "Chapter"
    BINDINGS = [
        Binding("w", "next_warning(1)", "Next warning (rows marked !)", show=False, id="chapter.next_warning"),
        Binding("W", "next_warning(-1)", "Previous warning", show=False, id="chapter.previous_warning"),
        Binding("d", "dismiss_warning", "Dismiss a warning", show=False, id="chapter.dismiss_warning"),
        Binding("o", "warning_filter", "Filter rows by warning code", show=False, id="chapter.warning_filter"),
    ]

    class DismissRequested(Message):
        """Dismiss ``codes`` on the paragraph at ``position`` for the translation the person saw."""

        def __init__(self, paragraph: Paragraph, position: int, codes: list[str], seen: str | None) -> None:
            super().__init__()
            self.paragraph = paragraph
            self.position = position
            self.codes = codes
            self.seen = seen

    def __init__(
        self,
        session: ChapterSession,
        glossary_terms: Callable[[], GlossaryTerms],
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.session = session
        self.glossary_terms = glossary_terms  # the approved glossary entries now (called in the worker)
        self.warnings: ChapterWarnings = NO_WARNINGS  # those of the chapter shown
        self.filter_on = False  # the rows shown are those with warnings of ``filter_code`` (None: any)
        self.filter_code: str | None = None
        self._checks = ChapterChecks()  # the latest computed, whichever state: reused by the next update
        self._wanted: Chapter | None = None  # the chapter state the last computation was started for
        self._wanted_terms: GlossaryTerms = NO_TERMS  # and the glossary terms it was started with
        self._shown_terms: GlossaryTerms = NO_TERMS  # the glossary terms of the warnings shown
        self._first_frame_pending = False  # the first computation waits for the first frame

    @property
    def _table(self) -> ParagraphTable:
        return self.query_one(ParagraphTable)

    def _changed(self, what: Redrawn = "view") -> None:
        self.post_message(ChapterStateChanged(what))

    # -- computing -------------------------------------------------------------------------------------------

    def want(self, chapter: Chapter | None) -> None:
        """Check ``chapter`` with the glossary as it is (in a thread) unless those warnings are computed or on
        their way."""
        terms = self.glossary_terms()
        if chapter is None or (chapter is self._wanted and terms is self._wanted_terms):
            return
        first = self._wanted is None
        self._wanted, self._wanted_terms = chapter, terms
        if first:
            # The first check of a big chapter holds the interpreter for a second or more: after the first frame.
            self._first_frame_pending = True
            self.call_after_refresh(self._start_first)
        elif not self._first_frame_pending:  # else the first computation, still to start, takes this state
            self._compute(chapter, self._checks, terms)

    def _start_first(self) -> None:
        """Start the first computation with the state wanted *now*: a glossary loaded (or a chapter reloaded)
        before the first frame changed it, and a computation of the older state would replace (``exclusive``) the
        newer one and be dropped as stale, leaving the warnings "checking" for good."""
        self._first_frame_pending = False
        if self._wanted is not None:
            self._compute(self._wanted, self._checks, self._wanted_terms)

    @work(thread=True, exclusive=True, group="checks", description="QA checks", exit_on_error=False)
    def _compute(self, chapter: Chapter, previous: ChapterChecks, terms: GlossaryTerms) -> None:
        worker = get_current_worker()
        checks = previous.update(chapter, terms, stop=lambda: worker.is_cancelled)
        if checks is not None:
            self.app.call_from_thread(self._computed, checks)

    def _computed(self, checks: ChapterChecks) -> None:
        self._checks = checks  # whichever state it was for: its findings are right for their texts
        if checks.chapter is not self.session.chapter or checks.glossary is not self._wanted_terms:
            return  # an older state's, or made with the glossary before a change (a newer computation is on its way)
        self.session.note_checks(checks)  # the chapter list counts from them
        self.warnings, self._shown_terms = checks.warnings, checks.glossary
        self._table.set_warned(self.warnings.ids)
        if self.filter_on:
            self._apply_filter()
        self._changed()

    @property
    def checking(self) -> bool:
        """Whether the warnings shown are not those of the chapter as it is (yet)."""
        return (
            self._wanted is not self.session.chapter
            or self.warnings.chapter is not self._wanted
            or self._shown_terms is not self._wanted_terms
        )

    def status_parts(self) -> list[Part]:
        """The status line's parts about warnings: the filter, and how many there are."""
        table = self._table
        parts: list[Part] = []
        if self.filter_on and table.filter_label is not None:
            label = table.filter_label
            count = _paragraphs(len(table.only_ids or ()))
            parts.append(Part.of(f"only {label}: {count} (o: all)", f"only {label} (o: all)"))
        return [*parts, *self._count_parts()]

    def _count_parts(self) -> list[Part]:
        if self.warnings.chapter is None and self._wanted is not None:
            return [Part.of("checking…")]
        count = self.warnings.count
        return [Part.of(f"{count} warning{'' if count == 1 else 's'}: w")] if count else []

    # -- moving ------------------------------------------------------------------------------------------------

    def action_next_warning(self, step: int) -> None:
        chapter = self.session.chapter
        if chapter is None or not chapter.paragraphs:
            return
        table = self._table
        positions = self._shown_warnings(chapter)
        if not positions:
            self.notify("No paragraph shown has warnings." if self.warnings.count else "No warnings in this chapter.")
            return
        target, wrapped = _target(positions, table.cursor, step)
        if target == table.cursor:
            self.notify("No other paragraph has warnings.", timeout=2)
            return
        if wrapped:
            self.notify(_WRAPPED[step > 0], timeout=2)
        table.move_to(target)

    def _shown_warnings(self, chapter: Chapter) -> list[int]:
        """The positions of the paragraphs with warnings that have a row (the filter may hide some)."""
        table = self._table
        return [p for p in self.warnings.positions_in(chapter) if table.is_shown(p)]

    # -- dismissing ----------------------------------------------------------------------------------------------

    def action_dismiss_warning(self) -> None:
        table = self._table
        para = table.current_paragraph
        if para is None:
            return
        warnings = self.warnings.of(para)
        if not warnings:
            said = "The checks are still running." if self.checking else "No warning on this paragraph."
            self.notify(said, severity="warning")
            return
        position, seen = table.cursor, para.selected_text
        if len(warnings) == 1:
            self.post_message(self.DismissRequested(para, position, [warnings[0].code], seen))
            return
        self._choose_dismissal(para, position, warnings, seen)

    def _choose_dismissal(
        self, para: Paragraph, position: int, warnings: tuple[CheckWarning, ...], seen: str | None
    ) -> None:
        def chosen(index: int | None) -> None:
            if index is None:
                return
            codes = [w.code for w in warnings] if index == len(warnings) else [warnings[index].code]
            self.post_message(self.DismissRequested(para, position, codes, seen))

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

    # -- filtering -------------------------------------------------------------------------------------------------

    def action_warning_filter(self) -> None:
        if self.filter_on:
            self._set_filter(False, None)
            self.notify("Showing every paragraph.", timeout=2)
            return
        counts = self.warnings.paragraphs_per_code()
        if not counts:
            self.notify("No warnings in this chapter: nothing to filter.", severity="warning")
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
            self._table.set_filter(None, None)
        self._changed("status")

    def _apply_filter(self) -> None:
        """Show the rows the filter wants now (the warnings changed, or the filter did); when no paragraph is
        left to show, the filter ends."""
        label = self.filter_code or ANY_WARNING
        if self._table.set_filter(label, self.warnings.ids_with(self.filter_code)):
            return
        self.filter_on, self.filter_code = False, None
        self.notify(f"No paragraph is left with {label}: showing every paragraph.", markup=False)

    @on(ParagraphTable.FilterDropped)
    def _filter_dropped(self, message: ParagraphTable.FilterDropped) -> None:
        if not self.filter_on:
            return
        self.filter_on, self.filter_code = False, None
        self.notify(f"Showing every paragraph again: {message.reason}.", timeout=3, markup=False)
        self._changed("status")
