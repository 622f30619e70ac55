"""How one chunk's tool-call loop ended, with its counters."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from engine.client.failure import ModelFailure
from engine.summaries import ChunkStatus, EndCode


@dataclass
class ChunkOutcome:
    """How one chunk ended, with its counters (kept up to date while the chunk runs, so a cancelled run can
    report the chunk in progress).

    ``end_code`` says why a chunk that is not complete ended: ``CONTEXT_OVERFLOW``, ``OUTPUT_LIMIT``,
    ``NO_PROGRESS``, ``MAX_TURNS``, ``MODEL_ERROR`` (with ``failure``), ``NO_SUBMISSION``, or
    ``CHAPTER_UNAVAILABLE`` / ``COMMIT_FAILED`` when the chapter file could not be read or saved
    ``MAX_FILE_FAILURES`` times in a row (which stops the run: no later chunk could be saved either).
    """

    status: ChunkStatus
    missing: tuple[str, ...]
    turns: int = 0
    tool_calls: int = 0
    tool_errors: Counter[str] = field(default_factory=Counter)
    usage: Counter[str] = field(default_factory=Counter)
    failure: ModelFailure | None = None
    error: str | None = None
    end_code: EndCode | None = None
    cut_completion_tokens: list[int] = field(default_factory=list)  # of responses that ended with length
    # The paragraphs the run runs again as two halves, with the chunk ``split``: all of them when the first request
    # did not fit the context, those still without a submission after two cut-off turns (``OUTPUT_LIMIT``).
    rerun: tuple[str, ...] = ()

    def fail(self, failure: ModelFailure) -> None:
        """End the chunk on a model failure."""
        self.status, self.failure, self.error = "failed", failure, failure.message
        self.end_code = "CONTEXT_OVERFLOW" if failure.type == "context_overflow" else "MODEL_ERROR"


# Tool errors that say the chapter file itself is unreadable or unsavable, and how many in a row end the run.
FILE_FAILURES = frozenset({"CHAPTER_UNAVAILABLE", "COMMIT_FAILED"})
MAX_FILE_FAILURES = 3
