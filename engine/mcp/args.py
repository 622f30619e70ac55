"""Arguments of the MCP session's own tools, and of the ``chapter`` every paragraph tool takes there."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

import msgspec

from engine.mcp.refusal import Refusal
from engine.settings import CHUNK_CHARS
from engine.tools.args import parse_arguments
from engine.tools.raw_arguments import BadArguments

ChapterName = Annotated[
    str, msgspec.Meta(min_length=1, max_length=255, description="The chapter's id or its file name (list_chapters).")
]
M = TypeVar("M", bound=msgspec.Struct)


class NoArgs(msgspec.Struct, frozen=True):
    """``list_chapters`` and ``close_chunk`` take nothing (unknown keys are ignored, as everywhere here)."""


class ChapterArgs(msgspec.Struct, frozen=True):
    """The chapter a paragraph tool or ``check`` works on."""

    chapter: ChapterName


class GetChunkArgs(msgspec.Struct, frozen=True):
    """``get_chunk``: chunk ``index`` of the task's work set as it is now (the ``[run]`` defaults unless given)."""

    chapter: ChapterName
    task: Literal["translate", "polish", "proofread"]
    index: Annotated[int, msgspec.Meta(ge=1, description="1-based; get_chunk answers the count.")]
    chunk_chars: Annotated[int, msgspec.Meta(ge=int(CHUNK_CHARS.minimum), le=int(CHUNK_CHARS.maximum))] | None = None
    # ``include_all`` is taken too (by the careful path).
    include_all: Annotated[bool, msgspec.Meta(description="translate: also translated paragraphs.")] = msgspec.field(
        default=False, name="all"
    )


def validated(struct: type[M], tool: str, raw: dict[str, Any]) -> M:
    """``raw`` as ``struct``; a mismatch is refused with ``INVALID_ARGUMENTS`` naming the field, as in a run."""
    try:
        return parse_arguments(struct, tool, raw)
    except BadArguments as exc:
        raise Refusal(exc.result) from None
