"""``ToolCallLoopConfig``: everything the tool-call loop needs for one chunk.

It carries the chunk's ``paragraph_ids`` (chapter order) so the loop can hand them to
``ToolRegistry.handle_tool_call(..., paragraph_ids=config.paragraph_ids)``, which builds the handler's
``ToolContext.chunk_boundaries`` from them: service -> loop config -> registry -> handler.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.chunks import BaseState, Chunk, TaskType
from engine.settings import DEFAULT_MAX_BATCH, DEFAULT_MAX_TURNS
from engine.tools.submissions import SubmissionTracker
from store.model import Origin


class ToolCallLoopConfig(BaseModel):
    """One chunk's loop settings: prompts, tools, the chunk's paragraph IDs and their base states."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    task: TaskType
    origin: Origin
    chunk_index: int = Field(ge=1)  # 1-based
    chunk_count: int = Field(ge=1)
    paragraph_ids: tuple[str, ...] = Field(min_length=1)
    base_states: tuple[BaseState, ...]  # aligned with paragraph_ids: the state each result merges onto
    system_prompt: str
    user_message: str
    tools: tuple[dict[str, Any], ...]
    max_turns: int = Field(default=DEFAULT_MAX_TURNS, ge=1)
    max_batch: int = Field(default=DEFAULT_MAX_BATCH, ge=1)
    model: str | None = None  # recorded on every version this chunk's results create
    chunk: Chunk | None = Field(default=None, repr=False)  # what the config was built from (to split it)

    @property
    def part(self) -> str | None:
        """``3.1``/``3.2`` when this is a half of a chunk that did not fit the model's context."""
        return None if self.chunk is None else self.chunk.part

    @model_validator(mode="after")
    def _aligned(self) -> ToolCallLoopConfig:
        if len(self.base_states) != len(self.paragraph_ids):
            raise ValueError("base_states must hold one entry per paragraph ID")
        return self

    @classmethod
    def for_chunk(cls, chunk: Chunk, *, origin: Origin, system_prompt: str, user_message: str,
                  tools: list[dict[str, Any]] | tuple[dict[str, Any], ...], max_turns: int = DEFAULT_MAX_TURNS,
                  max_batch: int = DEFAULT_MAX_BATCH, model: str | None = None) -> ToolCallLoopConfig:
        """The config of ``chunk``: its paragraph IDs and base states come straight from the chunk."""
        return cls(task=chunk.task, origin=origin, chunk_index=chunk.index, chunk_count=chunk.total,
                   paragraph_ids=chunk.paragraph_ids, base_states=chunk.bases, system_prompt=system_prompt,
                   user_message=user_message, tools=tuple(tools), max_turns=max_turns, max_batch=max_batch,
                   model=model, chunk=chunk)

    def initial_messages(self) -> list[dict[str, Any]]:
        """A fresh history for the chunk: ``[system, user(chunk message)]``."""
        return [{"role": "system", "content": self.system_prompt}, {"role": "user", "content": self.user_message}]

    def new_submissions(self) -> SubmissionTracker:
        """A fresh tracker of this chunk's submissions (bases and what is still missing)."""
        return SubmissionTracker(self.paragraph_ids, dict(zip(self.paragraph_ids, self.base_states, strict=True)))

    def tool_call_options(self, submissions: SubmissionTracker | None = None) -> dict[str, Any]:
        """Keyword arguments for ``ToolRegistry.handle_tool_call`` besides ``name``, ``arguments``, ``source``."""
        return {"task": self.task, "paragraph_ids": self.paragraph_ids, "submissions": submissions,
                "origin": self.origin, "model": self.model, "max_batch": self.max_batch}
