"""What the chapter watcher reports: typed change events, plus counters that show what it did.

Events are frozen dataclasses with a ``kind`` string, like the engine's events, so the TUI and the engine
can route them without isinstance chains.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from store.errors import ChapterLoadError
from store.model import Chapter


@dataclass(frozen=True, slots=True)
class ChapterChanged:
    """A chapter file was changed (or created) outside this process and parsed; ``chapter`` is its new content."""

    path: Path
    chapter: Chapter
    digest: str  # content digest of the bytes ``chapter`` was parsed from (store.workspace.content_digest)
    kind: Literal["chapter_changed"] = field(default="chapter_changed", init=False)


@dataclass(frozen=True, slots=True)
class ChapterInvalid:
    """A chapter file no longer parses. Consumers keep the last good state and never write over the file."""

    path: Path
    error: ChapterLoadError
    kind: Literal["chapter_invalid"] = field(default="chapter_invalid", init=False)


@dataclass(frozen=True, slots=True)
class ChapterDeleted:
    """A chapter file has been gone for longer than the deletion grace period."""

    path: Path
    kind: Literal["chapter_deleted"] = field(default="chapter_deleted", init=False)


WatchEvent = ChapterChanged | ChapterInvalid | ChapterDeleted


@dataclass(slots=True)
class WatchStats:
    """Running counters of a watcher: they show which paths were taken (used by tests and the log)."""

    notify_batches: int = 0  # change sets delivered by the notify backend (after our filter)
    reads: int = 0  # settled reads of a chapter file
    parses: int = 0  # reads that went on to parse the content
    own_writes: int = 0  # reads whose content was one of our own writes (no event)
    unchanged: int = 0  # reads identical to the known state (no event)
    unstable_reads: int = 0  # reads during which the file changed under us (discarded, re-read later)
    parse_retries: int = 0  # unparsable reads that were retried instead of reported
    reconcile_hits: int = 0  # paths the periodic scan found changed, new or missing
    restarts: int = 0  # times the notify backend was restarted
    rewatches: int = 0  # times the workspace folder was found replaced and watched again
