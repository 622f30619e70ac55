"""How chunks and runs end, typed: the statuses and end codes, and the summary ``run_finished`` carries.

The summaries encode to the JSON objects runs have always written (the same keys, in the same order), and decode
from old traces: every field has a default, since fields were added over time.
"""

from __future__ import annotations

from typing import Any, Literal

from msgspec import UNSET, Struct, UnsetType, to_builtins

from engine.cost import Cost

ChunkStatus = Literal["complete", "incomplete", "failed", "cancelled", "split"]
"""How a chunk ended; ``split``: it did not fit the model's context, or two of its turns were cut off, and two halves
of it (of the paragraphs it left without a submission) follow as parts."""

RunStatus = Literal["complete", "incomplete", "failed", "cancelled", "bad_input", "busy"]
"""How a run ended; ``bad_input`` and ``busy`` (another run holds the chapter) end it before any work."""

EndCode = Literal[
    "CONTEXT_OVERFLOW",
    "OUTPUT_LIMIT",
    "NO_PROGRESS",
    "MAX_TURNS",
    "MODEL_ERROR",
    "NO_SUBMISSION",
    "CHAPTER_UNAVAILABLE",
    "COMMIT_FAILED",
    "NOT_ATTEMPTED",
]
"""Why a chunk that is not complete ended (see ``engine.loop.ChunkOutcome``)."""


class ChunkSummary(Struct, frozen=True, kw_only=True):
    """One chunk (or one part of a split chunk) in a run's summary."""

    index: int = 0
    part: str | None = None
    status: ChunkStatus = "incomplete"
    missing: list[str] = []
    turns: int = 0
    tool_calls: int = 0
    tool_errors: dict[str, int] = {}
    usage: dict[str, int] = {}
    cost: Cost | None = None
    error: str | None = None
    end_code: EndCode | None = None
    failure: dict[str, Any] | None = None  # the structured model failure (engine.client.failure), when it failed
    submitted: int = 0  # paragraphs with an accepted submission (a new text, or the current one sent again)
    changed: int = 0  # of them, those whose submission made a new version


class RunSummary(Struct, frozen=True, kw_only=True):
    """What ``run_finished`` reports: per-chunk results, totals, tokens (``usage``), ``cost``, advice and timings."""

    chapter: str = ""
    task: str = ""
    model: str = ""
    status: RunStatus = "failed"
    error: str | None = None
    chunks: list[ChunkSummary] = []
    chunks_complete: int = 0
    paragraphs_total: int = 0
    paragraphs_done: int = 0  # submitted, or declared unchanged (`no changes`) in a polish/proofread chunk
    tool_errors: dict[str, int] = {}
    usage: dict[str, int] = {}
    cost: Cost | None = None
    end_codes: dict[str, int] = {}
    advice: list[str] = []
    wall_ms: float = 0.0
    trace: str | None = None
    model_unusable: bool = False
    paragraphs_submitted: int = 0  # with an accepted submission (never a chunk merely ended)
    paragraphs_changed: int = 0  # of them, those the run gave a new version
    reverted_on_disk: list[str] | UnsetType = UNSET  # only when the run's batches were undone on disk

    def to_json(self) -> dict[str, Any]:
        """The summary as a JSON object (the keys runs have always written; ``reverted_on_disk`` only when set)."""
        data: dict[str, Any] = to_builtins(self)
        return data
