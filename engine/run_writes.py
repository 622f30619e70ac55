"""What a run wrote, and whether the file still holds it when the run ends.

A checkout or a stale editor buffer saved over the chapter can undo a run's commits after they were acknowledged.
The run remembers each version it wrote (:class:`store.reverts.Written`); at its end it reads the file once more,
and the versions it no longer holds are reported (``REVERTED_ON_DISK``) and recorded in the conflicts, where the
editor can restore the run's text.
"""

from __future__ import annotations

import logging

from engine.counted import counted
from engine.events import BatchCommitted
from store.commit import ChapterStore
from store.errors import ChapterLoadError, StoreError
from store.model import Chapter
from store.reverts import Written, record_reverted, reverted
from store.workspace import Workspace

log = logging.getLogger(__name__)


class RunWrites:
    """The versions one run wrote, by paragraph ID."""

    def __init__(self) -> None:
        self.written: dict[str, Written] = {}

    def remember(self, chapter: Chapter | None, event: BatchCommitted) -> None:
        """Note the version each accepted paragraph got (the newest one), to check the file still holds it."""
        for pid in event.paragraph_ids:
            para = chapter.paragraph(pid) if chapter is not None else None
            if para is not None and para.translations:
                newest = para.translations[-1]
                self.written[pid] = Written(newest.id, newest.text, para.text)

    def reverted(self, store: ChapterStore | None, workspace: Workspace, origin: str, model: str | None) -> list[str]:
        """The paragraphs whose version the file no longer holds (blocking: reads the file), recorded in the
        conflicts so the run's text can be restored."""
        if not self.written or store is None:
            return []
        try:
            chapter = store.load()
        except (ChapterLoadError, StoreError):
            return list(self.written)
        gone = reverted(chapter, self.written)
        if gone:
            try:
                record_reverted(workspace, store.path, chapter, self.written, gone, origin=origin, model=model)
            except (OSError, StoreError) as exc:  # the run's texts are still in its trace
                log.warning("could not record the reverted paragraphs of %s: %s", store.path.name, exc)
        return gone


def reverted_message(gone: list[str], file_name: str) -> str:
    """One sentence naming the paragraphs a run committed that the file no longer holds."""
    shown = ", ".join(gone[:5]) + (" …" if len(gone) > 5 else "")
    are = "is" if len(gone) == 1 else "are"
    return (
        f"{counted(len(gone), 'paragraph')} this run committed {are} no longer in {file_name} (changed on disk "
        f"since, e.g. a checkout): {shown}; the conflicts list (c in the workstation) can restore the run's text"
    )
