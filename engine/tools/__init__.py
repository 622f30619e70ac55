"""The six paragraph tools and their registry.

``default_registry()`` returns a registry holding, in this order: ``get_previous_paragraphs``,
``get_next_paragraphs``, ``get_paragraph_position``, ``get_paragraph_info``,
``find_paragraph_by_keywords`` and ``add_translation_batch``.
"""

from __future__ import annotations

from engine.tools.args import BatchArgs, InfoArgs, NeighbourArgs, PositionArgs, ReviseBatchArgs, SearchArgs
from engine.tools.batch import add_translation_batch
from engine.tools.info import get_paragraph_info
from engine.tools.neighbours import get_next_paragraphs, get_previous_paragraphs
from engine.tools.position import get_paragraph_position
from engine.tools.registry import Tool, ToolRegistry
from engine.tools.results import ErrorCode
from engine.tools.search import find_paragraph_by_keywords

__all__ = ["ErrorCode", "Tool", "ToolRegistry", "default_registry", "default_tools"]

_IN_CHUNK = " Within a chunk, only its own paragraphs (else CHUNK_BOUNDARY, with available_count)."


def default_tools() -> list[Tool]:
    """The six paragraph tools, in a fixed order (the tool list is byte-identical for every chunk).

    Descriptions say what the name and schema do not, once: the rules of submitting are the system prompt's and
    the chunk message's.
    """
    return [
        Tool(
            "get_previous_paragraphs",
            "The paragraphs before one, nearest first." + _IN_CHUNK,
            NeighbourArgs,
            get_previous_paragraphs,
        ),
        Tool(
            "get_next_paragraphs",
            "The paragraphs after one." + _IN_CHUNK,
            NeighbourArgs,
            get_next_paragraphs,
        ),
        Tool(
            "get_paragraph_position",
            "A paragraph's index, the chapter's size and progress; optionally its neighbours (within the chunk).",
            PositionArgs,
            get_paragraph_position,
        ),
        Tool(
            "get_paragraph_info",
            "One paragraph of the chapter with every translation version.",
            InfoArgs,
            get_paragraph_info,
        ),
        Tool(
            "find_paragraph_by_keywords",
            "Paragraphs of the whole chapter containing a keyword, e.g. to see how a name was translated.",
            SearchArgs,
            find_paragraph_by_keywords,
        ),
        Tool(
            "add_translation_batch",
            "Save results, several paragraphs per call, all or nothing.",
            BatchArgs,
            add_translation_batch,
            raw_arguments=True,
            batch_limit_field="paragraphs",
            writes=True,
            submits=True,
            revise_model=ReviseBatchArgs,
        ),
    ]


def default_registry() -> ToolRegistry:
    """A registry with the six tools."""
    return ToolRegistry(default_tools())
