"""A chunk's submissions during one run: the base each result is merged onto, and what is still missing.

The base of a paragraph starts as the state the chunk was built from. After one of our own commits
selects our version, the base moves to it — otherwise a correction the model submits later would look
like "a person selected something else" and lose the selection. When a person's selection was kept,
the base stays, so manual work keeps winning for every later submission of the run.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence

from engine.chunks import BaseState, Chunk
from store.model import Chapter


class SubmissionTracker:
    """Per-chunk run state shared by the tool calls of one loop (thread-safe): the base each result merges onto,
    and which paragraphs still have no submission. Only the submitting tool records into it."""

    def __init__(self, paragraph_ids: Sequence[str], bases: Mapping[str, BaseState]) -> None:
        self.paragraph_ids = tuple(paragraph_ids)
        self._bases = dict(bases)
        self._submitted: set[str] = set()
        self._changed: set[str] = set()  # of them, those whose submission made a new version
        self._lock = threading.Lock()

    @classmethod
    def for_chunk(cls, chunk: Chunk) -> SubmissionTracker:
        """A tracker for ``chunk`` with the bases it was built from."""
        return cls(chunk.paragraph_ids, chunk.base_states())

    def base(self, paragraph_id: str) -> BaseState | None:
        """The state a result for ``paragraph_id`` is merged onto, if this run knows the paragraph."""
        with self._lock:
            return self._bases.get(paragraph_id)

    def record(
        self, chapter: Chapter, accepted: Iterable[str], unchanged: Iterable[str], kept_selection: Iterable[str] = ()
    ) -> None:
        """Note a committed batch; ``chapter`` is the chapter as written by that commit."""
        kept = set(kept_selection)
        with self._lock:
            for pid in accepted:
                self._submitted.add(pid)
                self._changed.add(pid)
                para = chapter.paragraph(pid)
                if pid not in kept and para is not None and pid in self._bases:
                    self._bases[pid] = BaseState(para.text, para.selected_translation_id)
            self._submitted.update(unchanged)

    @property
    def submitted(self) -> frozenset[str]:
        """IDs with an accepted (or unchanged) submission in this run."""
        with self._lock:
            return frozenset(self._submitted)

    @property
    def changed(self) -> frozenset[str]:
        """IDs whose submission in this run made a new version (a text that differs from the current one)."""
        with self._lock:
            return frozenset(self._changed)

    @property
    def remaining(self) -> tuple[str, ...]:
        """The chunk's IDs still without a submission, in chapter order."""
        with self._lock:
            return tuple(pid for pid in self.paragraph_ids if pid not in self._submitted)

    @property
    def complete(self) -> bool:
        """Whether every paragraph of the chunk has a submission."""
        return not self.remaining
