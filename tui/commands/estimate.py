"""``proofdesk run … --estimate``: requests, tokens and cost a run would take, printed without sending anything."""

from __future__ import annotations

import sys
from typing import Any

from engine.estimate import estimate_run
from engine.run_request import RunRequest
from engine.services import TaskSetupError
from store.errors import ChapterLoadError, StoreError
from tui.cli_errors import EXIT_OK, UsageError
from tui.terminal_text import json_text, visible
from tui.usage_text import money


def _span(pair: list[int], unit: str = "") -> str:
    low, high = pair
    return f"{low:,}{unit}" if low == high else f"{low:,}–{high:,}{unit}"


def _cost(pair: list[float] | None, currency: str | None) -> str | None:
    if pair is None or currency is None:
        return None
    return f"{money(pair[0], currency)}–{money(pair[1], currency)}"


def estimate_lines(estimate: dict[str, Any], name: str) -> list[str]:
    """The human report of one chapter's estimate."""
    lines = [f"{name}: {estimate['task']} with {estimate['model']} — an estimate, no request sent"]
    rows = [(f"chunk {c['chunk']}", c) for c in estimate["chunks"]]
    rows.append((f"total ({estimate['total']['chunks']} chunks)", estimate["total"]))
    for label, row in rows:
        parts = [
            f"{row['paragraphs']} paragraphs",
            f"{_span(row['requests'])} requests",
            f"input {_span(row['input_tokens'])} tokens",
            f"output {_span(row['output_tokens'])} tokens",
        ]
        if (cost := _cost(row["cost"], estimate["currency"])) is not None:
            parts.append(cost)
        lines.append(f"  {label}: " + " · ".join(parts))
    lines.append(f"  method: {estimate['method']}")
    if estimate["currency"] is None:
        lines.append("  cost: no prices for this model (set price_input and price_output in its profile)")
    return lines


def _estimate(request: RunRequest) -> dict[str, Any]:
    """One chapter's estimate; a chapter that cannot be run is a usage error (exit 2)."""
    try:
        return estimate_run(request)
    except ChapterLoadError as exc:
        raise UsageError(exc.line) from None
    except (StoreError, TaskSetupError, ValueError) as exc:
        raise UsageError(f"{request.chapter_path}: {exc}") from None


def print_estimates(requests: list[RunRequest], as_json: bool) -> int:
    """Estimate every chapter first (a chapter that cannot be run is exit 2), then print them."""
    estimates = [_estimate(request) for request in requests]
    for request, estimate in zip(requests, estimates, strict=True):
        if as_json:
            sys.stdout.write(json_text(estimate) + "\n")
        else:
            for line in estimate_lines(estimate, request.chapter_path.name):
                sys.stdout.write(visible(line, newlines=False) + "\n")
    return EXIT_OK
