"""Confirming racy stats off the commit's path.

A stat taken within a clock tick of the file's ctime cannot show a same-size rewrite made in that tick, so a
store compares the bytes before trusting such a stat ("racy", see store.atomic). Every write of ours leaves
such a stat, which made the next read or commit read the whole file back (~10 ms at 10,000 paragraphs). One
helper thread does that read instead, once the window has passed and usually long before the next batch
arrives: a confirmed state is exactly what that next read would have produced.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import threading
import time
import weakref
from io import FileIO
from pathlib import Path
from typing import Protocol

from store.atomic import RACY_WINDOW_NS, FileState

log = logging.getLogger(__name__)


class Confirmable(Protocol):
    """What the helper thread needs of a store: its path (for the log) and the confirmation itself."""

    path: Path

    def _confirm(self, state: FileState) -> None: ...


_confirm_guard = threading.Condition()
_confirm_queue: list[tuple[int, int, weakref.ref[Confirmable], FileState]] = []  # heap: (due, seq, store, state)
_confirm_seq = itertools.count()
_confirm_thread: threading.Thread | None = None


def confirm_later(store: Confirmable, state: FileState) -> None:
    """Have ``store._confirm(state)`` called by the helper thread once ``state``'s racy window has passed."""
    global _confirm_thread
    due = state.ctime_ns + RACY_WINDOW_NS + 1_000_000
    with _confirm_guard:
        heapq.heappush(_confirm_queue, (due, next(_confirm_seq), weakref.ref(store), state))
        if _confirm_thread is None:
            _confirm_thread = threading.Thread(target=_confirm_forever, name="proofdesk-confirm", daemon=True)
            _confirm_thread.start()
        _confirm_guard.notify()


def _confirm_forever() -> None:
    while True:
        with _confirm_guard:
            while not _confirm_queue or _confirm_queue[0][0] > time.time_ns():
                _confirm_guard.wait((_confirm_queue[0][0] - time.time_ns()) / 1e9 if _confirm_queue else None)
            _, _, ref, state = heapq.heappop(_confirm_queue)
        store = ref()
        if store is not None:
            try:
                store._confirm(state)
            except Exception:  # a confirmation is an optimisation: the next read checks the content anyway
                log.debug("%s: background confirmation failed", store.path, exc_info=True)


def still_holds(path: Path, state: FileState, raw: bytes) -> FileState | None:
    """``state`` seen again now, if ``path`` still has its stat and holds exactly ``raw``; else None."""
    try:
        with open(path, "rb", buffering=0) as f:
            seen = time.time_ns()
            before = os.fstat(f.fileno())
            if not state.same_stat(before) or before.st_size != len(raw):
                return None
            same = _holds(f, raw)
            after = os.fstat(f.fileno())
    except OSError:
        return None
    return FileState.of(after, state.digest, seen) if same and state.same_stat(after) else None


_CHUNK = 1 << 20


def _holds(f: FileIO, raw: bytes) -> bool:
    """Whether the open file, read from its start, holds exactly ``raw``.

    Compared 1 MB at a time: no copy of the whole file (reading 115 MB into a new bytes object cost ~4x as
    much), and the GIL is free between chunks.
    """
    buf = bytearray(_CHUNK)
    view = memoryview(buf)
    expected = memoryview(raw)
    pos = 0
    while True:
        n = f.readinto(view)
        if not n:
            return pos == len(raw)
        if pos + n > len(raw):
            return False
        if n == _CHUNK:
            if buf != expected[pos : pos + n]:  # bytearray against any buffer: one memcmp
                return False
        elif view[:n].tobytes() != raw[pos : pos + n]:
            return False
        pos += n


def _after_fork_in_child() -> None:
    # Threads do not survive fork(): a child starts its own helper when it first needs one.
    global _confirm_guard, _confirm_queue, _confirm_thread
    _confirm_guard = threading.Condition()
    _confirm_queue = []
    _confirm_thread = None


os.register_at_fork(after_in_child=_after_fork_in_child)
