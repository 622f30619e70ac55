"""Watching a workspace folder for chapter edits made outside proofdesk.

``ChapterWatcher`` follows ``guides/reliability.md`` ("Watching for edits made outside"):

- it watches the workspace *folder* with watchfiles (editors save by rename; a watch on the file goes deaf),
  non-recursively, and only looks at chapter names (``is_chapter_name``): our temps, ``.proofdesk/``, and editor
  droppings (``.x.swp``, ``x~``, ``4913``, ``.#x``) never cause a read;
- every notification only *pokes* a path: the path is read after ``settle`` seconds without another poke, in
  one consistent snapshot (see ``store.watch_read``); content that does not parse is re-read ``retry_delay``
  apart and reported ``ChapterInvalid`` only once the same bytes failed ``retries`` re-reads in a row (bytes
  that keep changing are still being written), so a half-written file is never adopted;
- content that is one of our own writes (``workspace.own_writes``, by content hash — never by time or mtime)
  not seen on disk before, or identical to the known state, gives no event but becomes the known state; an
  own write seen once and back again later is someone restoring it, and is reported;
- a missing file is reported ``ChapterDeleted`` only when it is still missing ``delete_grace`` seconds after it
  was first seen missing; a file recreated meanwhile is compared with the known state like any change;
- a reconcile scan stats every chapter and pokes those whose (inode, size, mtime_ns, ctime_ns) differ from the
  known state, so a missed notification (same-second rewrite, rsync replace with an older mtime, a dead backend)
  is still caught. It runs every ``reconcile_every`` seconds (2) until the backend has proved healthy — it ran
  ``healthy_after`` seconds (30) without failing and no scan found a change it missed — and then every
  ``reconcile_idle`` seconds (30), so an idle workstation on 5,000 chapters costs next to nothing; a backend
  failure, a replaced workspace folder or a missed change (a change the scan found with no notification for it
  ``miss_grace`` seconds after it happened: a filesystem without inotify, a network mount) goes back to the
  short interval;
- if the notify backend raises or ends, it is restarted after a backoff (logged), and a scan runs at once.

Start-up: the known state is seeded from one scan of the folder, silently. ``seed()`` returns what it read
(``{path: Chapter | ChapterLoadError}``) so a consumer can take its initial state from the very bytes the
watcher knows, leaving no gap in which an edit could be missed. Pass ``initial_events=True`` to get one
``ChapterChanged`` / ``ChapterInvalid`` per existing file instead.

One consumer reads ``events()``; call ``stop()`` (or use ``async with``) to shut down: it stops the backend
through awatch's ``stop_event``, so no watch thread outlives the watcher.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from types import TracebackType

from watchfiles import Change

from store.errors import ChapterLoadError
from store.model import Chapter
from store.watch_backend import WatchFactory, default_watch
from store.watch_events import ChapterChanged, ChapterDeleted, ChapterInvalid, WatchEvent, WatchStats
from store.watch_misses import MissedNotifications
from store.watch_notify import HEALTHY_RUN, NotifyRunner
from store.watch_own import OwnWriteLedger
from store.watch_read import Examined, Known, StatKey, examine, scan_folder
from store.workspace import Workspace, is_chapter_name

log = logging.getLogger(__name__)


class _Stop:
    """End-of-stream marker in the event queue."""


class ChapterWatcher:
    """Yields typed events for chapter files of ``workspace`` changed, broken or deleted outside proofdesk."""

    def __init__(
        self,
        workspace: Workspace,
        *,
        settle: float = 0.3,
        delete_grace: float = 2.0,
        reconcile_every: float = 2.0,
        reconcile_idle: float = 30.0,
        healthy_after: float = HEALTHY_RUN,
        miss_grace: float = 3.0,
        retries: int = 3,
        retry_delay: float | None = None,
        restart_backoff: float = 0.5,
        max_backoff: float = 10.0,
        initial_events: bool = False,
        watch_factory: WatchFactory = default_watch,
    ) -> None:
        self.workspace = workspace
        self.root = workspace.root
        self.settle = settle
        self.delete_grace = delete_grace
        self.reconcile_every = reconcile_every
        self.reconcile_idle = max(reconcile_idle, reconcile_every)
        self.healthy_after = healthy_after
        self.misses = MissedNotifications(miss_grace)
        self.retries = retries
        self.retry_delay = settle if retry_delay is None else retry_delay
        self.initial_events = initial_events
        self.stats = WatchStats()
        self._known: dict[Path, Known] = {}
        self._due: dict[Path, float] = {}  # path -> loop time at which to look at it
        self._attempts: dict[Path, tuple[str, int]] = {}  # path -> (bad content digest, reads of it in a row)
        self._missing_since: dict[Path, float] = {}
        self._paths: dict[str, Path] = {}  # one Path per chapter name: the scan hashes names, never builds paths
        self._fast_until = 0.0  # loop time until which the scan keeps its short interval
        self.own = OwnWriteLedger(self.workspace.own_writes)  # which own writes were already seen on disk
        self._queue: asyncio.Queue[WatchEvent | _Stop] = asyncio.Queue()
        self._wake = asyncio.Event()
        self._scan_now = asyncio.Event()
        self.notify = NotifyRunner(
            self.root,
            watch_factory,
            self.stats,
            accept=self._accept,
            on_changes=self._notice,
            scan=self._scan_now.set,
            go_fast=self._go_fast,
            restart_backoff=restart_backoff,
            max_backoff=max_backoff,
        )
        self._root_id: tuple[int, int] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._seeded = False
        self._started = False
        self._stopping = False

    # -- life cycle ---------------------------------------------------------------------------------------

    async def seed(self, known: Mapping[Path, Known] | None = None) -> dict[Path, Chapter | ChapterLoadError]:
        """Read every chapter once and make it the known state (no events); return what was read.

        ``known`` holds what the caller already read (``known_state`` of a store): a file still holding those
        bytes is not parsed again and its entry in the result is the caller's own chapter object, so the
        caller can tell "unchanged" by identity and no second copy of a chapter is kept. Files still being
        written at that moment are read again after ``settle`` and reported if they end up different from
        what this returned.
        """
        found, self._root_id = await asyncio.to_thread(scan_folder, self.root)
        result: dict[Path, Chapter | ChapterLoadError] = {}
        for name in sorted(found):
            path = self._path(name)
            given = known.get(path) if known else None
            ex = await asyncio.to_thread(examine, path, given, None)
            state = self._adopt(path, ex, given.chapter if given is not None else None)
            if state is None:  # vanished or changing under us: look again once it has settled
                self._poke(path)
            else:
                result[path] = state
        self._seeded = True
        return result

    def _adopt(self, path: Path, ex: Examined, given: Chapter | None) -> Chapter | ChapterLoadError | None:
        """Make what the seed read of ``path`` its known state: the chapter (``given`` when the bytes are the
        caller's) or the load error; None when there is nothing to adopt yet."""
        if ex.digest is None:
            return None
        chapter = {"same": given, "changed": ex.chapter}.get(ex.status)
        if chapter is not None:
            self._known[path] = Known(ex.digest, ex.stat, True, chapter)
            return chapter
        if ex.status == "invalid" and ex.error is not None:
            self._known[path] = Known(ex.digest, ex.stat, False)
            return ex.error
        return None

    async def start(self) -> None:
        """Start watching, then seed the known state (unless ``seed()`` ran before). Idempotent.

        The backend starts first, so no edit can slip between the seed scan and the first notification:
        once this returns, every later edit is noticed.
        """
        if self._started or self._stopping:
            return
        self._started = True
        self._go_fast()
        self._tasks.append(asyncio.create_task(self.notify.run(), name="chapter-watcher-notify"))
        # One turn of the loop runs awatch up to its first real await, by which time its inotify watch exists.
        await asyncio.sleep(0)
        if self._seeded:
            self._scan_now.set()  # edits made between that seed() and now: the first scan finds them
        else:
            seeded = await self.seed()
            if self.initial_events:
                self._report_all(seeded)
        self._tasks.append(asyncio.create_task(self._settle_loop(), name="chapter-watcher-settle"))
        self._tasks.append(asyncio.create_task(self._reconcile_loop(), name="chapter-watcher-reconcile"))

    def _report_all(self, seeded: dict[Path, Chapter | ChapterLoadError]) -> None:
        for path, state in seeded.items():
            if isinstance(state, ChapterLoadError):
                self._queue.put_nowait(ChapterInvalid(path, state))
            else:
                self._queue.put_nowait(ChapterChanged(path, state, self._known[path].digest))

    async def stop(self) -> None:
        """Stop watching, end ``events()`` and wait for every task and the watch thread to finish."""
        if self._stopping:
            return
        self._stopping = True
        self.notify.stop()
        self._wake.set()
        self._scan_now.set()
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            if not task.get_name().endswith("notify"):  # the notify loop ends by its stop event
                task.cancel()  # no await in between: nothing can be queued after the end marker
        self._queue.put_nowait(_Stop())
        # Shielded: if stop() itself is cancelled the tasks still wind down (their stop signals are set).
        await asyncio.shield(asyncio.gather(*tasks, return_exceptions=True))

    async def __aenter__(self) -> ChapterWatcher:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    async def events(self) -> AsyncIterator[WatchEvent]:
        """The events, in the order they were decided; ends after ``stop()``. Starts the watcher if needed."""
        await self.start()
        while True:
            item = await self._queue.get()
            if isinstance(item, _Stop):
                self._queue.put_nowait(item)  # a second reader (or a later call) ends too
                return
            yield item

    def __aiter__(self) -> AsyncIterator[WatchEvent]:
        return self.events()

    @property
    def reconcile_interval(self) -> float:
        """Seconds between reconcile scans now: short until the notify backend has proved healthy."""
        if asyncio.get_running_loop().time() < self._fast_until:
            return self.reconcile_every
        return self.reconcile_idle

    def _go_fast(self, extra: float = 0.0) -> None:
        """Scan at the short interval until the backend has again run ``healthy_after`` seconds (plus ``extra``)."""
        self._fast_until = max(self._fast_until, asyncio.get_running_loop().time() + extra + self.healthy_after)

    def _path(self, name: str) -> Path:
        """The one ``Path`` of chapter ``name`` (its hash is computed once, not at every scan)."""
        path = self._paths.get(name)
        if path is None:
            path = self._paths[name] = self.root / name
        return path

    def pending(self) -> list[Path]:
        """The chapters the watcher still means to look at: waiting to be read (a settle delay, a parse retry,
        a deletion's grace)."""
        return sorted({*self._due, *self._attempts, *self._missing_since})

    def idle(self) -> bool:
        """Whether the watcher can report nothing more about the files as it last saw them: nothing pending and
        every event taken by its reader."""
        return not self.pending() and self._queue.empty()

    @property
    def missed(self) -> int:
        """How many changes the scan found that the notify backend never reported."""
        return self.misses.count

    def unjudged(self) -> int:
        """How many changes a scan found before their notification, still waiting to be judged as missed or not."""
        return self.misses.unjudged()

    def known_digest(self, path: Path) -> str | None:
        """The content digest of the state last reported or adopted for ``path`` (None if unknown)."""
        known = self._known.get(path)
        return known.digest if known else None

    # -- the notify backend -------------------------------------------------------------------------------

    def _accept(self, change: Change, raw: str) -> bool:
        path = Path(raw)
        return path.parent == self.root and is_chapter_name(path.name)

    def _notice(self, changes: set[tuple[Change, str]]) -> None:
        """Poke every chapter in a batch of notifications, and note when it was notified."""
        self.stats.notify_batches += 1
        now_ns = time.time_ns()
        for change, raw in changes:
            if self._accept(change, raw):
                path = self._path(Path(raw).name)
                self.misses.notified(path, now_ns)
                self._poke(path)

    def _restart_notify(self) -> None:
        self._go_fast()
        self.notify.rewatch()

    # -- settling and reading ------------------------------------------------------------------------------

    def _poke(self, path: Path, delay: float | None = None) -> None:
        """Look at ``path`` once it has been quiet for ``settle`` seconds (each poke restarts the wait)."""
        self._due[path] = asyncio.get_running_loop().time() + (self.settle if delay is None else delay)
        self._wake.set()

    def _schedule_if_idle(self, path: Path, at: float) -> None:
        # A poke that arrived while we were reading wins: the file changed again, look after it settles.
        if path not in self._due:
            self._due[path] = at
            self._wake.set()

    async def _settle_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._stopping:
            now = loop.time()
            await self._check_due(now)
            self._wake.clear()
            timeout = min(self._due.values(), default=now + 3600.0) - loop.time()
            if timeout > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), timeout=timeout)

    async def _check_due(self, now: float) -> None:
        """Look at every path whose time has come; one that cannot be checked is looked at again later."""
        for path in [p for p, at in self._due.items() if at <= now]:
            del self._due[path]
            try:
                await self._check(path)
            except Exception:
                log.exception("could not check %s; will look again", path)
                self._schedule_if_idle(path, asyncio.get_running_loop().time() + max(self.settle, 1.0))

    async def _check(self, path: Path) -> None:
        loop = asyncio.get_running_loop()
        known = self.own.known_now(path, self._known.get(path))
        ex = await asyncio.to_thread(examine, path, known, self.own.is_new_own(path))
        if ex.status == "same" and known is not self._known.get(path):
            ex = dataclasses.replace(ex, status="own")  # the file holds our latest write
        now = loop.time()
        if ex.status != "missing":
            self._missing_since.pop(path, None)
        if ex.status == "missing":
            self._on_missing(path, known, now)
        elif ex.status == "unstable":
            self.stats.unstable_reads += 1
            self._poke(path)
        else:
            self.stats.reads += 1
            if ex.status == "invalid":
                self._on_invalid(path, known, ex, now)
            else:
                self._attempts.pop(path, None)
                self._on_readable(path, known, ex)

    def _on_readable(self, path: Path, known: Known | None, ex: Examined) -> None:
        assert ex.digest is not None
        if ex.status == "own":
            self.stats.own_writes += 1
            self.own.seen(path, ex.digest)
            # Our own writes are not parsed (the writer holds the chapter), so no chapter object is known.
            self._known[path] = Known(ex.digest, ex.stat, True)
        elif ex.status == "same":
            self.stats.unchanged += 1
            assert known is not None
            self._known[path] = Known(ex.digest, ex.stat, known.valid, known.chapter)
        else:
            self.stats.parses += 1
            assert ex.chapter is not None
            self._known[path] = Known(ex.digest, ex.stat, True, ex.chapter)
            log.info("%s changed outside proofdesk; reloaded", path)
            self._queue.put_nowait(ChapterChanged(path, ex.chapter, ex.digest))

    def _on_invalid(self, path: Path, known: Known | None, ex: Examined, now: float) -> None:
        assert ex.digest is not None and ex.error is not None
        if ex.stat is not None:
            self.stats.parses += 1
        if known is not None and not known.valid and known.digest == ex.digest:
            self._attempts.pop(path, None)  # already reported as invalid, unchanged since
            return
        if self._read_again(path, ex.digest, now):
            return
        self._attempts.pop(path, None)
        self._known[path] = Known(ex.digest, ex.stat, False)
        log.warning("%s; keeping the last good state", ex.error.line)
        self._queue.put_nowait(ChapterInvalid(path, ex.error))

    def _read_again(self, path: Path, digest: str, now: float) -> bool:
        """Whether bad content gets another read before it is reported (``retries`` re-reads of the *same* bad
        content: content that keeps changing is still being written)."""
        last = self._attempts.get(path)
        attempts = last[1] + 1 if last is not None and last[0] == digest else 1
        if attempts > self.retries:
            return False
        self._attempts[path] = (digest, attempts)
        self.stats.parse_retries += 1
        self._schedule_if_idle(path, now + self.retry_delay)
        return True

    def _on_missing(self, path: Path, known: Known | None, now: float) -> None:
        self._attempts.pop(path, None)
        if known is None:
            self._missing_since.pop(path, None)  # never had a state: nothing to report
            return
        since = self._missing_since.setdefault(path, now)
        if now - since >= self.delete_grace:
            del self._missing_since[path]
            del self._known[path]
            self.own.forget(path)
            log.info("%s was deleted outside proofdesk", path)
            self._queue.put_nowait(ChapterDeleted(path))
        else:
            self._schedule_if_idle(path, since + self.delete_grace)

    # -- the reconcile scan ---------------------------------------------------------------------------------

    async def _reconcile_loop(self) -> None:
        while not self._stopping:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._scan_now.wait(), timeout=self.reconcile_interval)
            self._scan_now.clear()
            if self._stopping:
                return
            try:
                await self.reconcile()
            except Exception:
                log.exception("reconcile scan of %s failed", self.root)

    async def reconcile(self) -> int:
        """Stat every chapter now and poke those that are new, missing or changed; return how many."""
        found, root_id = await asyncio.to_thread(scan_folder, self.root)
        if root_id is not None:
            if self._root_id is not None and root_id != self._root_id:
                self._restart_notify()  # the folder we watch was replaced: the old watch is deaf
            self._root_id = root_id
        hits = self._poke_changed(found) + self._poke_vanished(found)
        self.stats.reconcile_hits += hits
        self._judge_suspects()
        if len(self._paths) > 2 * len(found) + 64:  # names come and go: keep the cache to what exists
            self._forget_names_but(set(found))
        return hits

    def _poke_changed(self, found: dict[str, StatKey]) -> int:
        """Poke every chapter whose stat differs from its known state (or that is new); return how many."""
        hits = 0
        known_now, due = self._known, self._due
        for name, key in found.items():
            path = self._path(name)
            known = known_now.get(path)
            if path not in due and (known is None or known.stat != key):
                hits += 1
                self.misses.suspect(path, key[3])
                self._poke(path)
        return hits

    def _poke_vanished(self, found: dict[str, StatKey]) -> int:
        """Poke every known chapter the scan did not find; return how many."""
        gone = [path for path in self._known if path.name not in found and path not in self._due]
        for path in gone:
            self._poke(path)
        return len(gone)

    def _forget_names_but(self, found: set[str]) -> None:
        keep = found | {p.name for p in self._known} | {p.name for p in self._due}
        self._paths = {n: p for n, p in self._paths.items() if n in keep}
        self.misses.keep_only(keep)

    def _judge_suspects(self) -> None:
        """Changes the scan found with no notification for them (``watch_misses``): scan at the short interval."""
        missed = self.misses.judge(time.time_ns())
        if missed:
            if asyncio.get_running_loop().time() >= self._fast_until:
                log.info(
                    "%d change(s) in %s were never notified (first: %s); scanning every %g s again",
                    len(missed),
                    self.root,
                    missed[0].name,
                    self.reconcile_every,
                )
            self._go_fast()
