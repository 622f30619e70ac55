"""One writer per chapter, across processes and threads: ``fcntl.flock`` on a sidecar lock file.

The lock file lives under ``<workspace>/.proofdesk/locks/`` and is never renamed or deleted (deleting a
lock file while someone waits on it would let two writers in). ``flock`` locks belong to an open file
description, so every acquisition opens its own descriptor: two threads of one process exclude each other
exactly like two processes do, and the kernel releases the lock when a process dies.

Lock files are state files: their folder must be a real folder (``safe_state_dir``) and the file is opened
with ``O_NOFOLLOW``, so a planted ``locks/c.json.lock -> /elsewhere/file`` never creates or opens that file.
``RunLock`` is the other lock a chapter has: held for a whole run, so a second run is told about the first.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time
from datetime import datetime
from pathlib import Path
from types import TracebackType

from store.atomic import clean_stale_temps
from store.errors import StoreError
from store.workspace import Workspace, safe_state_dir

DEFAULT_TIMEOUT = 30.0


class LockTimeout(StoreError):
    """The lock could not be taken in time: another writer holds it."""

    def __init__(self, what: str, timeout: float) -> None:
        self.what = what
        self.timeout = timeout
        super().__init__(
            f"timed out after {timeout:g} s waiting for the lock on {what} "
            "(another proofdesk process or window is writing it)"
        )


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

    @property
    def fd(self) -> int | None:
        """The descriptor of the lock file while the lock is held."""
        return self._fd

    def _open(self) -> int:
        try:
            safe_state_dir(self.lock_path.parent)  # raises UnsafeStateDir (a StoreError) for a planted link
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK, 0o666)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise LockError(
                    f"refusing to use the lock file {self.lock_path}: it is a symbolic link; remove it and try again"
                ) from None
            raise LockError(f"could not open the lock file {self.lock_path}: {exc.strerror or exc}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # O_NONBLOCK above: a planted FIFO does not hang us here
            os.close(fd)
            raise LockError(
                f"refusing to use the lock file {self.lock_path}: it is not a regular file; remove it and try again"
            )
        return fd

    def acquire(self, timeout: float | None = None) -> None:
        """Take the lock, waiting up to ``timeout`` (default: the object's); raise :class:`LockTimeout`."""
        if self._fd is not None:
            raise RuntimeError(f"lock on {self.what} is already held by this object")
        limit = self.timeout if timeout is None else timeout
        fd = self._open()
        try:
            self._wait_for(fd, limit)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def _wait_for(self, fd: int, limit: float) -> None:
        """Take the flock on ``fd``, waiting up to ``limit`` seconds; raise :class:`LockTimeout`."""
        deadline = time.monotonic() + limit
        pause = 0.0005
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise LockTimeout(self.what, limit) from None
                # flock has no timed wait: poll with a short, growing pause.
                time.sleep(min(pause, remaining))
                pause = min(pause * 2, 0.02)

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

    def clean_temps_if_free(self, folder: Path, target: str | None = None) -> list[Path]:
        """Remove our stale temps in ``folder`` (of ``target`` only, when given) if this lock is free right now;
        held, someone is writing there and their temps are live. Returns what was removed."""
        try:
            if not self.try_acquire():
                return []
        except StoreError:
            return []
        try:
            return clean_stale_temps(folder, target=target)
        finally:
            self.release()

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


class ChapterLock(FileLock):
    """The write lock of one chapter: ``<workspace>/.proofdesk/locks/<chapter file name>.lock``."""

    def __init__(self, workspace: Workspace, chapter_path: Path | str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        chapter_path = Path(chapter_path)
        super().__init__(workspace.lock_path(chapter_path), what=chapter_path.name, timeout=timeout)
        self.chapter_path = chapter_path

    def __enter__(self) -> ChapterLock:
        self.acquire()
        return self


_VERBS = {"translate": "translating", "polish": "polishing", "proofread": "proofreading"}


class RunBusy(StoreError):
    """Another run holds the chapter's run lock; the message says who and how to proceed."""

    def __init__(self, chapter_name: str, holder: dict[str, str]) -> None:
        self.chapter_name = chapter_name
        self.holder = holder
        verb = _VERBS.get(holder.get("task", ""), "working on")
        pid = holder.get("pid", "unknown")
        started = holder.get("started")
        when = f", started {_local_time(started)}" if started else ""
        super().__init__(
            f"another run is {verb} {chapter_name} (pid {pid}{when}); wait for it or pass --force to run anyway"
        )


def _local_time(stamp: str) -> str:
    """``stamp`` (ISO 8601) as local time: the clock time if it is today, else the date and the time."""
    try:
        moment = datetime.fromisoformat(stamp).astimezone()
    except ValueError:
        return stamp
    return moment.strftime("%H:%M:%S" if moment.date() == datetime.now().astimezone().date() else "%Y-%m-%d %H:%M")


def _head_of(path: Path) -> bytes:
    """The first 4 KiB of a regular file (no link followed, never blocking); empty if it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return b""
    try:
        return os.read(fd, 4096) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    except OSError:
        return b""
    finally:
        os.close(fd)


class RunLock:
    """The lock a run holds on its chapter for its whole duration: ``.proofdesk/locks/<chapter>.run.lock``.

    Two runs on one chapter are not unsafe (every commit merges onto the file under the write lock), but
    both are billed and the second mostly loses to the first; so a second run is refused unless forced. The
    lock is a non-blocking ``flock`` (released by the kernel when the run's process dies); while it is held
    the file names the holder (``pid``, ``started``, ``task`` lines), which the refusal quotes.
    """

    def __init__(self, workspace: Workspace, chapter_path: Path | str) -> None:
        self.chapter_path = Path(chapter_path)
        self._lock = FileLock(workspace.run_lock_path(self.chapter_path), what=f"runs of {self.chapter_path.name}")

    @property
    def held(self) -> bool:
        """Whether this object holds the run lock."""
        return self._lock.held

    @property
    def lock_path(self) -> Path:
        """The run lock file."""
        return self._lock.lock_path

    def acquire(self, task: str, *, force: bool = False) -> bool:
        """Take the lock now or raise :class:`RunBusy`; with ``force``, go on without it (returns False)."""
        if self._lock.try_acquire():
            self._describe_holder(task)
            return True
        if force:
            return False
        raise RunBusy(self.chapter_path.name, self.holder())

    def _describe_holder(self, task: str) -> None:
        fd = self._lock.fd
        assert fd is not None
        started = datetime.now().astimezone().isoformat(timespec="seconds")
        text = f"pid {os.getpid()}\nstarted {started}\ntask {task}\n".encode()
        with contextlib.suppress(OSError):  # only the message of a refused second run depends on it
            os.ftruncate(fd, 0)
            os.pwrite(fd, text, 0)

    def holder(self) -> dict[str, str]:
        """What the lock file says about the run holding it (may be empty or partial)."""
        found: dict[str, str] = {}
        for line in _head_of(self.lock_path).decode("utf-8", "replace").splitlines():
            key, _, value = line.partition(" ")
            if key in ("pid", "started", "task") and value and value.isprintable():
                found[key] = value[:64]
        return found

    def release(self) -> None:
        """Release the lock (the file stays: it is never deleted while someone may wait on it)."""
        fd = self._lock.fd
        if fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)  # a run that starts later never quotes this one's pid
        self._lock.release()
