"""What the workstation knows about the workspace it has open, without any Textual in it.

A :class:`ChapterSession` holds the last good state of one chapter file and makes every change the editor
asks for through ``ChapterStore.update`` (locked, merged onto the file as it is on disk now, durable). Its
blocking methods are meant to run in a thread (``asyncio.to_thread``), never on the event loop.
A :class:`WorkspaceSession` holds the sessions of every chapter of the workspace, the configuration and the
model settings, and applies the watcher's events.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.checks import GlossaryTerm, dismiss
from engine.checks.incremental import ChapterChecks
from engine.chunks import TaskType
from engine.config import Config, ModelSettings
from engine.run_request import RunRequest
from engine.trace import default_trace_path
from store import edits
from store.atomic import CommitError
from store.chapter_order import in_chapter_order
from store.commit import ChapterStore
from store.conflicts import Resolution, StoredConflict, list_conflicts, resolve
from store.errors import ChapterLoadError, StoreError
from store.merge import DEFAULT_KEEP_VERSIONS
from store.model import Chapter, Paragraph
from store.watch_events import ChapterChanged, ChapterDeleted, ChapterInvalid, WatchEvent
from store.watch_read import Known, known_state
from store.workspace import Workspace
from tui.glossary_view import GlossaryView
from tui.memory_view import MemoryView
from tui.suggestion_queue import pending_count

log = logging.getLogger(__name__)


class EditRefused(StoreError):
    """An edit that cannot be made (the file is invalid on disk, or the paragraph is gone); one sentence."""


@dataclass(frozen=True)
class ChapterSummary:
    """One line of the chapter list."""

    path: Path
    chapter_id: str | None
    title: str | None
    paragraphs: int
    non_empty: int
    translated: int
    reviewed: int
    unreviewed: int  # translated and not reviewed
    suggestions: int  # pending suggestions, waiting for the editor
    changed_on_disk: bool
    conflicts: int
    invalid: str | None
    deleted: bool


class ChapterSession:
    """The last good state of one chapter and the editor's changes to it (see the module docstring)."""

    def __init__(self, path: Path, workspace: Workspace, *, keep_versions: int = DEFAULT_KEEP_VERSIONS) -> None:
        self.path = path
        self.workspace = workspace
        self.store = ChapterStore(path, workspace, keep_versions)
        self._guard = threading.Lock()
        self.chapter: Chapter | None = None
        self.invalid: str | None = None  # one line, while the file on disk does not parse
        self.deleted = False
        self.changed_on_disk = False  # changed outside proofdesk since the editor last opened it
        self.run_changed: set[str] = set()  # paragraph IDs committed by the last run (cleared by review)
        self.conflicts: tuple[StoredConflict, ...] = ()
        self.generation = 0  # bumped on every change of state, so views know when to redraw
        self._summary: tuple[tuple[object, ...], ChapterSummary] | None = None
        self._checks = ChapterChecks()  # the latest QA checks, whichever state (the chapter list's count)

    # -- state -------------------------------------------------------------------------------------------

    @property
    def conflict_ids(self) -> frozenset[str]:
        """IDs of paragraphs with an unresolved conflict record."""
        return frozenset(c.record.paragraph_id for c in self.conflicts)

    def _set(self, chapter: Chapter) -> Chapter:
        with self._guard:
            self.chapter = chapter
            self.generation += 1
        return chapter

    def load(self) -> Chapter:
        """Read the file (blocking); raises ChapterLoadError. Clears the invalid mark on success."""
        chapter = self.store.load()
        self.invalid = None
        self.deleted = False
        return self._set(chapter)

    def adopt_committed(self) -> Chapter | None:
        """Show what a run just committed through this session's store (no read of our own write)."""
        chapter = self.store.chapter
        if chapter is None or chapter is self.chapter:
            return self.chapter
        self.invalid = None
        self.deleted = False
        return self._set(chapter)

    def adopt(self, chapter: Chapter, *, external: bool) -> None:
        """Take a state the watcher (or a run's commit) read; ``external`` marks it changed on disk."""
        self.invalid = None
        self.deleted = False
        if external:
            self.changed_on_disk = True
        self._set(chapter)

    def mark_invalid(self, error: ChapterLoadError) -> None:
        """The file stopped parsing: keep the last good state, refuse edits until it is fixed."""
        self.invalid = error.line
        self.generation += 1

    @property
    def usable(self) -> bool:
        """Whether the file on disk can take a commit (it parses and it exists)."""
        return not self.invalid and not self.deleted

    def mark_deleted(self) -> None:
        """The file is gone: keep the last good state in memory, refuse edits."""
        self.deleted = True
        self.generation += 1

    def refresh_conflicts(self) -> tuple[StoredConflict, ...]:
        """Re-read the unresolved conflict records of this chapter (blocking)."""
        self.conflicts = tuple(list_conflicts(self.workspace, self.path))
        self.generation += 1
        return self.conflicts

    def summary(self) -> ChapterSummary:
        """The chapter's line in the chapter list (cached until the state changes)."""
        key = (self.generation, self.changed_on_disk, self.invalid, self.deleted, len(self.conflicts))
        if self._summary is not None and self._summary[0] == key:
            return self._summary[1]
        summary = self._summarise()
        self._summary = (key, summary)
        return summary

    def _summarise(self) -> ChapterSummary:
        chapter = self.chapter
        if chapter is None:
            return self._summary_of(None, None, 0, [], 0)
        # The non-empty positions come from the lookup tables every commit hands on: no text is looked at here.
        from engine.tools.lookup import chapter_index  # here: the tools' package is not needed to start

        non_empty = [chapter.paragraphs[pos] for pos in chapter_index(chapter).nonempty]
        return self._summary_of(chapter.id, chapter.title, len(chapter.paragraphs), non_empty, pending_count(chapter))

    def _summary_of(
        self, chapter_id: str | None, title: str | None, paragraphs: int, non_empty: list[Paragraph], suggestions: int
    ) -> ChapterSummary:
        return ChapterSummary(
            path=self.path,
            chapter_id=chapter_id,
            title=title,
            paragraphs=paragraphs,
            non_empty=len(non_empty),
            translated=sum(p.selected_translation_id is not None for p in non_empty),
            reviewed=sum(p.reviewed for p in non_empty),
            unreviewed=sum(p.selected_translation_id is not None and not p.reviewed for p in non_empty),
            suggestions=suggestions,
            changed_on_disk=self.changed_on_disk,
            conflicts=len(self.conflicts),
            invalid=self.invalid,
            deleted=self.deleted,
        )

    def known_warnings(self, terms: tuple[GlossaryTerm, ...]) -> int | None:
        """How many QA warnings the chapter as it is has with ``terms``, if checked already (None: not yet)."""
        checks = self._checks
        if checks.chapter is None or checks.chapter is not self.chapter:
            return None
        if checks.glossary is not terms and checks.glossary != terms:
            return None
        return checks.warnings.count

    def count_warnings(self, terms: tuple[GlossaryTerm, ...]) -> int | None:
        """The QA warnings of the chapter as it is with the glossary's ``terms`` (None: no chapter read), as the
        chapter view counts them (blocking: checks again only the paragraphs changed since the last checks)."""
        chapter = self.chapter
        if chapter is None:
            return None
        known = self.known_warnings(terms)
        if known is not None:
            return known
        checks = self._checks.update(chapter, terms)
        assert checks is not None  # only a stop() makes an update give up
        self._checks = checks
        return checks.warnings.count

    def note_checks(self, checks: ChapterChecks) -> None:
        """Keep the checks the chapter view computed: the list's count, and the next update, start from them."""
        self._checks = checks

    # -- changes (blocking: run in a thread) --------------------------------------------------------------

    def _change(self, paragraph_id: str, fn: Callable[[Paragraph], Paragraph]) -> Chapter:
        if self.invalid is not None:
            raise EditRefused(f"{self.path.name} is not valid on disk ({self.invalid}); fix the file first")
        if self.deleted:
            raise EditRefused(f"{self.path.name} no longer exists on disk")

        def apply(chapter: Chapter) -> Chapter:
            pos = chapter.positions.get(paragraph_id)
            if pos is None:
                raise EditRefused(f"paragraph {paragraph_id} is no longer in {self.path.name}")
            try:
                new = fn(chapter.paragraphs[pos])
            except edits.EditError as exc:
                raise EditRefused(str(exc)) from None
            return chapter if new is chapter.paragraphs[pos] else chapter.with_paragraphs({pos: new})

        try:
            return self._set(self.store.update(apply))
        except CommitError as exc:
            raise EditRefused(str(exc)) from None

    def edit_translation(self, paragraph_id: str, text: str) -> Chapter:
        """Append ``text`` as a ``manual`` version and select it (nothing happens if it equals the selection)."""
        return self._change(paragraph_id, lambda para: edits.edit_translation(para, text))

    def select_version(self, paragraph_id: str, version_id: str) -> Chapter:
        """Select an existing version of the paragraph."""
        return self._change(paragraph_id, lambda para: edits.select_version(para, version_id))

    def set_reviewed(self, paragraph_id: str, reviewed: bool) -> Chapter:
        """Mark the paragraph reviewed (or not)."""
        chapter = self._change(paragraph_id, lambda para: edits.set_reviewed(para, reviewed))
        if reviewed:
            self.run_changed.discard(paragraph_id)
        return chapter

    def accept_suggestion(self, paragraph_id: str, version_id: str) -> Chapter:
        """Select the pending suggestion, mark it accepted and the paragraph reviewed (the editor read it)."""
        chapter = self._change(paragraph_id, lambda para: edits.accept(para, version_id))
        self.run_changed.discard(paragraph_id)
        return chapter

    def reject_suggestion(self, paragraph_id: str, version_id: str) -> Chapter:
        """Mark the pending suggestion rejected; nothing else in the file changes. The editor has looked at the
        paragraph: it no longer shows as changed by the last run (whose suggestion it was)."""
        chapter = self._change(paragraph_id, lambda para: edits.reject(para, version_id))
        self.run_changed.discard(paragraph_id)
        return chapter

    def edit_and_accept(self, paragraph_id: str, version_id: str, text: str) -> Chapter:
        """Accept the pending suggestion with the editor's ``text`` (a ``manual`` version when it differs); the
        paragraph is reviewed."""
        chapter = self._change(paragraph_id, lambda para: edits.edit_and_accept(para, version_id, text))
        self.run_changed.discard(paragraph_id)
        return chapter

    def dismiss_warnings(self, paragraph_id: str, codes: Sequence[str], translation: str | None = None) -> Chapter:
        """Dismiss the QA warnings ``codes`` on the paragraph for its source and ``translation``: the text the
        person saw (default: the selected text at commit time). A dismissal of a text the paragraph no longer
        holds changes nothing visible: it applies only if that text is selected again."""

        def apply(para: Paragraph) -> Paragraph:
            seen = para.selected_text if translation is None else translation
            if seen is None:
                raise EditRefused(f"paragraph {paragraph_id} has no translation, so no warning to dismiss")
            for code in codes:
                para = dismiss(para, code, seen)
            return para

        return self._change(paragraph_id, apply)

    def resolve_conflict(self, conflict: StoredConflict, resolution: Resolution, text: str | None = None) -> Chapter:
        """Resolve one conflict record: keep theirs (the file as it is), keep ours, or an edited text."""
        record = conflict.record
        chapter = self.chapter
        if resolution == "keep_ours":
            chapter = self._change(
                record.paragraph_id, lambda para: edits.keep_ours(para, record.our_version_id, record.our_text)
            )
        elif resolution == "edited":
            if text is None:
                raise ValueError("an edited resolution needs the text")
            chapter = self.edit_translation(record.paragraph_id, text)
        resolve(conflict, resolution)
        self.refresh_conflicts()
        if chapter is None:
            raise EditRefused(f"{self.path.name} has no good state to show")
        return chapter


class WorkspaceSession:
    """Every chapter of the open workspace, the configuration and the model settings in use."""

    def __init__(self, workspace: Workspace, config: Config, settings: ModelSettings) -> None:
        self.workspace = workspace
        self.config = config
        self.settings = settings
        self.sessions: dict[Path, ChapterSession] = {}
        self.glossary = GlossaryView(workspace)
        self.memory = MemoryView(workspace, config.run)

    @property
    def chunk_chars(self) -> int:
        """Chunk size of runs and of the chunk separators in the chapter view."""
        return self.config.run.chunk_chars

    def held_chapters(self) -> dict[Path, Chapter]:
        """The chapters the sessions hold, as they are on disk after our commits (the memory reads no file back)."""
        return {path: s.chapter for path, s in list(self.sessions.items()) if s.chapter is not None}

    def session(self, path: Path) -> ChapterSession:
        """The session of a chapter file (created on first use, not loaded)."""
        key = path.parent.resolve() / path.name
        found = self.sessions.get(key)
        if found is None:
            found = self.sessions[key] = ChapterSession(
                key, self.workspace, keep_versions=self.config.run.keep_versions
            )
        return found

    def run_request(
        self, chapter: ChapterSession, task: TaskType, *, demo_delay: float = 0.0, **options: Any
    ) -> RunRequest:
        """The run of ``task`` on a chapter, as configured; ``options`` are RunRequest fields (``only_chunk``,
        ``include_all``, ``only_paragraph``, ``instruction``)."""
        chapter_id = chapter.chapter.id if chapter.chapter is not None else chapter.path.stem
        return RunRequest.configured(
            chapter.path,
            task,
            self.settings,
            self.config.run,
            trace_path=default_trace_path(self.workspace.traces_dir, chapter_id, task),
            demo_delay=demo_delay,
            **options,
        )

    def known_states(self) -> dict[Path, Known]:
        """What the sessions last read or wrote, for seeding the watcher (blocking: hashes the bytes)."""
        known: dict[Path, Known] = {}
        for path, session in list(self.sessions.items()):
            seen = session.store.last_seen()
            if seen is not None:
                known[path] = known_state(*seen)
        return known

    def chapter_paths(self) -> list[Path]:
        """The chapter files of the workspace now on disk, plus any we know of that were deleted."""
        paths = set(self.workspace.chapter_paths())
        paths.update(p for p, s in self.sessions.items() if s.deleted or s.chapter is not None)
        return in_chapter_order(self.workspace.root, paths)

    def apply(self, event: WatchEvent) -> tuple[ChapterSession, str]:
        """Apply one watcher event; return the affected session and a one-line notice for the log."""
        session = self.session(event.path)
        name = event.path.name
        if isinstance(event, ChapterChanged):
            had = session.chapter is not None
            session.adopt(event.chapter, external=had)
            return session, (f"{name} changed on disk; reloaded" if had else f"{name} appeared in the workspace")
        if isinstance(event, ChapterInvalid):
            session.mark_invalid(event.error)
            return session, f"{name} is not valid on disk; keeping the last good state: {event.error.line}"
        if isinstance(event, ChapterDeleted):
            session.mark_deleted()
            return session, f"{name} was deleted on disk; its last state stays on screen, edits are refused"
        raise TypeError(f"unknown watch event {event!r}")
