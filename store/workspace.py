"""A workspace: a folder of chapter files plus its ``.proofdesk/`` state folder.

Nothing but ``.proofdesk/`` is ever created beside the chapters: locks, traces and conflict
records all live under it. The workspace also remembers the content hashes of the files this
process wrote, so the watcher can tell our own commits from edits made outside.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import threading
from collections import deque
from pathlib import Path

import xxhash

from store.chapter_order import in_chapter_order
from store.errors import StoreError

STATE_DIR = ".proofdesk"
# Our temp files: ".pd-<key>.<random>.tmp" beside their target, <key> being name_key(target name). Hidden and
# ending in .tmp, so no scan or watcher ever takes one for a chapter.
TEMP_PREFIX = ".pd-"
LEGACY_TEMP_PREFIX = ".proofdesk-"  # earlier versions' ".proofdesk-<name>.<random>.tmp": still cleaned up
TEMP_SUFFIX = ".tmp"
# A name is kept whole in our temp and lock names up to this many bytes; the longest such name is then
# ".pd-" + key + "." + 8 random + ".tmp" = key + 17 <= 217 bytes, and "<key>.run.lock" <= 209: always under
# the 255 bytes a file name may have, whatever the chapter's own name.
KEY_MAX_BYTES = 200
_KEY_HEAD_BYTES = 160


def content_digest(data: bytes) -> str:
    """The content hash that recognises a file version, our own writes among them (XXH3, 128 bits).

    Not a cryptographic hash: it tells versions apart for the watcher (which reloads a version it does not know);
    a commit decides by the bytes themselves. 11.5 MB hash in ~0.2 ms, where BLAKE2b took ~8 ms."""
    return xxhash.xxh3_128_hexdigest(data)


GLOSSARY_NAME = "glossary.json"  # the workspace's glossary (store.glossary), never a chapter


def is_chapter_name(name: str) -> bool:
    """Whether a file name in a workspace can be a chapter: ``*.json``, not hidden, not one of our temps, not the
    glossary."""
    return (
        name.endswith(".json") and not name.startswith(".") and not name.endswith(TEMP_SUFFIX) and name != GLOSSARY_NAME
    )


def name_key(name: str) -> str:
    """The form of a file name used inside our temp and lock names: the name itself up to 200 bytes.

    A longer name (up to the 255 bytes a name may have) becomes its first 160 bytes (cut at a character
    boundary), ``~`` and 16 hex digits of its BLAKE2b hash, so the temp and lock names built from it fit.
    """
    raw = os.fsencode(name)
    if len(raw) <= KEY_MAX_BYTES:
        return name
    head = raw[:_KEY_HEAD_BYTES].decode("utf-8", "ignore")  # drops a character cut in half (and stray bytes)
    return f"{head}~{hashlib.blake2b(raw, digest_size=8).hexdigest()}"


class UnsafeStateDir(StoreError):
    """A folder of ``.proofdesk/`` is a symbolic link or not a folder: proofdesk writes nothing through it."""

    def __init__(self, path: Path, what: str) -> None:
        self.path = path
        if what == "a symbolic link":
            message = (
                f"refusing to use {path}: it is a symbolic link, and proofdesk keeps its state (locks, "
                "traces, conflicts) only in real folders inside the workspace; remove it and try again"
            )
        else:
            message = (
                f"cannot create the folder {path}: something that is {what} is in the way (proofdesk "
                "keeps locks, traces and conflicts there); move it away and try again"
            )
        super().__init__(message)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno != errno.EINVAL:  # a filesystem that cannot fsync folders (as PostgreSQL tolerates)
            raise
    finally:
        os.close(fd)


def safe_state_dir(path: Path, *, create: bool = True) -> Path:
    """``path`` once every folder of it from ``.proofdesk`` down is a real folder; create missing ones.

    A planted symbolic link (``.proofdesk/traces/ch01 -> /elsewhere``) would make us write where nobody asked:
    each folder from the last ``.proofdesk`` component of ``path`` down is looked at without following links,
    and :class:`UnsafeStateDir` names the first that is a link or not a folder. Folders we create are made
    durable (their parent is fsynced). A path with no ``.proofdesk`` component (a trace path the person chose)
    is only created. Raises OSError when a folder cannot be created.
    """
    path = Path(path)
    parts = path.parts
    if STATE_DIR not in parts:
        if create:
            path.mkdir(parents=True, exist_ok=True)
        return path
    start = len(parts) - 1 - parts[::-1].index(STATE_DIR)
    probe = Path(*parts[:start])
    for part in parts[start:]:
        probe = probe / part
        try:
            st = os.lstat(probe)
        except FileNotFoundError:
            if not create:
                return path
            made = _make_folder(probe)
            if made is None:
                continue
            st = made
        _refuse_unless_folder(probe, st)
    return path


def _make_folder(path: Path) -> os.stat_result | None:
    """Create the folder durably (None); if another process made it meanwhile, what it is (its own stat)."""
    try:
        path.mkdir()
    except FileExistsError:
        return os.lstat(path)
    _fsync_dir(path.parent)
    return None


def _refuse_unless_folder(path: Path, st: os.stat_result) -> None:
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeStateDir(path, "a symbolic link")
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeStateDir(path, "not a folder")


def nofollow_opener(path: str, flags: int) -> int:
    """An ``opener`` for ``open()`` that never follows a symbolic link at the file itself (and closes on exec)."""
    return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)


class OwnWrites:
    """Thread-safe memory of the last few content hashes this process wrote, per chapter path."""

    def __init__(self, per_path: int = 16) -> None:
        self._lock = threading.Lock()
        self._per_path = per_path
        self._digests: dict[Path, deque[str]] = {}
        self._landed: dict[Path, str] = {}

    def remember(self, path: Path, digest: str) -> None:
        """Record that we are writing ``digest`` to ``path`` (just before the rename)."""
        with self._lock:
            self._digests.setdefault(path, deque(maxlen=self._per_path)).append(digest)

    def landed(self, path: Path, digest: str) -> None:
        """Record that our write of ``digest`` is now ``path``'s content (the rename is done)."""
        with self._lock:
            self._landed[path] = digest

    def is_own(self, path: Path, digest: str) -> bool:
        """Whether ``digest`` is content we wrote to ``path`` recently."""
        with self._lock:
            return digest in self._digests.get(path, ())

    def last(self, path: Path) -> str | None:
        """The digest of our most recent write to ``path`` that landed (renamed into place), if any."""
        with self._lock:
            return self._landed.get(path)


class Workspace:
    """A folder of chapters and the paths of its ``.proofdesk/`` state."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).resolve()
        self.own_writes = OwnWrites()

    @classmethod
    def for_chapter(cls, chapter_path: str | Path) -> Workspace:
        """The workspace of a single chapter file: the folder that holds it."""
        return cls(Path(chapter_path).resolve().parent)

    @property
    def state_dir(self) -> Path:
        """``<workspace>/.proofdesk``."""
        return self.root / STATE_DIR

    @property
    def locks_dir(self) -> Path:
        """Where chapter lock files live (never beside the chapters)."""
        return self.state_dir / "locks"

    @property
    def conflicts_dir(self) -> Path:
        """Where unmergeable results are written durably."""
        return self.state_dir / "conflicts"

    @property
    def traces_dir(self) -> Path:
        """Where run traces are written."""
        return self.state_dir / "traces"

    def lock_path(self, chapter_path: Path) -> Path:
        """The lock file of a chapter: ``.proofdesk/locks/<chapter file name>.lock`` (``name_key`` of the name)."""
        return self.key_lock_path(name_key(chapter_path.name))

    def key_lock_path(self, key: str) -> Path:
        """The lock file of the chapter whose ``name_key`` is ``key`` (what a temp name of ours carries)."""
        return self.locks_dir / f"{key}.lock"

    def run_lock_path(self, chapter_path: Path) -> Path:
        """The lock held for a whole run of a chapter: ``.proofdesk/locks/<chapter file name>.run.lock``."""
        return self.locks_dir / f"{name_key(chapter_path.name)}.run.lock"

    def safe_state_dir(self, path: Path, *, create: bool = True) -> Path:
        """``path`` (the state folder or a folder in it), checked and created: see :func:`safe_state_dir`."""
        return safe_state_dir(path, create=create)

    def chapter_paths(self) -> list[Path]:
        """The candidate chapter files of the workspace (``*.json`` in the folder itself), in book order (see
        ``store.chapter_order``: ``.proofdesk/book.json``, else natural: ``ch2`` before ``ch10``)."""
        if not self.root.is_dir():
            return []
        return in_chapter_order(self.root, (p for p in self.root.iterdir() if is_chapter_name(p.name) and p.is_file()))
