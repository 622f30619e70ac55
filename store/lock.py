"""One writer per chapter, across processes and threads: ``fcntl.flock`` on a sidecar lock file.

The lock file lives under ``<workspace>/.proofdesk/locks/`` and is never renamed or deleted (deleting a
lock file while someone waits on it would let two writers in). ``flock`` locks belong to an open file
description, so every acquisition opens its own descriptor: two threads of one process exclude each other
exactly like two processes do, and the kernel releases the lock when a process dies.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from types import TracebackType

from store.errors import StoreError
from store.workspace import Workspace

DEFAULT_TIMEOUT = 30.0


class LockTimeout(StoreError):
    """The lock could not be taken in time: another writer holds it."""

    def __init__(self, what: str, timeout: float) -> None:
        self.what = what
        self.timeout = timeout
        super().__init__(f"timed out after {timeout:g} s waiting for the lock on {what} "
                         "(another proofdesk process or window is writing it)")


class LockError(StoreError):
    """The lock file itself cannot be created or opened."""


class FileLock:
    """An exclusive ``flock`` on ``lock_path``, blocking up to ``timeout`` seconds; not re-entrant."""

    def __init__(self, lock_path: Path, *, what: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.lock_path = lock_path
        self.what = what
        self.timeout = timeout
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """Whether this object currently holds the lock."""
        return self._fd is not None

    def _open(self) -> int:
        try:
            self.lock_path.parent.mkdir(parents=True, exist_ok=True)
            return os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        except OSError as exc:
            raise LockError(f"could not open the lock file {self.lock_path}: {exc.strerror or exc}") from None

    def acquire(self, timeout: float | None = None) -> None:
        """Take the lock, waiting up to ``timeout`` (default: the object's); raise :class:`LockTimeout`."""
        if self._fd is not None:
            raise RuntimeError(f"lock on {self.what} is already held by this object")
        limit = self.timeout if timeout is None else timeout
        fd = self._open()
        deadline = time.monotonic() + limit
        pause = 0.0005
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise LockTimeout(self.what, limit) from None
                    # flock has no timed wait: poll with a short, growing pause.
                    time.sleep(min(pause, remaining))
                    pause = min(pause * 2, 0.02)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def try_acquire(self) -> bool:
        """Take the lock only if it is free right now."""
        if self._fd is not None:
            raise RuntimeError(f"lock on {self.what} is already held by this object")
        fd = self._open()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        """Release the lock (closing the descriptor releases the flock)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


class ChapterLock(FileLock):
    """The write lock of one chapter: ``<workspace>/.proofdesk/locks/<chapter file name>.lock``."""

    def __init__(self, workspace: Workspace, chapter_path: Path | str, *,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        chapter_path = Path(chapter_path)
        super().__init__(workspace.lock_path(chapter_path), what=chapter_path.name, timeout=timeout)
        self.chapter_path = chapter_path

    def __enter__(self) -> ChapterLock:
        self.acquire()
        return self
