"""``ToolCallLoopConfig``: everything the tool-call loop needs for one chunk.

The chunk's :class:`~engine.scope.ChunkScope` (the chunk, its boundaries and submissions, origin, model, batch limit
and the chapter source) is the one thing about the chunk that travels to the tools: the loop passes ``config.scope``
with every call. The config adds what only the loop uses: the prompts, the tools and the turn limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.chunks import Chunk
from engine.scope import ChunkScope
from engine.settings import DEFAULT_MAX_TURNS
from engine.tasks import TaskType


@dataclass(frozen=True, slots=True)
class ToolCallLoopConfig:
    """One chunk's loop settings: its scope, prompts, tools and turn limit."""

    scope: ChunkScope = field(repr=False)
    system_prompt: str
    user_message: str
    tools: tuple[dict[str, Any], ...]
    max_turns: int = DEFAULT_MAX_TURNS

    @property
    def chunk(self) -> Chunk:
        """The chunk (a loop config always has one)."""
        chunk = self.scope.chunk
        if chunk is None:
            raise ValueError("a loop config's scope names its chunk")
        return chunk

    @property
    def task(self) -> TaskType:
        """The chunk's task."""
        return self.chunk.task

    @property
    def chunk_index(self) -> int:
        """The chunk's 1-based number."""
        return self.chunk.index

    @property
    def chunk_count(self) -> int:
        """How many chunks the run's work set was cut into."""
        return self.chunk.total

    @property
    def paragraph_ids(self) -> tuple[str, ...]:
        """The chunk's paragraph IDs, in chapter order."""
        return self.chunk.paragraph_ids

    @property
    def part(self) -> str | None:
        """``3.1``/``3.2`` when this is a half of a chunk that did not fit the model's context."""
        return self.chunk.part

    def initial_messages(self) -> list[dict[str, Any]]:
        """A fresh history for the chunk: ``[system, user(chunk message)]``."""
        return [{"role": "system", "content": self.system_prompt}, {"role": "user", "content": self.user_message}]
