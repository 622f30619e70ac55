"""Notify backends for the watcher tests: one that hears nothing, one that fails on purpose."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from pathlib import Path

from watchfiles import Change

from store.watch_backend import WatchFilter, default_watch


async def deaf_watch(
    root: Path, stop_event: asyncio.Event, watch_filter: WatchFilter
) -> AsyncGenerator[set[tuple[Change, str]], None]:
    """A backend that never reports anything (a notify queue overflow, a filesystem without inotify)."""
    await stop_event.wait()
    return
    yield  # makes this an async generator


class FlakyBackend:
    """The real watchfiles backend, made to fail: raise before the first ``fail_at_start`` runs, and after the first
    change set of the next run."""

    def __init__(self, fail_at_start: int) -> None:
        self.fail_at_start = fail_at_start
        self.runs = 0

    async def __call__(
        self, root: Path, stop_event: asyncio.Event, watch_filter: WatchFilter
    ) -> AsyncGenerator[set[tuple[Change, str]], None]:
        self.runs += 1
        run = self.runs
        if run <= self.fail_at_start:
            raise OSError(28, "inotify watch limit reached (injected)")
        async with contextlib.aclosing(default_watch(root, stop_event, watch_filter)) as real:
            async for batch in real:
                yield batch
                if run == self.fail_at_start + 1:
                    raise RuntimeError("watch thread died (injected)")
