"""Arguments of the MCP session's own tools, and of the ``chapter`` every paragraph tool takes there."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.mcp.refusal import Refusal
from engine.settings import CHUNK_CHARS
from engine.tools.args import validation_failure

ChapterName = Annotated[
    str, Field(min_length=1, max_length=255, description="The chapter's id or its file name (list_chapters).")
]
M = TypeVar("M", bound=BaseModel)


class NoArgs(BaseModel):
    """``list_chapters`` and ``close_chunk`` take nothing."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class ChapterArgs(BaseModel):
    """The chapter a paragraph tool or ``check`` works on."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    chapter: ChapterName


class GetChunkArgs(BaseModel):
    """``get_chunk``: chunk ``index`` of the task's work set as it is now (the ``[run]`` defaults unless given)."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    chapter: ChapterName
    task: Literal["translate", "polish", "proofread"]
    index: int = Field(ge=1, description="1-based; get_chunk answers the count.")
    chunk_chars: int | None = Field(None, ge=int(CHUNK_CHARS.minimum), le=int(CHUNK_CHARS.maximum))
    include_all: bool = Field(False, alias="all", description="translate: also translated paragraphs.")


def validated(model: type[M], tool: str, raw: dict[str, Any]) -> M:
    """``raw`` as ``model``; a mismatch is refused with ``INVALID_ARGUMENTS`` naming the field, as in a run."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise Refusal(validation_failure(tool, exc)) from None
