"""When a chunk is run again as two halves: its first request did not fit the model's context (all of it), or two of
its turns were cut off by the output limit (the paragraphs still without a submission)."""

from __future__ import annotations

from dataclasses import dataclass

from engine.chunk_outcome import ChunkOutcome
from engine.counted import counted
from engine.loop_config import ToolCallLoopConfig


@dataclass(frozen=True, slots=True)
class SplitPlan:
    """The paragraphs to run again as two halves, and the code of the ending that asks for it."""

    paragraph_ids: tuple[str, ...]
    code: str

    def message(self, label: str, first: int, second: int) -> str:
        """The error event's sentence: why chunk ``label`` runs as halves of ``first`` and ``second`` paragraphs."""
        if self.code == "CONTEXT_OVERFLOW":
            why = "does not fit the model's context; running it"
        else:
            why = (
                "had two turns cut off by the output limit; running its "
                f"{counted(len(self.paragraph_ids), 'paragraph')} still without a submission"
            )
        return f"chunk {label} {why} as two halves of {first} and {second} paragraphs"


def split_plan(config: ToolCallLoopConfig, outcome: ChunkOutcome) -> SplitPlan | None:
    """What of the chunk just run is run again as two halves, or None."""
    return _overflow(config, outcome) or _cut(outcome)


def _overflow(config: ToolCallLoopConfig, outcome: ChunkOutcome) -> SplitPlan | None:
    """The first request did not fit the context: nothing was sent back yet, so all of the chunk."""
    fits = outcome.end_code != "CONTEXT_OVERFLOW" or outcome.turns != 1
    return None if fits or len(config.paragraph_ids) < 2 else SplitPlan(config.paragraph_ids, "CONTEXT_OVERFLOW")


def _cut(outcome: ChunkOutcome) -> SplitPlan | None:
    """Two turns were cut off: the paragraphs still without a submission."""
    cut = outcome.end_code == "OUTPUT_LIMIT" and len(outcome.rerun) > 1
    return SplitPlan(outcome.rerun, "OUTPUT_LIMIT") if cut else None
