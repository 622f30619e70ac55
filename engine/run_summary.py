"""The summary a run ends with: per-chunk results, totals, tokens and cost, and advice on what to change."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import UNSET, UnsetType

from engine.chunk_outcome import ChunkOutcome
from engine.cost import cost_of
from engine.counted import counted
from engine.loop_config import ToolCallLoopConfig
from engine.summaries import ChunkSummary, RunStatus, RunSummary

if TYPE_CHECKING:
    from engine.run_request import RunRequest

ADVICE = {
    "CONTEXT_OVERFLOW": "{chunks} outgrew the model's context (chunks too large on their first request are split "
    "down to single paragraphs first): lower --chunk-chars (now {chunk_chars}) or raise the "
    "server's context size (llama.cpp: --ctx-size).",
    "OUTPUT_LIMIT": "{chunks} stopped because responses were cut off by the output limit: raise --max-tokens "
    "(now {max_tokens}) or lower --max-batch (now {max_batch}).",
    "CONTEXT_FULL": "{chunks} stopped because responses were cut off before the output limit ({max_tokens}), "
    "where the model's context filled up: lower --chunk-chars (now {chunk_chars}) or raise the "
    "server's context size (llama.cpp: --ctx-size).",
    "NO_PROGRESS": "{chunks} stopped because the model only repeated earlier calls or resent saved texts; "
    "run them again, or try another model.",
}


class _Tally:
    """The chunks' outcomes added up, one outcome at a time."""

    def __init__(self, request: RunRequest) -> None:
        self.request = request
        self.usage: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.endings: Counter[str] = Counter()
        self.advised: Counter[str] = Counter()
        self.chunks: list[ChunkSummary] = []
        self.total = self.done = self.submitted = self.changed = 0

    def add(self, config: ToolCallLoopConfig, outcome: ChunkOutcome) -> None:
        """Count one chunk's outcome (of a split chunk, its tokens, errors and the paragraphs it did itself: the
        halves that follow as their own entries hold the rest)."""
        self.usage.update(outcome.usage)
        self.errors.update(outcome.tool_errors)
        if outcome.status == "split":
            kept = len(config.paragraph_ids) - len(outcome.rerun or config.paragraph_ids)
            self.total, self.done = self.total + kept, self.done + kept
            return
        if outcome.end_code and outcome.status != "complete":
            self.endings[outcome.end_code] += 1
            self._advise(outcome)
        self.total += len(config.paragraph_ids)
        self.done += len(config.paragraph_ids) - len(outcome.missing)  # a failed chunk may have committed some
        chunk = self._chunk(config, outcome)
        self.submitted += chunk.submitted
        self.changed += chunk.changed
        self.chunks.append(chunk)

    def _advise(self, outcome: ChunkOutcome) -> None:
        cut = outcome.cut_completion_tokens
        if outcome.end_code == "OUTPUT_LIMIT" and cut and max(cut) < self.request.settings.max_tokens:
            self.advised["CONTEXT_FULL"] += 1  # cut below our own limit: the server's context was full
        elif outcome.end_code in ADVICE:
            self.advised[outcome.end_code] += 1

    def _chunk(self, config: ToolCallLoopConfig, outcome: ChunkOutcome) -> ChunkSummary:
        return ChunkSummary(
            index=config.chunk_index,
            part=config.part,
            status=outcome.status,
            missing=list(outcome.missing),
            turns=outcome.turns,
            tool_calls=outcome.tool_calls,
            tool_errors=dict(outcome.tool_errors),
            usage=dict(outcome.usage),
            cost=cost_of(outcome.usage, self.request.settings.prices),
            error=outcome.error,
            end_code=outcome.end_code,
            failure=None if outcome.failure is None else outcome.failure.to_json(),
            **_submission_counts(config),
        )

    def advice(self) -> list[str]:
        """What to change, one sentence per kind of ending that has advice."""
        values = {
            "chunk_chars": self.request.chunk_chars,
            "max_batch": self.request.max_batch,
            "max_tokens": self.request.settings.max_tokens,
        }
        return [ADVICE[code].format(chunks=counted(n, "chunk"), **values) for code, n in sorted(self.advised.items())]


def _submission_counts(config: ToolCallLoopConfig) -> dict[str, int]:
    """``submitted`` and ``changed`` of a chunk, from its tracker."""
    tracker = config.scope.submissions
    if tracker is None:
        return {}
    return {"submitted": len(tracker.submitted), "changed": len(tracker.changed)}


def run_summary(
    request: RunRequest,
    outcomes: Sequence[tuple[ToolCallLoopConfig, ChunkOutcome]],
    *,
    status: RunStatus,
    error: str | None,
    started: float,
    trace: Path | None,
    model_unusable: bool,
    reverted_on_disk: list[str] | UnsetType = UNSET,
) -> RunSummary:
    """The ``run_finished`` summary of ``request`` from its chunks' outcomes (``started``: its perf_counter)."""
    tally = _Tally(request)
    for config, outcome in outcomes:
        tally.add(config, outcome)
    return RunSummary(
        chapter=str(request.chapter_path),
        task=request.task,
        model=request.settings.model,
        status=status,
        error=error,
        chunks=tally.chunks,
        chunks_complete=sum(c.status == "complete" for c in tally.chunks),
        paragraphs_total=tally.total,
        paragraphs_done=tally.done,
        paragraphs_submitted=tally.submitted,
        paragraphs_changed=tally.changed,
        tool_errors=dict(tally.errors),
        usage=dict(tally.usage),
        cost=cost_of(tally.usage, request.settings.prices),
        end_codes=dict(tally.endings),
        advice=tally.advice(),
        wall_ms=round((time.perf_counter() - started) * 1000, 1),
        trace=None if trace is None else str(trace),
        model_unusable=model_unusable,
        reverted_on_disk=reverted_on_disk,
    )
