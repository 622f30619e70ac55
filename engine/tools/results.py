"""The uniform shape of tool results and every error code.

Success: ``{"success": true, ...}``. Failure: ``{"success": false, "error": "<one sentence>",
"error_code": "<CODE>", "hint": "<what to do next>", ...}``. Results are plain JSON-serialisable
dicts because they go back to the model verbatim as the ``tool`` message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from store.model import Chapter, Paragraph

if TYPE_CHECKING:
    from engine.scope import ChunkBoundaries


class ErrorCode(StrEnum):
    """Every error code a tool can return."""

    INVALID_ARGUMENTS = "INVALID_ARGUMENTS"
    UNKNOWN_TOOL = "UNKNOWN_TOOL"
    PARAGRAPH_NOT_FOUND = "PARAGRAPH_NOT_FOUND"
    CHUNK_BOUNDARY = "CHUNK_BOUNDARY"
    OUT_OF_CHUNK = "OUT_OF_CHUNK"
    EMPTY_BATCH = "EMPTY_BATCH"
    BATCH_TOO_LARGE = "BATCH_TOO_LARGE"
    INDEX_NOT_ACCEPTED = "INDEX_NOT_ACCEPTED"
    MISSING_PARAGRAPH_ID = "MISSING_PARAGRAPH_ID"
    MISSING_TEXT = "MISSING_TEXT"
    DUPLICATE_PARAGRAPH_IDS = "DUPLICATE_PARAGRAPH_IDS"
    NOT_IN_CHUNK = "NOT_IN_CHUNK"
    EMPTY_PARAGRAPH = "EMPTY_PARAGRAPH"
    PREFIX_MISMATCH = "PREFIX_MISMATCH"
    # A text that is its paragraph's source again (the languages differ): never a translation.
    SAME_AS_SOURCE = "SAME_AS_SOURCE"
    STALE_PARAGRAPH = "STALE_PARAGRAPH"
    COMMIT_FAILED = "COMMIT_FAILED"
    # The chapter file cannot be read right now (e.g. it turned invalid on disk): not the model's mistake.
    CHAPTER_UNAVAILABLE = "CHAPTER_UNAVAILABLE"
    # propose_glossary_entry: the source is in the glossary with another target (the result names it).
    GLOSSARY_CONFLICT = "GLOSSARY_CONFLICT"
    # The MCP session's own tools (engine/mcp): no chapter of the workspace has that id or file name; no chunk has
    # that number in the task's work set now; the task cannot run on that chapter (a translation without a target
    # language).
    CHAPTER_NOT_FOUND = "CHAPTER_NOT_FOUND"
    CHUNK_NOT_FOUND = "CHUNK_NOT_FOUND"
    TASK_NOT_POSSIBLE = "TASK_NOT_POSSIBLE"
    # Last resort only: a bug in a handler, reported instead of raised into the loop.
    INTERNAL_ERROR = "INTERNAL_ERROR"


def ok(**fields: Any) -> dict[str, Any]:
    """A success result carrying ``fields``."""
    return {"success": True, **fields}


def failure(code: ErrorCode, error: str, hint: str, **extra: Any) -> dict[str, Any]:
    """A failure result: one readable sentence, the code, what to do next, and any extra fields."""
    return {"success": False, "error": error, "error_code": str(code), "hint": hint, **extra}


@dataclass(frozen=True, slots=True)
class Committed:
    """What a writing tool wrote: accepted IDs (a new version each), unchanged ones, those stored as suggestions
    (``suggested``; of them, ``protected`` for a person's paragraph, ``kept_selection`` where a person changed the
    selection during the run, the rest because the run applies nothing)."""

    accepted: tuple[str, ...]
    unchanged: tuple[str, ...] = ()
    kept_selection: tuple[str, ...] = ()
    suggested: tuple[str, ...] = ()
    protected: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolReply:
    """A tool's answer: ``result`` is the JSON object the model receives; ``committed`` is set when the call
    wrote to the chapter file (only a writing tool's reply carries it)."""

    result: dict[str, Any]
    committed: Committed | None = None

    @property
    def success(self) -> bool:
        """Whether the tool succeeded."""
        return self.result.get("success") is True


def paragraph_item(para: Paragraph, position: int) -> dict[str, Any]:
    """A paragraph as tools return it; ``position`` is 0-based, ``paragraph_index`` 1-based."""
    return {
        "paragraph_id": para.id,
        "paragraph_index": position + 1,
        "text": para.text,
        "translation": para.selected_text,
    }


_INDEX_LIKE = re.compile(r"^\[?\s*#?\d+\s*\]?$")


def looks_like_index(value: str) -> bool:
    """Whether a would-be paragraph ID is really an index such as ``12`` or ``[12]``."""
    return bool(_INDEX_LIKE.match(value.strip()))


def not_found(chapter: Chapter, paragraph_id: str, boundaries: ChunkBoundaries | None = None) -> dict[str, Any]:
    """``PARAGRAPH_NOT_FOUND`` for an anchor ID that no paragraph of the chapter has."""
    hint = "Use a paragraph_id exactly as shown in [ID: …] in the chunk text."
    if looks_like_index(paragraph_id):
        hint = (
            f"'{paragraph_id}' looks like an index. Indexes are for reading only: pass the paragraph_id "
            "shown as [ID: …] next to the index instead."
        )
    extra: dict[str, Any] = {"paragraph_id": paragraph_id}
    if boundaries is not None:
        extra["chunk_range"] = boundaries.chunk_range()
        hint += f" The current chunk runs from '{boundaries.first_paragraph_id}' to '{boundaries.last_paragraph_id}'."
    return failure(
        ErrorCode.PARAGRAPH_NOT_FOUND,
        f"No paragraph with paragraph_id '{paragraph_id}' exists in chapter '{chapter.id}'.",
        hint,
        **extra,
    )
