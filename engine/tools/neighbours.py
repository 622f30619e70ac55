"""``get_previous_paragraphs`` and ``get_next_paragraphs``.

Without boundaries they return the nearest non-empty paragraphs of the chapter (fewer at its ends, with
success). With boundaries they walk the chunk's own paragraphs, and a request the chunk cannot fully
satisfy is a ``CHUNK_BOUNDARY`` error with nothing returned (an error, not a silently shortened list: the
model must know it hit the edge).
"""

from __future__ import annotations

from typing import Any

from engine.context import ToolContext
from engine.counted import counted
from engine.tools.args import NeighbourArgs
from engine.tools.boundaries import (
    Direction,
    chunk_boundary_error,
    out_of_chunk_error,
    walk_chapter,
    walk_chunk,
)
from engine.tools.results import not_found, ok, paragraph_item


def neighbours(ctx: ToolContext, args: NeighbourArgs, direction: Direction, tool: str) -> dict[str, Any]:
    """The shared body of the two neighbour tools."""
    anchor = args.paragraph_id
    chapter = ctx.chapter
    pos = chapter.positions.get(anchor)
    b = ctx.chunk_boundaries
    if pos is None:
        return not_found(chapter, anchor, b)
    if b is not None:
        if anchor not in b.allowed_paragraph_ids:
            return out_of_chunk_error(b, anchor)
        found = walk_chunk(ctx, anchor, direction, args.count)
        if len(found) < args.count:
            return chunk_boundary_error(b, tool, anchor, direction, args.count, len(found), ctx.task)
    else:
        found = walk_chapter(ctx, pos, direction, args.count)
    paragraphs = chapter.paragraphs
    result = ok(
        paragraph_id=anchor, paragraph_index=pos + 1, paragraphs=[paragraph_item(paragraphs[p], p) for p in found]
    )
    if len(found) < args.count:
        result["note"] = _chapter_end_note(direction, len(found))
    return result


def _chapter_end_note(direction: Direction, found: int) -> str:
    where, side = ("start", "before") if direction == "previous" else ("end", "after")
    return f"Reached the {where} of the chapter: only {counted(found, 'paragraph')} {side} this one."


def get_previous_paragraphs(ctx: ToolContext, args: NeighbourArgs) -> dict[str, Any]:
    """The ``count`` non-empty paragraphs before the anchor, nearest first."""
    return neighbours(ctx, args, "previous", "get_previous_paragraphs")


def get_next_paragraphs(ctx: ToolContext, args: NeighbourArgs) -> dict[str, Any]:
    """The ``count`` non-empty paragraphs after the anchor, in chapter order."""
    return neighbours(ctx, args, "next", "get_next_paragraphs")
