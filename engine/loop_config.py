"""``ToolCallLoopConfig``: everything the tool-call loop needs for one chunk.

The chunk itself is the one holder of its paragraph IDs and base states; the config adds the prompts, the
tools and the limits. The loop builds one ``SubmissionTracker`` from it (which carries the chunk's
boundaries) and hands it to ``ToolRegistry.handle_tool_call`` with every call, so the handler's
``ToolContext.chunk_boundaries`` are the chunk's: service -> loop config -> registry -> handler.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine.chunks import BaseState, Chunk, TaskType
from engine.settings import DEFAULT_MAX_BATCH, DEFAULT_MAX_TURNS
from engine.tools.submissions import SubmissionTracker
from store.model import Origin


class ToolCallLoopConfig(BaseModel):
    """One chunk's loop settings: the chunk, prompts, tools and limits."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    chunk: Chunk = Field(repr=False)
    origin: Origin
    system_prompt: str
    user_message: str
    tools: tuple[dict[str, Any], ...]
    max_turns: int = Field(default=DEFAULT_MAX_TURNS, ge=1)
    max_batch: int = Field(default=DEFAULT_MAX_BATCH, ge=1)
    model: str | None = None  # recorded on every version this chunk's results create

    @classmethod
    def for_chunk(
        cls,
        chunk: Chunk,
        *,
        origin: Origin,
        system_prompt: str,
        user_message: str,
        tools: list[dict[str, Any]] | tuple[dict[str, Any], ...],
        max_turns: int = DEFAULT_MAX_TURNS,
        max_batch: int = DEFAULT_MAX_BATCH,
        model: str | None = None,
    ) -> ToolCallLoopConfig:
        """The config of ``chunk``."""
        return cls(
            chunk=chunk,
            origin=origin,
            system_prompt=system_prompt,
            user_message=user_message,
            tools=tuple(tools),
            max_turns=max_turns,
            max_batch=max_batch,
            model=model,
        )

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
    def base_states(self) -> tuple[BaseState, ...]:
        """What each paragraph looked like when the chunk was built (aligned with ``paragraph_ids``)."""
        return self.chunk.bases

    @property
    def part(self) -> str | None:
        """``3.1``/``3.2`` when this is a half of a chunk that did not fit the model's context."""
        return self.chunk.part

    def initial_messages(self) -> list[dict[str, Any]]:
        """A fresh history for the chunk: ``[system, user(chunk message)]``."""
        return [{"role": "system", "content": self.system_prompt}, {"role": "user", "content": self.user_message}]

    def new_submissions(self) -> SubmissionTracker:
        """A fresh tracker of this chunk's submissions (boundaries, bases, what is still missing)."""
        return SubmissionTracker.for_chunk(self.chunk)

    def tool_call_options(self, submissions: SubmissionTracker | None = None) -> dict[str, Any]:
        """Keyword arguments for ``ToolRegistry.handle_tool_call`` besides ``name``, ``arguments``, ``source``."""
        return {
            "task": self.task,
            "paragraph_ids": self.paragraph_ids,
            "submissions": submissions,
            "origin": self.origin,
            "model": self.model,
            "max_batch": self.max_batch,
        }
