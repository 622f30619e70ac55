"""``proofdesk import FILE.xlf|FILE.xliff|FILE.po --into CHAPTER|WORKSPACE [--suggest]``: a CAT tool's work back in,
by paragraph ID (design section 18).

The file is read and checked whole before any chapter is opened (a DOCTYPE, an entity, a file that is not XLIFF or PO:
one line, exit 2, nothing written). Then each chapter it names gets one locked, atomic commit
(``ChapterStore.update`` with :func:`store.formats.import_apply.apply_units`, on the chapter as it is on disk then);
a chapter nothing changes in is not written. Units skipped (an unknown ID, a source that changed, a section naming no
chapter) are named on stderr, the others applied, and the exit is 1.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from store.atomic import CommitError
from store.commit import ChapterStore
from store.errors import StoreError
from store.formats.exchange_input import ExchangeError
from store.formats.import_apply import Action, ImportOutcome, Skipped, apply_units
from store.formats.section_match import match_sections
from store.formats.units import ImportSection, ImportUnit
from store.model import Chapter
from tui.cli_errors import EXIT_FAILED, EXIT_OK, UsageError
from tui.commands.chapter_files import chapter_files
from tui.terminal_text import visible

_SHOWN = 20  # skipped units named per chapter; the rest are counted
_WORDS: tuple[tuple[Action, str], ...] = (
    ("selected", "selected"),
    ("suggested", "suggested"),
    ("marked", "marked reviewed"),
    ("unchanged", "unchanged"),
)


def read_sections(path: Path) -> list[ImportSection]:
    """The sections of the XLIFF or PO file ``path``; a UsageError (exit 2) for anything refused."""
    from store.formats.po_read import read_po
    from store.formats.xliff_read import read_xliff

    try:
        return read_po(path) if path.suffix.lower() == ".po" else read_xliff(path)
    except ExchangeError as exc:
        raise UsageError(str(exc)) from None


def import_exchange_command(path: Path, into: Path | None, *, suggest: bool) -> int:
    """Apply the units of ``path`` to the chapters of ``into``; 0 when every unit was applied, 1 when some were
    skipped."""
    if into is None:
        raise UsageError(f"{path}: name the chapter or workspace it goes back into with --into")
    sections = read_sections(path)
    files = chapter_files([into])
    stores = [_open(file) for file in files]
    chapters = [store.load() for store in stores]  # a file that is not a chapter: one line, exit 2
    names = [file.name for file in files]
    match = match_sections(sections, names, chapters, fallback_key=path.stem)
    _refuse_read_only([stores[pos] for pos in match.units])
    failed = _say_unmatched(path, match.unmatched)
    for pos, units in match.units.items():
        failed |= _commit(path, stores[pos], units, suggest=suggest)
    return EXIT_FAILED if failed else EXIT_OK


def _open(path: Path) -> ChapterStore:
    try:
        return ChapterStore(path)
    except CommitError as exc:
        raise UsageError(f"{path}: {exc.reason}") from None


def _refuse_read_only(stores: Sequence[ChapterStore]) -> None:
    """A read-only chapter refuses before any chapter is written."""
    for store in stores:
        try:
            store.check_writable()
        except CommitError as exc:
            raise UsageError(str(exc)) from None


def _commit(path: Path, store: ChapterStore, units: list[ImportUnit], *, suggest: bool) -> bool:
    """One chapter's commit; True when something was skipped or could not be saved."""
    outcomes: list[ImportOutcome] = []

    def apply(chapter: Chapter) -> Chapter:
        outcomes.append(apply_units(chapter, units, suggest=suggest, reason=f"imported from {path.name}"))
        return outcomes[-1].chapter

    try:
        store.update(apply)
    except StoreError as exc:
        _say(f"proofdesk: {store.path.name}: nothing was saved: {exc}")
        return True
    outcome = outcomes[-1]  # the call whose result was written (a changed file makes the store call it again)
    _say(_summary(store.path.name, outcome))
    _say_skipped(path, store.path.name, outcome.skipped)
    return bool(outcome.skipped)


def _summary(name: str, outcome: ImportOutcome) -> str:
    counts = [f"{outcome.counts.get(action, 0)} {word}" for action, word in _WORDS]
    skipped = f", {len(outcome.skipped)} skipped" if outcome.skipped else ""
    return f"{name}: {', '.join(counts)}{skipped}"


def _say_skipped(path: Path, name: str, skipped: Sequence[Skipped]) -> None:
    for item in skipped[:_SHOWN]:
        _say(f"proofdesk: {path}: unit {item.paragraph_id} ({name}): {item.why}; skipped")
    if len(skipped) > _SHOWN:
        _say(f"proofdesk: {path}: and {len(skipped) - _SHOWN} more units of {name} skipped")


def _say_unmatched(path: Path, unmatched: Sequence[ImportSection]) -> bool:
    for section in unmatched:
        _say(f"proofdesk: {path}: {section.key!r} names no chapter given; its {len(section.units)} units skipped")
    return bool(unmatched)


def _say(line: str) -> None:
    print(visible(line, newlines=False), file=sys.stderr)
