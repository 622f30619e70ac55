"""A workspace: a folder of chapter files plus its ``.proofdesk/`` state folder.

Nothing but ``.proofdesk/`` is ever created beside the chapters: locks, traces and conflict
records all live under it. The workspace also remembers the content hashes of the files this
process wrote, so the watcher can tell our own commits from edits made outside.
"""

from __future__ import annotations

import hashlib
import threading
from collections import deque
from pathlib import Path

STATE_DIR = ".proofdesk"
TEMP_PREFIX = ".proofdesk-"  # our temp files: ".proofdesk-<chapter name>.<random>.tmp"
TEMP_SUFFIX = ".tmp"


def content_digest(data: bytes) -> str:
    """The content hash used to recognise our own writes (BLAKE2b, 128 bits)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def is_chapter_name(name: str) -> bool:
    """Whether a file name in a workspace can be a chapter: ``*.json``, not hidden, not one of our temps."""
    return name.endswith(".json") and not name.startswith(".") and not name.endswith(TEMP_SUFFIX)


class OwnWrites:
    """Thread-safe memory of the last few content hashes this process wrote, per chapter path."""

    def __init__(self, per_path: int = 16) -> None:
        self._lock = threading.Lock()
        self._per_path = per_path
        self._digests: dict[Path, deque[str]] = {}

    def remember(self, path: Path, digest: str) -> None:
        """Record that we wrote ``digest`` to ``path``."""
        with self._lock:
            self._digests.setdefault(path, deque(maxlen=self._per_path)).append(digest)

    def is_own(self, path: Path, digest: str) -> bool:
        """Whether ``digest`` is content we wrote to ``path`` recently."""
        with self._lock:
            return digest in self._digests.get(path, ())

    def last(self, path: Path) -> str | None:
        """The digest of our most recent write to ``path``, if any."""
        with self._lock:
            seen = self._digests.get(path)
            return seen[-1] if seen else None


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
        """The lock file of a chapter: ``.proofdesk/locks/<chapter file name>.lock``."""
        return self.locks_dir / f"{chapter_path.name}.lock"

    def chapter_paths(self) -> list[Path]:
        """The candidate chapter files of the workspace (``*.json`` in the folder itself), sorted by name."""
        if not self.root.is_dir():
            return []
        return sorted(p for p in self.root.iterdir() if is_chapter_name(p.name) and p.is_file())
