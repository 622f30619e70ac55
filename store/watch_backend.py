"""The notify backend the watcher listens to: watchfiles' ``awatch`` on the workspace folder, or a test's stand-in.

A backend is a factory ``(folder, stop_event, filter) -> async iterator of change sets``; the watcher restarts it
when it fails or the folder is replaced, and stops it through ``stop_event``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from pathlib import Path

from watchfiles import Change, awatch

WatchFilter = Callable[[Change, str], bool]
# (folder, stop_event, filter) -> async iterator of change sets; awatch by default, replaceable for tests.
WatchFactory = Callable[[Path, asyncio.Event, WatchFilter], AsyncGenerator[set[tuple[Change, str]], None]]


def default_watch(
    root: Path, stop_event: asyncio.Event, watch_filter: WatchFilter
) -> AsyncGenerator[set[tuple[Change, str]], None]:
    """watchfiles' ``awatch`` on ``root`` alone (not recursive), stoppable through ``stop_event``."""
    # The watch thread checks stop_event every ``step``; rust_timeout bounds how long a bare cancellation
    # (no stop_event) waits for that thread, since awatch cannot abandon it.
    return awatch(
        root,
        watch_filter=watch_filter,
        stop_event=stop_event,
        recursive=False,
        debounce=1_600,
        step=50,
        rust_timeout=1_000,
    )
