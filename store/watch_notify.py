"""The watcher's notify backend kept running: watchfiles on the folder until stopped, restarted after a failure.

``NotifyRunner.run`` runs the backend (``watch_backend``) and hands each batch of changes to the watcher. When
the backend raises or ends, it is restarted after a backoff that doubles up to ``max_backoff`` (and starts over
after a run of ``HEALTHY_RUN`` seconds), and the watcher is told to scan at once, for whatever happened while it
was deaf. ``rewatch`` ends the current run on purpose (the folder was replaced: the old watch is deaf) and starts
a new one at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path

from watchfiles import Change

from store.watch_backend import WatchFactory
from store.watch_events import WatchStats

log = logging.getLogger(__name__)

HEALTHY_RUN = 30.0  # a backend that ran this long before failing resets the backoff

Changes = set[tuple[Change, str]]


class NotifyRunner:
    """One folder's notify backend, with what the watcher gives it: which changes it wants (``accept``), where
    batches go (``on_changes``), how to ask for a scan (``scan``) and the short scan interval (``go_fast``)."""

    def __init__(
        self,
        root: Path,
        factory: WatchFactory,
        stats: WatchStats,
        *,
        accept: Callable[[Change, str], bool],
        on_changes: Callable[[Changes], None],
        scan: Callable[[], None],
        go_fast: Callable[[float], None],
        restart_backoff: float,
        max_backoff: float,
    ) -> None:
        self.root = root
        self.factory = factory
        self.stats = stats
        self.accept = accept
        self.on_changes = on_changes
        self.scan = scan
        self.go_fast = go_fast
        self.restart_backoff = restart_backoff
        self.max_backoff = max_backoff
        self.stopped = asyncio.Event()
        self._run_stop: asyncio.Event | None = None  # stop_event of the current awatch run
        self._restart_requested = False

    async def run(self) -> None:
        """Run the backend until :meth:`stop`, restarting it whenever it ends."""
        backoff = self.restart_backoff
        loop = asyncio.get_running_loop()
        while not self.stopped.is_set():
            started = loop.time()
            failure = await self._watch_once()
            if self.stopped.is_set():
                return
            if self._restart_requested:
                self._restart_requested = False
                self.stats.rewatches += 1
                log.info("workspace folder %s was replaced; watching it again", self.root)
                self.scan()
                continue
            self.stats.restarts += 1
            if loop.time() - started > HEALTHY_RUN:
                backoff = self.restart_backoff
            log.warning("%s (%s); restarting in %.1f s", failure, self.root, backoff)
            self.go_fast(backoff)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopped.wait(), timeout=backoff)
            backoff = min(backoff * 2, self.max_backoff)
            self.scan()  # whatever happened while we were deaf

    async def _watch_once(self) -> str:
        """Run the notify backend until it ends, fails or is stopped; say how it ended."""
        self._run_stop = run_stop = asyncio.Event()
        try:
            # aclosing: leaving the loop early must close awatch's notify handle now, not at garbage collection.
            async with contextlib.aclosing(self.factory(self.root, run_stop, self.accept)) as stream:
                async for changes in stream:
                    self.on_changes(changes)
                    if run_stop.is_set():
                        break
        except Exception as exc:
            return f"the file watcher failed: {exc!r}"
        return "the file watcher stopped unexpectedly"

    def rewatch(self) -> None:
        """End the current run and start a new one at once (the folder it watches was replaced)."""
        if self._run_stop is not None and not self._run_stop.is_set():
            self._restart_requested = True
            self._run_stop.set()

    def stop(self) -> None:
        """End :meth:`run`: the current run returns on its own (cancelling awatch would wait for its thread)."""
        self.stopped.set()
        if self._run_stop is not None:
            self._run_stop.set()
