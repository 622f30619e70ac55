"""Which changes the watcher's reconcile scan found that the notify backend never reported.

A scan hit is a *suspect*: a change (its ctime) the scan saw before any notification for its path. Once
``grace`` seconds have passed since that change, it is judged: a miss when no notification for the path came at or
after it (a filesystem without inotify, a network mount, a dead backend), else the notification simply had not
been handled yet. The watcher scans at its short interval again after a miss.
"""

from __future__ import annotations

from pathlib import Path


class MissedNotifications:
    """The last notification of each path, the suspects not judged yet, and how many misses were found."""

    def __init__(self, grace: float) -> None:
        self.grace = grace  # longer than awatch's debounce (1.6 s): a notification is surely in by then
        self.count = 0
        self._notified: dict[Path, int] = {}  # path -> wall clock (ns) of its last notification
        self._suspects: dict[Path, int] = {}  # scan hits not yet judged: path -> ctime_ns of the change found

    def notified(self, path: Path, now_ns: int) -> None:
        """A notification for ``path`` arrived at ``now_ns``."""
        self._notified[path] = now_ns

    def suspect(self, path: Path, ctime_ns: int) -> None:
        """The scan found ``path`` changed at ``ctime_ns``."""
        self._suspects[path] = ctime_ns

    def unjudged(self) -> int:
        """How many suspects wait for their grace to pass."""
        return len(self._suspects)

    def judge(self, now_ns: int) -> list[Path]:
        """The suspects found missed now (counted); those too recent wait for a later scan."""
        grace_ns = int(self.grace * 1e9)
        missed = []
        for path, ctime_ns in list(self._suspects.items()):
            if now_ns - ctime_ns < grace_ns:
                continue  # too recent: its notification may still be on the way
            del self._suspects[path]
            if self._notified.get(path, 0) < ctime_ns:
                missed.append(path)
        self.count += len(missed)
        return missed

    def keep_only(self, names: set[str]) -> None:
        """Forget the notifications of chapters whose names are not in ``names`` (they no longer exist)."""
        self._notified = {p: t for p, t in self._notified.items() if p.name in names}
