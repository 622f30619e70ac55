"""Atomic, durable replacement of one file: a crash at any instant leaves the old file or the new one, whole.

Sequence: ``mkstemp`` in the target's own folder (``O_EXCL``, our prefix/suffix so a temp is never taken
for a chapter), ``fchmod`` to the original's mode, write every byte, ``fsync``, compare-and-swap against the
state the caller merged onto, keep a hard link to the old file, ``os.replace``, ``fsync`` the folder. On any
failure before the rename the temp is removed and the target is untouched; if the folder fsync fails after
the rename, the old file is put back from the hard link so what is on disk matches the error we report.

Symlinked targets are refused (never silently turned into a regular file); open the link's target instead.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from store.errors import StoreError
from store.workspace import LEGACY_TEMP_PREFIX, TEMP_PREFIX, TEMP_SUFFIX, content_digest, name_key

# Hard links are an optimisation for rollback, not a requirement: filesystems without them still commit.
_NO_LINK_ERRNOS = frozenset({errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.EXDEV, errno.ENOSYS})


class CommitError(StoreError):
    """A write that did not happen: the target is unchanged (or was restored) and no temp is left."""

    def __init__(self, path: Path | str, step: str, error: OSError | str | None = None) -> None:
        self.path = Path(path)
        self.step = step
        if isinstance(error, OSError):
            self.errno, self.reason = error.errno, error.strerror or str(error)
        else:
            self.errno, self.reason = None, error or "unknown error"
        super().__init__(f"could not {step} for {self.path.name}: {self.reason}")


class SymlinkRefused(CommitError):
    """The target is a symbolic link; we refuse to replace it (the link would become a plain file)."""

    def __init__(self, path: Path | str) -> None:
        super().__init__(path, "write", "it is a symbolic link; open the file it points to instead")


class ReadOnlyChapter(CommitError):
    """The file is read-only and the person did not ask to rewrite it anyway; nothing was written."""

    def __init__(self, path: Path | str, mode: int) -> None:
        super().__init__(path, "write", f"it is read-only (mode {mode:04o})")
        self.mode = mode
        self.args = (
            f"{self.path.name} is read-only (mode {mode:04o}): proofdesk does not rewrite a read-only "
            "chapter; make it writable (chmod u+w) or pass --force to write it anyway",
        )


def refuse_read_only(path: Path | str) -> None:
    """Raise :class:`ReadOnlyChapter` if ``path`` is read-only by vim's rule; a missing file passes.

    vim's rule: read-only unless we may write the file *and* one of its write bits is set. The bits count even
    for root (who may write anything), and the owner of a 0444 file could rename a new version over it: both
    would defeat a person who made the file read-only on purpose.
    """
    try:
        st = os.stat(path)
    except OSError:
        return
    if not (stat.S_IMODE(st.st_mode) & 0o222) or not os.access(path, os.W_OK):
        raise ReadOnlyChapter(path, stat.S_IMODE(st.st_mode))


class ConcurrentChange(StoreError):
    """The target changed on disk since the caller read it; re-read, merge again and retry."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        super().__init__(f"{self.path.name} changed on disk while it was being committed")


# Kernels without fine-grained timestamps stamp files from a clock that ticks every 1-10 ms: a same-size
# rewrite in the tick we looked at the file leaves its stat unchanged ("racy git"). A stat seen less than
# this long after the file's ctime is therefore confirmed by content, never trusted alone.
RACY_WINDOW_NS = 20_000_000


@dataclass(frozen=True)
class FileState:
    """What we know of a file version: its stat identity and, when computed, its content digest.

    ``seen_ns`` is the wall-clock time (``time.time_ns()``) just before the stat was taken; 0 if unknown.
    """

    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int
    digest: str | None = None
    seen_ns: int = 0

    @classmethod
    def of(cls, st: os.stat_result, digest: str | None = None, seen_ns: int = 0) -> FileState:
        """The state of a stat result (optionally with the digest of the bytes it describes)."""
        return cls(st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, digest, seen_ns)

    def same_stat(self, other: FileState | os.stat_result | None) -> bool:
        """Whether ``other`` has the same inode, size, mtime and ctime (digests are not compared)."""
        if other is None:
            return False
        if isinstance(other, os.stat_result):
            return (self.ino, self.size, self.mtime_ns, self.ctime_ns) == (
                other.st_ino,
                other.st_size,
                other.st_mtime_ns,
                other.st_ctime_ns,
            )
        return (self.ino, self.size, self.mtime_ns, self.ctime_ns) == (
            other.ino,
            other.size,
            other.mtime_ns,
            other.ctime_ns,
        )

    @property
    def racy(self) -> bool:
        """Whether an unchanged stat could still hide a rewrite (seen within a clock tick of the ctime)."""
        return self.ctime_ns > self.seen_ns - RACY_WINDOW_NS

    def with_digest(self, digest: str) -> FileState:
        """A copy carrying ``digest``."""
        return replace(self, digest=digest)


def file_state(path: Path | str, *, with_digest: bool = False) -> FileState | None:
    """The current state of ``path`` (following nothing: a symlink's own state), or None if it is missing."""
    seen = time.time_ns()
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    digest = content_digest(Path(path).read_bytes()) if with_digest and stat.S_ISREG(st.st_mode) else None
    return FileState.of(st, digest, seen)


def current_umask() -> int:
    """The process umask, read without changing it (``os.umask`` would race with other threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # fallback where /proc is unavailable; restored at once
    os.umask(mask)
    return mask


def temp_prefix(target_name: str) -> str:
    """The prefix of our temp files for ``target_name``: ``.pd-<name_key(target_name)>.``.

    Short whatever the target's name: a name of 232 bytes or more could never be committed while temps
    carried the whole name (a temp name over 255 bytes cannot be created).
    """
    return f"{TEMP_PREFIX}{name_key(target_name)}."


def temp_target(temp_name: str) -> str | None:
    """The ``name_key`` of the target a temp of ours belongs to, or None when ``temp_name`` is not one of ours.

    For every target name of up to 200 bytes the key is the name itself. Temps left by earlier versions
    (``.proofdesk-<name>.<random>.tmp``) are recognised too, so a stale one is still cleaned up.
    """
    if not temp_name.endswith(TEMP_SUFFIX):
        return None
    for prefix in (TEMP_PREFIX, LEGACY_TEMP_PREFIX):
        if temp_name.startswith(prefix):
            target, dot, random_part = temp_name[len(prefix) : -len(TEMP_SUFFIX)].rpartition(".")
            if "" in (target, dot, random_part):
                return None
            return target if prefix == TEMP_PREFIX else name_key(target)
    return None


def _remove_quietly(path: str | None) -> None:
    if path is not None:
        # Best effort: a temp we cannot remove now is removed by clean_stale_temps at the next start.
        with contextlib.suppress(OSError):
            os.unlink(path)


def _close_quietly(fd: int) -> None:
    if fd >= 0:
        with contextlib.suppress(OSError):
            os.close(fd)


def fsync_folder(folder: str | Path) -> None:
    """fsync a folder so a rename in it is durable; EINVAL means the filesystem cannot, as PostgreSQL tolerates."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno != errno.EINVAL:
            raise
    finally:
        _close_quietly(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _matches(path: str, expect: FileState, expect_content: bytes | None) -> bool:
    """Compare-and-swap check: is ``path`` still the version the caller merged onto?"""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    if expect.same_stat(st) and not expect.racy:
        return True
    if st.st_size != expect.size or not stat.S_ISREG(st.st_mode):
        return False
    if expect_content is None and expect.digest is None:
        return expect.same_stat(st)  # nothing to compare the content with: the stat is all we have
    # A different or untrustworthy stat with the same size (a touch, an identical rewrite): decide by content.
    return _holds(path, expect_content, expect.digest)


def _holds(path: str, content: bytes | None, digest: str | None) -> bool:
    """Whether ``path`` holds exactly ``content`` (when given), else bytes of that ``digest``."""
    with open(path, "rb") as current:
        raw = current.read()
    return raw == content if content is not None else content_digest(raw) == digest


def _link_backup(path: str) -> str | None:
    """Hard-link the current target under a temp name so a failed folder fsync can be rolled back."""
    folder, name = os.path.split(path)
    for _ in range(16):
        backup = os.path.join(folder, f"{temp_prefix(name)}{secrets.token_hex(4)}{TEMP_SUFFIX}")
        try:
            os.link(path, backup, follow_symlinks=False)
            return backup
        except FileExistsError:
            continue
        except FileNotFoundError:
            return None  # new file: nothing to roll back to
        except OSError as exc:
            if exc.errno in _NO_LINK_ERRNOS:
                return None
            raise
    return None


def atomic_write(
    path: Path | str,
    data: bytes,
    *,
    expect: FileState | None,
    expect_content: bytes | None = None,
    digest: str | None = None,
    before_replace: Callable[[str], None] | None = None,
) -> FileState:
    """Replace ``path`` with ``data`` atomically and durably; return the new file's state (with digest).

    ``expect`` is the state the caller read and merged onto: if the file no longer matches it (by stat;
    by content when the stat differs or is racy) :class:`ConcurrentChange` is raised and nothing is
    written. ``expect_content``, the bytes ``expect`` describes, turns that content check into a plain
    comparison instead of a hash; ``digest`` is ``content_digest(data)`` if the caller has it already.
    ``expect=None`` skips the check (new files, or files nobody else writes). ``before_replace(digest)`` is
    called just before the rename (to remember the write as our own). Any I/O failure raises
    :class:`CommitError` with the target unchanged and no temp left behind.
    """
    digest = digest or content_digest(data)
    target = os.path.abspath(path)
    current = _current(target)
    fd, temp = _durable_temp(target, data, current)
    backup: str | None = None
    replaced = False
    step = "check the file on disk"
    try:
        if expect is not None and not _matches(target, expect, expect_content):
            raise ConcurrentChange(target)
        step = "keep a link to the old file"
        backup = _link_backup(target) if current is not None else None
        if before_replace is not None:
            before_replace(digest)
        step = "replace the file"
        os.replace(temp, target)
        replaced = True
        seen = time.time_ns()
        new_state = FileState.of(os.fstat(fd), digest, seen)
        step = "fsync the folder"
        fsync_folder(os.path.dirname(target))
    except BaseException as exc:
        _close_quietly(fd)
        _undo(target, None if replaced else temp, backup, roll_back=replaced and isinstance(exc, OSError))
        if isinstance(exc, OSError):
            raise CommitError(target, step, exc) from None
        raise
    _close_quietly(fd)  # the bytes were fsynced before the rename; a late close error changes nothing
    _remove_quietly(backup)
    return new_state


def _current(target: str) -> os.stat_result | None:
    """The target's own stat (None for a new file); a symlink or anything but a regular file is refused."""
    try:
        current = os.lstat(target)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CommitError(target, "inspect the file", exc) from None
    if stat.S_ISLNK(current.st_mode):
        raise SymlinkRefused(target)
    if not stat.S_ISREG(current.st_mode):
        raise CommitError(target, "write", "it is not a regular file")
    return current


def _durable_temp(target: str, data: bytes, current: os.stat_result | None) -> tuple[int, str]:
    """A temp file beside ``target`` holding ``data``, fsynced, with the target's mode (and group): its open
    descriptor and its path. On any failure nothing is left behind."""
    folder, name = os.path.split(target)
    mode = stat.S_IMODE(current.st_mode) if current is not None else 0o666 & ~current_umask()
    temp: str | None = None
    fd = -1
    step = "create a temp file"
    try:
        fd, temp = tempfile.mkstemp(dir=folder, prefix=temp_prefix(name), suffix=TEMP_SUFFIX)
        # Mode first, so the fsync below also makes the mode durable (mkstemp creates 0600).
        step = "set the mode of the temp file"
        os.fchmod(fd, mode)
        _keep_group(fd, current)
        step = "write the temp file"
        _write_all(fd, data)
        step = "fsync the temp file"
        # A failed fsync is never retried on this file (fsyncgate): we drop the temp; the caller rewrites.
        os.fsync(fd)
    except BaseException as exc:  # an interrupt must not leave a temp behind either
        _close_quietly(fd)
        _remove_quietly(temp)
        if isinstance(exc, OSError):
            raise CommitError(target, step, exc) from None
        raise
    return fd, temp


def _keep_group(fd: int, current: os.stat_result | None) -> None:
    """Keep a shared group on the new version; possible only when we belong to it."""
    if current is not None and current.st_gid != os.getegid():
        with contextlib.suppress(OSError):
            os.fchown(fd, -1, current.st_gid)


def _undo(target: str, temp: str | None, backup: str | None, *, roll_back: bool) -> None:
    """Clean up after a failed swap: put the old file back after a failed folder fsync (``roll_back``), else
    remove what is left (the temp if it was not renamed yet; a rename interrupted otherwise stands, its bytes
    already fsynced)."""
    if roll_back:
        _roll_back(target, backup)
        return
    _remove_quietly(temp)
    _remove_quietly(backup)


def _roll_back(target: str, backup: str | None) -> None:
    """After a failed folder fsync, put the old file back so the target matches the failure we report."""
    if backup is None:
        return  # no link possible: the new content stays visible; the caller still reports the failure
    try:
        os.replace(backup, target)
    except OSError:
        _remove_quietly(backup)


def clean_stale_temps(folder: Path | str, *, target: str | None = None, older_than: float | None = None) -> list[Path]:
    """Remove our own temp files in ``folder`` (for ``target`` only, if given); return what was removed.

    ``target`` is a ``name_key`` (what :func:`temp_target` returns), which is the name itself for every
    name of up to 200 bytes.

    Only names with our prefix and suffix are touched. Call it while holding the lock of every target whose
    temps may be removed (so no live writer owns them); ``older_than`` (a ``time.time()`` value) additionally
    spares temps modified at or after that moment.
    """
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        owner = temp_target(entry.name)
        if owner is None or (target is not None and owner != target):
            continue
        with contextlib.suppress(OSError):
            if _stale(entry, older_than):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


def _stale(entry: os.DirEntry[str], older_than: float | None) -> bool:
    """Whether a temp of ours may go: a regular file, modified before ``older_than`` if given."""
    st = entry.stat(follow_symlinks=False)
    return stat.S_ISREG(st.st_mode) and (older_than is None or st.st_mtime < older_than)
