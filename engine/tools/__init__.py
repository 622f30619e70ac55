"""The six paragraph tools and their registry.

``default_registry()`` returns a registry holding, in this order: ``get_previous_paragraphs``,
``get_next_paragraphs``, ``get_paragraph_position``, ``get_paragraph_info``,
``find_paragraph_by_keywords`` and ``add_translation_batch``.
"""

from __future__ import annotations

from engine.tools.args import BatchArgs, InfoArgs, NeighbourArgs, PositionArgs, SearchArgs
from engine.tools.batch import add_translation_batch
from engine.tools.info import get_paragraph_info
from engine.tools.neighbours import get_next_paragraphs, get_previous_paragraphs
from engine.tools.position import get_paragraph_position
from engine.tools.registry import Tool, ToolRegistry
from engine.tools.results import ErrorCode
from engine.tools.search import find_paragraph_by_keywords

__all__ = ["ErrorCode", "Tool", "ToolRegistry", "default_registry", "default_tools"]

_CHUNK_NOTE = (
    " While you work on a chunk, only the paragraphs of the current chunk can be read this way; a "
    "request that reaches past the chunk's edge fails with CHUNK_BOUNDARY and tells you how many "
    "paragraphs are available (available_count), so retry with a smaller count."
)


def default_tools() -> list[Tool]:
    """The six paragraph tools, in a fixed order (the tool list is byte-identical for every chunk)."""
    return [
        Tool(
            "get_previous_paragraphs",
            "Read the paragraphs that come before a paragraph, nearest first, for context (source text and "
            "selected translation). Empty paragraphs are skipped." + _CHUNK_NOTE,
            NeighbourArgs,
            get_previous_paragraphs,
        ),
        Tool(
            "get_next_paragraphs",
            "Read the paragraphs that come after a paragraph, in chapter order, for context (source text and "
            "selected translation). Empty paragraphs are skipped." + _CHUNK_NOTE,
            NeighbourArgs,
            get_next_paragraphs,
        ),
        Tool(
            "get_paragraph_position",
            "Where a paragraph sits in the chapter: its paragraph_index (the [n] number: 1-based position in "
            "the chapter, empty paragraphs counted), total_paragraphs and progress_percentage. Optionally "
            "includes the previous and/or next paragraphs; while you work on a chunk those lists stop at the "
            "chunk's edges.",
            PositionArgs,
            get_paragraph_position,
        ),
        Tool(
            "get_paragraph_info",
            "One paragraph in full: source text, selected translation, review state and every translation "
            "version with its origin, model and time. Works for any paragraph of the chapter.",
            InfoArgs,
            get_paragraph_info,
        ),
        Tool(
            "find_paragraph_by_keywords",
            "Find paragraphs whose source text (or, with in_translation, selected translation) contains any of "
            "the keywords, case-insensitive, in chapter order — e.g. to see how a name or term was translated "
            "elsewhere. Searches the whole chapter.",
            SearchArgs,
            find_paragraph_by_keywords,
        ),
        Tool(
            "add_translation_batch",
            "Submit your results — the only way to save them. Each item names its paragraph by paragraph_id, "
            "the value shown as [ID: …] in the chunk text (never the [n] index), and gives the paragraph's "
            "complete new text in translated_text. Several paragraphs per call, up to the maxItems limit. "
            "All or nothing: if any item is invalid, nothing is saved and the error lists the items to fix. "
            "The result lists the accepted IDs and the chunk's remaining IDs.",
            BatchArgs,
            add_translation_batch,
            raw_arguments=True,
            batch_limit_field="paragraphs",
            writes=True,
            submits=True,
        ),
    ]


def default_registry() -> ToolRegistry:
    """A registry with the six tools."""
    return ToolRegistry(default_tools())
