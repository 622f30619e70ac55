"""``ChapterStore``: the one way to read and write a chapter file.

Every write runs under the chapter's lock: re-read what is on disk now (or reuse the in-memory chapter when
the file's stat is unchanged since we last read or wrote it), merge, serialise (untouched paragraphs keep
their cached bytes), remember the content hash as our own write (so the watcher ignores it), then
``atomic_write`` with a compare-and-swap against the state we merged onto. A file changed by someone who
does not take our lock (an editor, git) between the read and the rename makes the CAS fail: we merge again.
Calls return only once the new file and its folder entry are durable.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import ClassVar, TypeVar

from store.atomic import (
    CommitError,
    ConcurrentChange,
    FileState,
    SymlinkRefused,
    atomic_write,
    refuse_read_only,
    temp_target,
)
from store.errors import ChapterLoadError, StoreError
from store.loader import parse_chapter
from store.lock import DEFAULT_TIMEOUT, ChapterLock
from store.merge import DEFAULT_KEEP_VERSIONS, BatchItem, KeptSelection, MergeOutcome, StaleItem, Suggested, merge_batch
from store.model import Chapter, Origin, utc_now
from store.racy_confirm import confirm_later, still_holds
from store.serialize import chapter_bytes
from store.workspace import Workspace, content_digest

log = logging.getLogger(__name__)

_CAS_ATTEMPTS = 8  # each failed attempt means someone else wrote the file meanwhile; give up eventually
_T = TypeVar("_T")
_INVALID_RETRY_S = 1.0  # an editor saving in place leaves half-written JSON for a moment: wait that long


class StaleParagraphError(StoreError):
    """A batch refused because paragraphs changed source text or disappeared; nothing was written.

    The batch's texts were saved durably to ``conflict_path`` first.
    """

    def __init__(self, path: Path, stale: Sequence[StaleItem], conflict_path: Path) -> None:
        self.path = path
        self.stale = tuple(stale)
        self.stale_ids = tuple(s.paragraph_id for s in stale)
        self.conflict_path = conflict_path
        shown = ", ".join(self.stale_ids[:5]) + (" …" if len(self.stale_ids) > 5 else "")
        super().__init__(
            f"{path.name}: the source text of {_paragraphs(len(stale))} changed on disk "
            f"since the run read them ({shown}); the batch was not written and its texts were "
            f"kept in {conflict_path}"
        )


def _paragraphs(n: int) -> str:
    return f"{n} paragraph" if n == 1 else f"{n} paragraphs"


@dataclass(frozen=True)
class CommitResult:
    """The outcome of a durable commit.

    ``accepted`` holds every ID that got a new version; those stored as suggestions are also in ``suggested``
    (with why), and those whose selection a person changed during the run also in ``kept_selection`` (with details
    in ``kept``, recorded in ``conflict_path``). ``digest`` is the content hash of the file now on disk.
    """

    chapter: Chapter
    accepted: tuple[str, ...]
    unchanged: tuple[str, ...]
    kept_selection: tuple[str, ...]
    digest: str
    kept: tuple[KeptSelection, ...] = ()
    conflict_path: Path | None = None
    suggested: tuple[Suggested, ...] = ()


class ChapterStore:
    """Reads and writes one chapter file; safe across threads and processes (see module docstring)."""

    _cleaned: ClassVar[set[Path]] = set()
    _cleaned_guard: ClassVar[threading.Lock] = threading.Lock()

    def __init__(
        self,
        path: str | Path,
        workspace: Workspace | None = None,
        keep_versions: int = DEFAULT_KEEP_VERSIONS,
        *,
        lock_timeout: float = DEFAULT_TIMEOUT,
        allow_read_only: bool = False,
    ) -> None:
        given = Path(path)
        # Resolve the folder, never the file: a symlinked chapter is refused, not silently replaced.
        self.path = given.parent.resolve() / given.name
        if self.path.is_symlink():
            raise SymlinkRefused(self.path)
        self.workspace = workspace if workspace is not None else Workspace(self.path.parent)
        self.keep_versions = keep_versions
        self.lock_timeout = lock_timeout
        self.allow_read_only = allow_read_only  # the person asked (--force) to rewrite a read-only chapter
        self._mutex = threading.RLock()
        self._chapter: Chapter | None = None
        self._state: FileState | None = None
        self._raw: bytes | None = None
        self._clean_folder_once()

    # -- reading -----------------------------------------------------------------------------------------

    @property
    def state(self) -> FileState | None:
        """The state of the file version last read or written by this store."""
        return self._state

    @property
    def chapter(self) -> Chapter | None:
        """The chapter this store last read or wrote (what it holds to be on disk), without any I/O."""
        return self._chapter

    def last_seen(self) -> tuple[Chapter, bytes, FileState] | None:
        """The chapter, bytes and file state this store last read or wrote; None before its first read."""
        with self._mutex:
            if self._chapter is None or self._raw is None or self._state is None:
                return None
            return self._chapter, self._raw, self._state

    def load(self) -> Chapter:
        """The chapter on disk; reuses the cached one when the file's stat is unchanged.

        Raises :class:`~store.errors.ChapterLoadError` (one line) if the file is missing or invalid.
        """
        with self._mutex:
            return self._read(trust_stat=True)[0]

    def _read(self, *, trust_stat: bool) -> tuple[Chapter, FileState]:
        cached = self._unchanged() if trust_stat else None
        if cached is not None:
            return cached
        raw, state = self._read_bytes()
        # Same bytes as cached (a touch, or a racy stat confirmed): no re-parse, and the digest still holds.
        if self._chapter is not None and raw == self._raw:
            chapter = self._chapter
            if self._state is not None and self._state.digest is not None:
                state = state.with_digest(self._state.digest)
        else:
            chapter = parse_chapter(raw, self.path)
        self._adopt(chapter, state, raw)
        return chapter, state

    def _unchanged(self) -> tuple[Chapter, FileState] | None:
        """The cached chapter and state when the file still holds them by its stat, else None."""
        chapter, known, raw = self._chapter, self._state, self._raw
        if chapter is None or known is None or raw is None:
            return None
        try:
            st = os.stat(self.path)
        except OSError as exc:
            raise ChapterLoadError.unreadable(self.path, exc) from None
        if not known.same_stat(st):
            return None
        if not known.racy:
            return chapter, known
        # A stat we cannot trust yet: compare the bytes (without copying the file) before reusing.
        again = still_holds(self.path, known, raw)
        if again is None:
            return None
        self._adopt(chapter, again, raw)
        return chapter, again

    def _adopt(self, chapter: Chapter, state: FileState, raw: bytes) -> None:
        """Remember ``chapter`` as the file's content in ``state``; a racy stat gets confirmed in the background."""
        self._chapter, self._state, self._raw = chapter, state, raw
        if state.racy:
            confirm_later(self, state)

    def _confirm(self, state: FileState) -> None:
        """If the file still holds the bytes of ``state`` now that its stat can be trusted, trust it from now on.

        Runs on the confirmation thread, RACY_WINDOW_NS after the file's ctime; reads without the mutex, so it
        never holds up a commit, and only replaces ``state`` if nothing replaced it meanwhile.
        """
        raw = self._raw
        if self._state is not state or raw is None:
            return
        confirmed = still_holds(self.path, state, raw)
        if confirmed is None or confirmed.racy:
            return  # changed, unreadable or still racy: the next read looks at the content itself
        with self._mutex:
            if self._state is state and self._raw is raw:
                self._state = confirmed

    def _read_bytes(self) -> tuple[bytes, FileState]:
        """The file's bytes and the state they belong to (retried while a writer changes it in place)."""
        for _ in range(50):
            try:
                with open(self.path, "rb") as f:
                    seen = time.time_ns()
                    before = os.fstat(f.fileno())
                    if not stat.S_ISREG(before.st_mode):
                        raise ChapterLoadError(str(self.path), None, "is not a regular file")
                    raw = f.read()
                    after = os.fstat(f.fileno())
            except OSError as exc:
                raise ChapterLoadError.unreadable(self.path, exc) from None
            state = FileState.of(after, None, seen)
            if state.same_stat(before):
                return raw, state  # digest computed only if someone asks (it costs ~2 ms per MB)
            time.sleep(0.01)
        raise ChapterLoadError(str(self.path), None, "keeps changing while being read")

    def _read_for_write(self, *, trust_stat: bool) -> tuple[Chapter, FileState]:
        """Read under the lock; a missing or (after a short wait) invalid file becomes a CommitError."""
        deadline = time.monotonic() + _INVALID_RETRY_S
        while True:
            try:
                return self._read(trust_stat=trust_stat)
            except ChapterLoadError as exc:
                if not os.path.lexists(self.path):
                    # Never recreate a chapter someone removed (it may be a git checkout in progress).
                    raise CommitError(self.path, "commit", "the file no longer exists") from None
                if time.monotonic() >= deadline:
                    raise CommitError(self.path, "commit", f"the file on disk is not valid ({exc.line})") from None
                time.sleep(0.05)

    # -- writing -----------------------------------------------------------------------------------------

    def check_writable(self) -> None:
        """Raise :class:`~store.atomic.ReadOnlyChapter` if the file is read-only, unless ``allow_read_only``."""
        if not self.allow_read_only:
            refuse_read_only(self.path)  # every write checks; a run checks once before paying a model

    def _lock(self) -> ChapterLock:
        return ChapterLock(self.workspace, self.path, timeout=self.lock_timeout)

    def _write(self, chapter: Chapter, state: FileState, data: bytes | None = None) -> FileState:
        """Serialise and atomically replace the file, CAS against ``state``; update the cache on success."""
        self.check_writable()
        if data is None:
            data = _encode(self.path, chapter)
        # Remembered just before the rename, so the watcher never sees this content before it is known as ours.
        new_state = atomic_write(
            self.path,
            data,
            expect=state,
            expect_content=self._raw,
            before_replace=lambda digest: self.workspace.own_writes.remember(self.path, digest),
        )
        if new_state.digest is not None:
            self.workspace.own_writes.landed(self.path, new_state.digest)
        self._adopt(chapter, new_state, data)
        return new_state

    def _forget(self) -> None:
        """Drop the cache so the next read parses the file again (after a failed compare-and-swap)."""
        self._chapter = self._state = self._raw = None

    def commit_batch(
        self, items: Sequence[BatchItem], *, origin: Origin, model: str | None, apply: bool = True
    ) -> CommitResult:
        """Merge ``items`` onto the chapter on disk now and write it durably; see :class:`CommitResult`.

        With ``apply=False`` every new text is stored as a suggestion; protected paragraphs always get one.

        Raises :class:`StaleParagraphError` (nothing written to the chapter; the texts saved to
        ``.proofdesk/conflicts/``), :class:`~store.atomic.CommitError` (file untouched, no temp left) or
        :class:`~store.lock.LockTimeout`.
        """
        return self._locked_retries(partial(self._merge_and_write, items, origin, model, apply), "merging")

    def _merge_and_write(
        self,
        items: Sequence[BatchItem],
        origin: Origin,
        model: str | None,
        apply: bool,
        chapter: Chapter,
        state: FileState,
    ) -> CommitResult:
        outcome = merge_batch(chapter, items, origin=origin, model=model, keep_versions=self.keep_versions, apply=apply)
        if outcome.stale:
            raise self._refuse(chapter, items, outcome, origin, model)
        if not outcome.changed:
            return self._result(outcome, state)
        state = self._write(outcome.chapter, state)
        return self._result(outcome, state, self._record_kept(chapter, items, outcome, origin, model))

    def update(self, fn: Callable[[Chapter], Chapter]) -> Chapter:
        """Locked read-modify-write: apply ``fn`` to the chapter on disk now and write the result durably.

        ``fn`` may be called again (on the newer chapter) if the file changes under us; it must not have
        side effects. Returning the same chapter (or one with identical bytes) writes nothing.
        """
        return self._locked_retries(partial(self._apply_and_write, fn), "updating")

    def _apply_and_write(self, fn: Callable[[Chapter], Chapter], chapter: Chapter, state: FileState) -> Chapter:
        new = fn(chapter)
        if new is chapter:
            return chapter
        data = _encode(self.path, new)
        if data == self._raw:
            return chapter  # identical bytes: nothing to write
        self._write(new, state, data)
        return new

    def _locked_retries(self, write: Callable[[Chapter, FileState], _T], doing: str) -> _T:
        """Under the mutex and the lock: read the chapter on disk now and ``write`` onto it; when the file
        changed between that read and the rename (the compare-and-swap failed), read it again and retry."""
        with self._mutex, self._lock():
            trust = True
            for _ in range(_CAS_ATTEMPTS):
                chapter, state = self._read_for_write(trust_stat=trust)
                try:
                    return write(chapter, state)
                except ConcurrentChange:
                    self._forget()
                    trust = False
            raise CommitError(self.path, "commit", f"the file kept changing on disk while {doing}; try again")

    def _result(self, outcome: MergeOutcome, state: FileState, conflict_path: Path | None = None) -> CommitResult:
        return CommitResult(
            chapter=outcome.chapter,
            accepted=outcome.accepted,
            unchanged=outcome.unchanged,
            kept_selection=tuple(k.paragraph_id for k in outcome.kept_selection),
            digest=state.digest or content_digest(self._raw or b""),
            kept=outcome.kept_selection,
            conflict_path=conflict_path,
            suggested=outcome.suggested,
        )

    def _refuse(
        self, chapter: Chapter, items: Sequence[BatchItem], outcome: MergeOutcome, origin: Origin, model: str | None
    ) -> StaleParagraphError:
        """Save every text of a stale batch durably, then build the error to raise."""
        from store.conflicts import ConflictRecord, RejectedText, write_conflicts  # rare: a stale batch

        texts = {i.paragraph_id: i.text for i in items}
        stamp = utc_now()
        records = [
            ConflictRecord(
                chapter_file=self.path.name,
                chapter_id=chapter.id,
                paragraph_id=s.paragraph_id,
                kind="stale_source",
                base_source=s.base_source,
                current_source=s.current_source,
                our_text=texts[s.paragraph_id],
                origin=origin,
                model=model,
                created_at=stamp,
            )
            for s in outcome.stale
        ]
        rejected = [
            RejectedText(
                paragraph_id=i.paragraph_id, text=i.text, base_source=i.base_source, base_selected_id=i.base_selected_id
            )
            for i in items
        ]
        try:
            path = write_conflicts(self.workspace, self.path, records, rejected)
        except (OSError, StoreError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise CommitError(
                self.path,
                "save the refused batch to .proofdesk/conflicts",
                f"{_paragraphs(len(outcome.stale))} changed on disk and {reason}",
            ) from None
        return StaleParagraphError(self.path, outcome.stale, path)

    def _record_kept(
        self, chapter: Chapter, items: Sequence[BatchItem], outcome: MergeOutcome, origin: Origin, model: str | None
    ) -> Path | None:
        """Record kept selections (informational: the versions themselves are already in the chapter)."""
        if not outcome.kept_selection:
            return None
        from store.conflicts import ConflictRecord, write_conflicts  # rare: a person's selection was kept

        by_id = {i.paragraph_id: i for i in items}
        stamp = utc_now()
        records = [
            ConflictRecord(
                chapter_file=self.path.name,
                chapter_id=chapter.id,
                paragraph_id=k.paragraph_id,
                kind="selection_kept",
                base_source=by_id[k.paragraph_id].base_source,
                current_source=by_id[k.paragraph_id].base_source,
                our_text=by_id[k.paragraph_id].text,
                our_version_id=k.version_id,
                their_selected_id=k.current_selected_id,
                their_text=k.current_selected_text,
                origin=origin,
                model=model,
                created_at=stamp,
            )
            for k in outcome.kept_selection
        ]
        try:
            return write_conflicts(self.workspace, self.path, records)
        except (OSError, StoreError) as exc:
            # The commit is durable and lost nothing; only the note about it could not be written.
            log.warning("%s: could not record kept selections in .proofdesk/conflicts: %s", self.path.name, exc)
            return None

    # -- start-up ----------------------------------------------------------------------------------------

    def _clean_folder_once(self) -> None:
        """Remove stale temps of ours beside the chapters (and in conflicts/), once per folder per process."""
        folder = self.path.parent
        with self._cleaned_guard:
            if folder in self._cleaned:
                return
            self._cleaned.add(folder)
        clean_folder(self.workspace, folder)


def _encode(path: Path, chapter: Chapter) -> bytes:
    try:
        return chapter_bytes(chapter)
    except UnicodeEncodeError as exc:
        # Lone surrogates (e.g. a "\ud800" escape in a model's JSON) cannot be written as UTF-8.
        raise CommitError(
            path,
            "encode the chapter",
            f"a text contains a character that is not valid Unicode ({exc.object[exc.start : exc.end]!a})",
        ) from None


def clean_folder(workspace: Workspace, folder: Path) -> list[Path]:
    """Remove our stale temps in ``folder``: only for chapters whose lock is free right now (no live writer)."""
    try:
        with os.scandir(folder) as entries:
            targets = {owner for entry in entries if (owner := temp_target(entry.name)) is not None}
    except OSError:
        return []
    removed: list[Path] = []
    for target in sorted(targets):
        removed += ChapterLock(workspace, folder / target).clean_temps_if_free(folder, target)
    if workspace.conflicts_dir.is_dir():
        from store.conflicts import clean_conflict_temps  # only when a conflict was ever recorded here

        removed += clean_conflict_temps(workspace)
    return removed
