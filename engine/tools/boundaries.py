"""Boundary errors and the walk over a chunk's own paragraphs.

Every boundary error says that the request goes beyond the current chunk, names the chunk's first and
last paragraph IDs, suggests working on the current chunk's paragraphs, and carries ``chunk_range``
(and, for ``CHUNK_BOUNDARY``, ``available_count``) so a model can retry with a request that fits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from engine.counted import counted
from engine.tools.lookup import chapter_index
from engine.tools.results import ErrorCode, failure

if TYPE_CHECKING:
    from engine.context import ToolContext
    from engine.scope import ChunkBoundaries

Direction = Literal["previous", "next"]


def range_text(b: ChunkBoundaries) -> str:
    """``the current chunk, which runs from paragraph 'P1' to 'P5'``."""
    if b.first_paragraph_id == b.last_paragraph_id:
        return f"the current chunk, which holds only paragraph '{b.first_paragraph_id}'"
    return f"the current chunk, which runs from paragraph '{b.first_paragraph_id}' to '{b.last_paragraph_id}'"


def focus_hint(b: ChunkBoundaries) -> str:
    """The standard suggestion to stay within the chunk."""
    return (
        f"Focus on the paragraphs of the current chunk (from '{b.first_paragraph_id}' to "
        f"'{b.last_paragraph_id}'); paragraphs outside it are handled in other chunks."
    )


# What to do once a model asked for the paragraphs before the chunk's first: the work itself, named per task.
START_NEXT = {
    "translate": "Translate the chunk now with add_translation_batch.",
    "polish": "Polish the chunk now: submit what you change with add_translation_batch, or answer `no changes`.",
    "proofread": "Proofread the chunk now: submit what you correct with add_translation_batch, or answer `no changes`.",
}


def chunk_start_error(b: ChunkBoundaries, tool: str, anchor: str, requested: int, task: str | None) -> dict[str, Any]:
    """``CHUNK_BOUNDARY`` before the chunk's first paragraph: the chunk starts there; the hint names the work."""
    return failure(
        ErrorCode.CHUNK_BOUNDARY,
        f"'{anchor}' is the first paragraph of the current chunk: the chunk starts here, the (context) lines above "
        f"it are its context, and {tool} cannot go beyond {range_text(b)}.",
        f"{START_NEXT.get(task or '', START_NEXT['translate'])} {focus_hint(b)}",
        paragraph_id=anchor,
        requested_count=requested,
        available_count=0,
        chunk_range=b.chunk_range(),
    )


def chunk_boundary_error(
    b: ChunkBoundaries,
    tool: str,
    anchor: str,
    direction: Direction,
    requested: int,
    available: int,
    task: str | None = None,
) -> dict[str, Any]:
    """``CHUNK_BOUNDARY``: the chunk holds fewer than ``requested`` paragraphs in ``direction`` (``task``: the
    chunk's, named in what to do after a request before its first paragraph)."""
    if direction == "previous" and available == 0:
        return chunk_start_error(b, tool, anchor, requested, task)
    side = "before" if direction == "previous" else "after"
    edge = "first" if direction == "previous" else "last"
    if available == 0:
        more = "earlier" if direction == "previous" else "more"
        error = (
            f"There are no {more} paragraphs in the current chunk {side} '{anchor}': it is the chunk's "
            f"{edge} paragraph, and {tool} cannot go beyond {range_text(b)}."
        )
        hint = focus_hint(b)
    else:
        error = (
            f"Cannot return {counted(requested, 'paragraph')} {side} '{anchor}': the request goes beyond "
            f"{range_text(b)}; only {counted(available, 'paragraph')} of the chunk "
            f"{'comes' if available == 1 else 'come'} {side} it."
        )
        hint = f"Retry with count {available} or less. " + focus_hint(b)
    return failure(
        ErrorCode.CHUNK_BOUNDARY,
        error,
        hint,
        paragraph_id=anchor,
        requested_count=requested,
        available_count=available,
        chunk_range=b.chunk_range(),
    )


def out_of_chunk_error(b: ChunkBoundaries, anchor: str) -> dict[str, Any]:
    """``OUT_OF_CHUNK``: the anchor paragraph is not one of the chunk's paragraphs."""
    return failure(
        ErrorCode.OUT_OF_CHUNK,
        f"Paragraph '{anchor}' is outside {range_text(b)}; the request goes beyond the current chunk.",
        f"Use a paragraph_id of the current chunk as shown in [ID: …]. {focus_hint(b)}",
        paragraph_id=anchor,
        chunk_range=b.chunk_range(),
    )


def walk_chunk(ctx: ToolContext, anchor: str, direction: Direction, count: int) -> list[int]:
    """Up to ``count`` 0-based chapter positions of the chunk's paragraphs next to ``anchor``.

    Walks the chunk's own order (a paragraph outside the work set between two chunk paragraphs is
    skipped, not an edge); paragraphs that vanished or turned empty on disk since are skipped too.
    Cost: O(count) in the normal case, never a scan of the chapter.
    """
    b = ctx.chunk_boundaries
    assert b is not None
    positions = ctx.chapter.positions
    index = chapter_index(ctx.chapter)
    step = -1 if direction == "previous" else 1
    order = b.order
    i = b.rank[anchor] + step
    found: list[int] = []
    while 0 <= i < len(order) and len(found) < count:
        pos = positions.get(order[i])
        if pos is not None and index.is_nonempty(pos):
            found.append(pos)
        i += step
    return found


def walk_chapter(ctx: ToolContext, position: int, direction: Direction, count: int) -> list[int]:
    """Up to ``count`` non-empty chapter positions next to ``position`` (nearest first for previous)."""
    index = chapter_index(ctx.chapter)
    if direction == "previous":
        return index.previous_positions(position, count)
    return index.next_positions(position, count)
