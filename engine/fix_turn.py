"""The one more turn a chunk gets when the batch that completed it carries errors.

A chunk ends the moment its last paragraph is submitted, so the QA warnings in that batch's result would never
reach the model. When some of them have severity ``error`` (``engine.checks.warning.SEVERITIES``: the source left
as it was, kana left, model talk, a loop), the model gets one turn with them before the chunk ends complete
(whatever it does in that turn); a batch without errors ends the chunk at once, as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.checks.warning import SEVERITIES

SHOWN = 5  # errors named in the message; the tool result above it lists them all


def error_warnings(result: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The warnings of severity error in a submission's result."""
    warnings: list[dict[str, Any]] = [] if result is None else result.get("warnings", [])
    return [w for w in warnings if SEVERITIES.get(w["code"]) == "error"]


def fix_turn_text(errors: list[dict[str, Any]]) -> str:
    """What the model is told in its fix turn."""
    named = "; ".join(f"'{w.get('paragraph_id')}' {w.get('code')}: {w.get('message')}" for w in errors[:SHOWN])
    more = f" (and {len(errors) - SHOWN} more)" if len(errors) > SHOWN else ""
    return (
        f"Every paragraph of this chunk is saved, but your last batch has errors: {named}{more}. Fix them now: "
        "submit those paragraphs again with add_translation_batch, or answer `no changes` to keep them."
    )
