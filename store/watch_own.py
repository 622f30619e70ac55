"""Our own writes as the watcher judges them: content we wrote is not an outside edit, until it comes back.

The workspace remembers the content hash of every write of ours (``store.workspace.OwnWrites``). The watcher keeps,
per chapter, which of those it has already seen on disk: content of ours not seen before (or identical to the known
state) is ours, but one seen come and go and then back again is someone restoring an older version (``git
checkout``, an editor's undo-save), which must be reported. And the state a file is compared with is our latest
write that landed, when that came after the watcher's last look: otherwise an outside program that restores the old
bytes before the watcher looked at our write would match the old known state and go unseen.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from pathlib import Path

from store.watch_read import Known
from store.workspace import OwnWrites

_CONSUMED_OWN = 64  # own-write digests remembered as already seen, per path


class OwnWriteLedger:
    """Per chapter path: the own-write digests already seen on disk."""

    def __init__(self, own_writes: OwnWrites) -> None:
        self._own_writes = own_writes
        self._seen: dict[Path, deque[str]] = {}

    def is_new_own(self, path: Path) -> Callable[[str], bool]:
        """Whether a digest is a write of ours to ``path`` that has not been seen on disk yet."""
        seen = frozenset(self._seen.get(path, ()))
        own_writes = self._own_writes
        return lambda digest: digest not in seen and own_writes.is_own(path, digest)

    def seen(self, path: Path, digest: str) -> None:
        """Our write ``digest`` is (or was) ``path``'s content."""
        self._seen.setdefault(path, deque(maxlen=_CONSUMED_OWN)).append(digest)

    def forget(self, path: Path) -> None:
        """``path`` is gone: what was seen of it no longer matters."""
        self._seen.pop(path, None)

    def known_now(self, path: Path, known: Known | None) -> Known | None:
        """The state to compare ``path`` with: ``known``, or our latest write to it that landed after it."""
        last = self._own_writes.last(path)
        if known is None or last is None or last == known.digest or last in self._seen.get(path, ()):
            return known
        self.seen(path, last)  # the file held our write (a restore of it later is someone else's doing)
        return Known(last, None, True)
