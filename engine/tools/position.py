"""``get_paragraph_position``: where a paragraph sits in the chapter, optionally with its neighbours.

With boundaries the neighbour lists are *clipped* to the chunk (no error: a position is still useful at the
edge); an anchor outside the chunk is ``OUT_OF_CHUNK``.
"""

from __future__ import annotations

from typing import Any

from engine.context import ToolContext
from engine.tools.args import PositionArgs
from engine.tools.boundaries import Direction, out_of_chunk_error, walk_chapter, walk_chunk
from engine.tools.results import not_found, ok, paragraph_item


def _wanted(args: PositionArgs) -> list[tuple[str, Direction, int]]:
    """The neighbour lists asked for: (result key, direction, count)."""
    wanted: list[tuple[str, Direction, int]] = []
    if args.include_previous:
        wanted.append(("previous_paragraphs", "previous", args.previous_count))
    if args.include_next:
        wanted.append(("next_paragraphs", "next", args.next_count))
    return wanted


def _neighbours(ctx: ToolContext, anchor: str, pos: int, args: PositionArgs) -> dict[str, Any]:
    """The neighbour lists asked for; in a chunk they stop at its edges (``clipped_to_chunk`` when they did)."""
    paragraphs = ctx.chapter.paragraphs
    bounded = ctx.chunk_boundaries is not None
    out: dict[str, Any] = {}
    clipped = False
    for key, direction, count in _wanted(args):
        found = walk_chunk(ctx, anchor, direction, count) if bounded else walk_chapter(ctx, pos, direction, count)
        clipped = clipped or (bounded and len(found) < count)
        out[key] = [paragraph_item(paragraphs[p], p) for p in found]
    if clipped:
        out["clipped_to_chunk"] = True
    return out


def get_paragraph_position(ctx: ToolContext, args: PositionArgs) -> dict[str, Any]:
    """Index, chapter size and progress of a paragraph; previous/next paragraphs on request."""
    anchor = args.paragraph_id
    chapter = ctx.chapter
    b = ctx.chunk_boundaries
    pos = chapter.positions.get(anchor)
    if pos is None:
        return not_found(chapter, anchor, b)
    if b is not None and anchor not in b.allowed_paragraph_ids:
        return out_of_chunk_error(b, anchor)
    total = len(chapter.paragraphs)
    result = ok(
        paragraph_id=anchor,
        paragraph_index=pos + 1,
        total_paragraphs=total,
        progress_percentage=round((pos + 1) * 100 / total, 1),
    )
    if b is not None:
        result["chunk_position"] = {"position": b.rank[anchor] + 1, "of": len(b.order)}
    result.update(_neighbours(ctx, anchor, pos, args))
    return result
