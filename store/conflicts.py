"""Conflict records: what a commit could not merge, or merged without taking the selection.

Each event is one JSON file under ``<workspace>/.proofdesk/conflicts/`` named
``<chapter file name>.<UTC time>.<random>.json`` (``name_key`` of the name, so a long name still fits), written
atomically and durably *before* the caller reports the outcome, so a refused batch's texts are never lost. The
folder is never a symbolic link (``safe_state_dir``) and a record file is never read through one. The TUI
lists the unresolved records of a chapter and lets the editor resolve each one (keep theirs / keep ours /
edit); resolving only marks the record, the chapter change itself goes through ``ChapterStore.update``.
"""

from __future__ import annotations

import logging
import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, Literal

import msgspec

from store.atomic import atomic_write
from store.errors import StoreError
from store.lock import FileLock
from store.model import utc_now
from store.workspace import TEMP_SUFFIX, Workspace, name_key, nofollow_opener, safe_state_dir

log = logging.getLogger(__name__)

CONFLICTS_FORMAT: Final = "proofdesk.conflicts/1"
ConflictKind = Literal["stale_source", "selection_kept", "reverted_on_disk"]
Resolution = Literal["keep_theirs", "keep_ours", "edited", "dismissed"]


class ConflictRecord(msgspec.Struct, frozen=True, kw_only=True):
    """One paragraph the commit could not merge (``stale_source``) or merged keeping a person's selection."""

    chapter_file: str
    chapter_id: str | None = None
    paragraph_id: str
    kind: ConflictKind
    base_source: str
    current_source: str | None  # None: the paragraph no longer exists
    our_text: str
    our_version_id: str | None = None  # selection_kept: the AI version appended unselected
    their_selected_id: str | None = None  # selection_kept: the person's selection that was kept
    their_text: str | None = None
    origin: str
    model: str | None = None
    created_at: str
    resolved: bool = False
    resolution: Resolution | None = None
    resolved_at: str | None = None


class RejectedText(msgspec.Struct, frozen=True, kw_only=True):
    """A text of a refused batch (stale or not): kept so the work is never silently dropped."""

    paragraph_id: str
    text: str
    base_source: str
    base_selected_id: str | None = None


class ConflictFile(msgspec.Struct, frozen=True, kw_only=True):
    """The content of one conflict file (a key this version does not know is not kept)."""

    format: Literal["proofdesk.conflicts/1"] = CONFLICTS_FORMAT
    chapter_file: str
    created_at: str
    records: tuple[ConflictRecord, ...]
    rejected: tuple[RejectedText, ...] = ()


@dataclass(frozen=True)
class StoredConflict:
    """A record as found on disk: the file that holds it and its position there."""

    path: Path
    index: int
    record: ConflictRecord


def _conflicts_lock(state_dir: Path) -> FileLock:
    # One lock for the workspace's conflict files; a chapter's lock is ``<name>.json.lock``, so no clash.
    return FileLock(state_dir / "locks" / "conflicts.lock", what="the conflict records")


def _encode(content: ConflictFile) -> bytes:
    """Indented JSON, non-ASCII kept, a final newline (byte for byte what the pydantic models wrote before)."""
    return msgspec.json.format(msgspec.json.encode(content), indent=2) + b"\n"


def write_conflicts(
    workspace: Workspace,
    chapter_path: Path,
    records: Sequence[ConflictRecord],
    rejected: Sequence[RejectedText] = (),
) -> Path:
    """Write one conflict file durably and return its path; raises OSError/CommitError if it cannot."""
    folder = workspace.conflicts_dir
    safe_state_dir(folder)  # created durably; a planted symbolic link raises UnsafeStateDir
    moment = datetime.now(UTC)
    content = ConflictFile(
        chapter_file=chapter_path.name,
        created_at=moment.strftime("%Y-%m-%dT%H:%M:%SZ"),
        records=tuple(records),
        rejected=tuple(rejected),
    )
    data = _encode(content)
    with _conflicts_lock(workspace.state_dir):
        while True:
            name = f"{name_key(chapter_path.name)}.{moment.strftime('%Y%m%dT%H%M%S.%fZ')}.{secrets.token_hex(3)}.json"
            path = folder / name
            if not path.exists():
                break
        atomic_write(path, data, expect=None)
    return path


def _read(path: Path) -> ConflictFile | None:
    try:
        with open(path, "rb", opener=nofollow_opener) as f:  # a planted link to another file is not read
            return msgspec.json.decode(f.read(), type=ConflictFile, strict=False)
    except (OSError, msgspec.DecodeError, ValueError) as exc:
        log.warning("skipping unreadable conflict file %s: %s", path, str(exc).splitlines()[0])
        return None


def conflict_files(workspace: Workspace, chapter_path: Path) -> list[Path]:
    """The conflict files of a chapter, oldest first (none when the folder is a planted symbolic link)."""
    prefix = name_key(chapter_path.name) + "."
    try:
        safe_state_dir(workspace.conflicts_dir, create=False)
        names = os.listdir(workspace.conflicts_dir)
    except FileNotFoundError:
        return []
    except (OSError, StoreError) as exc:
        log.warning("not reading conflict records: %s", exc)
        return []
    return [
        workspace.conflicts_dir / n
        for n in sorted(names)
        if n.startswith(prefix) and n.endswith(".json") and not n.endswith(TEMP_SUFFIX)
    ]


def list_conflicts(workspace: Workspace, chapter_path: Path, *, include_resolved: bool = False) -> list[StoredConflict]:
    """The conflict records of a chapter, oldest first; unresolved only unless ``include_resolved``."""
    found: list[StoredConflict] = []
    for path in conflict_files(workspace, chapter_path):
        content = _read(path)
        if content is None or content.chapter_file != chapter_path.name:
            continue
        for index, record in enumerate(content.records):
            if include_resolved or not record.resolved:
                found.append(StoredConflict(path, index, record))
    return found


def read_rejected(path: Path) -> tuple[RejectedText, ...]:
    """Every text of the refused batch recorded in conflict file ``path``."""
    content = _read(path)
    return () if content is None else content.rejected


def resolve(conflict: StoredConflict, resolution: Resolution) -> StoredConflict:
    """Mark a record resolved (durably) and return it as now stored; the chapter is not touched here."""
    state_dir = conflict.path.parent.parent
    safe_state_dir(conflict.path.parent, create=False)  # never rewrite a record through a planted link
    with _conflicts_lock(state_dir):
        content = _read(conflict.path)
        if content is None or conflict.index >= len(content.records):
            raise FileNotFoundError(f"conflict record {conflict.path.name}#{conflict.index} no longer exists")
        record = msgspec.structs.replace(
            content.records[conflict.index], resolved=True, resolution=resolution, resolved_at=utc_now()
        )
        records = list(content.records)
        records[conflict.index] = record
        atomic_write(conflict.path, _encode(msgspec.structs.replace(content, records=tuple(records))), expect=None)
    return StoredConflict(conflict.path, conflict.index, record)


def clean_conflict_temps(workspace: Workspace) -> list[Path]:
    """Remove our stale temps from the conflicts folder, if no one is writing conflict records now."""
    folder = workspace.conflicts_dir
    try:
        safe_state_dir(folder, create=False)
    except StoreError:
        return []  # a planted link: nothing of ours is in there to clean
    if not folder.is_dir():
        return []
    return _conflicts_lock(workspace.state_dir).clean_temps_if_free(folder)
