"""What a tool handler sees: the chapter as read for this call, the call's scope, and the approved glossary."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.checks.glossary import GlossaryTerm
    from engine.scope import ChunkBoundaries, ChunkScope
    from engine.tasks import TaskType
    from store.model import Chapter


@dataclass(frozen=True, slots=True)
class ToolContext:
    """Everything one tool call may use. Built by the registry for every call."""

    chapter: Chapter
    scope: ChunkScope
    glossary: tuple[GlossaryTerm, ...] = ()  # the approved glossary entries: the batch's warnings use them

    @property
    def chunk_boundaries(self) -> ChunkBoundaries | None:
        """The chunk's boundaries, or None outside a chunk (nothing is restricted)."""
        return self.scope.boundaries

    @property
    def task(self) -> TaskType | None:
        """The task of the run (or of the tool console's ``--task``), if any."""
        return self.scope.task
