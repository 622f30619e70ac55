"""The summary a run ends with: per-chunk results, totals, tokens and cost, and advice on what to change."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.cost import cost_of
from engine.counted import counted
from engine.loop import ChunkOutcome
from engine.loop_config import ToolCallLoopConfig

if TYPE_CHECKING:
    from engine.run import RunRequest

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


def run_summary(
    request: RunRequest,
    outcomes: Sequence[tuple[ToolCallLoopConfig, ChunkOutcome]],
    *,
    status: str,
    error: str | None,
    started: float,
    trace: Path | None,
    model_unusable: bool,
    **extra: Any,
) -> dict[str, Any]:
    """The ``run_finished`` summary of ``request`` from its chunks' outcomes (``started``: its perf_counter)."""
    usage: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    endings: Counter[str] = Counter()
    advised: Counter[str] = Counter()
    chunks = []
    total = done = 0
    for config, outcome in outcomes:
        usage.update(outcome.usage)
        if outcome.status == "split":  # its halves follow as their own entries
            continue
        errors.update(outcome.tool_errors)
        if outcome.end_code and outcome.status != "complete":
            endings[outcome.end_code] += 1
            if (
                outcome.end_code == "OUTPUT_LIMIT"
                and outcome.cut_completion_tokens
                and max(outcome.cut_completion_tokens) < request.settings.max_tokens
            ):
                advised["CONTEXT_FULL"] += 1  # cut below our own limit: the server's context was full
            elif outcome.end_code in ADVICE:
                advised[outcome.end_code] += 1
        total += len(config.paragraph_ids)
        done += len(config.paragraph_ids) - len(outcome.missing)  # a failed chunk may have committed some
        chunks.append(
            {
                "index": config.chunk_index,
                "part": config.part,
                "status": outcome.status,
                "missing": list(outcome.missing),
                "turns": outcome.turns,
                "tool_calls": outcome.tool_calls,
                "tool_errors": dict(outcome.tool_errors),
                "usage": dict(outcome.usage),
                "cost": cost_of(outcome.usage, request.settings.prices),
                "error": outcome.error,
                "end_code": outcome.end_code,
                "failure": None if outcome.failure is None else outcome.failure.to_json(),
            }
        )
    values = {
        "chunk_chars": request.chunk_chars,
        "max_batch": request.max_batch,
        "max_tokens": request.settings.max_tokens,
    }
    advice = [ADVICE[code].format(chunks=counted(n, "chunk"), **values) for code, n in sorted(advised.items())]
    return {
        "chapter": str(request.chapter_path),
        "task": request.task,
        "model": request.settings.model,
        "status": status,
        "error": error,
        "chunks": chunks,
        "chunks_complete": sum(c["status"] == "complete" for c in chunks),
        "paragraphs_total": total,
        "paragraphs_done": done,
        "tool_errors": dict(errors),
        "usage": dict(usage),
        "cost": cost_of(usage, request.settings.prices),
        "end_codes": dict(endings),
        "advice": advice,
        "wall_ms": round((time.perf_counter() - started) * 1000, 1),
        "trace": None if trace is None else str(trace),
        "model_unusable": model_unusable,
        **extra,
    }
