"""A run's versions that an outside edit undid (a stale editor buffer saved over the file, a checkout).

What a run wrote is remembered as :class:`Written` (the version, its text and the source it was made from). When the
file no longer holds that version, the paragraph is *reverted*: a conflict record of kind ``reverted_on_disk``
keeps the run's text, so the editor can restore it ("keep ours") from the conflicts list. Recording is idempotent:
a version already recorded and not resolved is not recorded twice (the workstation records when its watcher sees
the change, the run again when it ends).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from store.model import Chapter, utc_now
from store.workspace import Workspace

if TYPE_CHECKING:
    from store.conflicts import ConflictRecord


@dataclass(frozen=True, slots=True)
class Written:
    """A version a run wrote: its ID, its text, and the source text it translates."""

    version_id: str
    text: str
    source: str


def holds(chapter: Chapter, paragraph_id: str, version_id: str) -> bool:
    """Whether the chapter still has that version of that paragraph."""
    para = chapter.paragraph(paragraph_id)
    return para is not None and any(v.id == version_id for v in para.translations)


def reverted(chapter: Chapter, written: Mapping[str, Written]) -> list[str]:
    """The paragraphs (in ``written``'s order) whose written version the chapter no longer holds."""
    return [pid for pid, w in written.items() if not holds(chapter, pid, w.version_id)]


def record_reverted(
    workspace: Workspace,
    chapter_path: Path,
    chapter: Chapter,
    written: Mapping[str, Written],
    paragraph_ids: list[str],
    *,
    origin: str,
    model: str | None,
) -> Path | None:
    """Write one conflict record per reverted paragraph not recorded yet (unresolved); the file, or None when every
    one was recorded before. Raises OSError / StoreError when the record cannot be written."""
    from store.conflicts import list_conflicts, write_conflicts  # rare: only when a revert was seen

    known = {
        (c.record.paragraph_id, c.record.our_version_id)
        for c in list_conflicts(workspace, chapter_path)
        if c.record.kind == "reverted_on_disk"
    }
    fresh = [pid for pid in paragraph_ids if (pid, written[pid].version_id) not in known]
    if not fresh:
        return None
    stamp = utc_now()
    records = [_record(chapter_path, chapter, pid, written[pid], origin, model, stamp) for pid in fresh]
    return write_conflicts(workspace, chapter_path, records)


def _record(
    chapter_path: Path, chapter: Chapter, pid: str, w: Written, origin: str, model: str | None, stamp: str
) -> ConflictRecord:
    from store.conflicts import ConflictRecord

    para = chapter.paragraph(pid)
    return ConflictRecord(
        chapter_file=chapter_path.name,
        chapter_id=chapter.id,
        paragraph_id=pid,
        kind="reverted_on_disk",
        base_source=w.source,
        current_source=None if para is None else para.text,
        our_text=w.text,
        our_version_id=w.version_id,
        their_selected_id=None if para is None else para.selected_translation_id,
        their_text=None if para is None else para.selected_text,
        origin=origin,
        model=model,
        created_at=stamp,
    )
