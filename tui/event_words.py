"""The words several event describers share: a tool call's arguments in a few words, what a batch did to the
file, a value as indented JSON, a text on one line, tokens and money spent. Pure and light, as ``tui.event_text``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from engine.counted import counted
from tui.terminal_text import json_text
from tui.usage_text import usage_text


def short_arguments(name: str, arguments: Any) -> str:
    """A few words saying what a tool was called with (``paragraph_id=e58ed763, count=3``)."""
    if not isinstance(arguments, dict):
        return cut(str(arguments), 60)
    if name == "add_translation_batch" and isinstance(arguments.get("paragraphs"), list):
        items = arguments["paragraphs"]
        ids = [str(i.get("paragraph_id", i.get("index", "?"))) if isinstance(i, dict) else "?" for i in items]
        shown = ", ".join(ids[:3]) + (", …" if len(ids) > 3 else "")
        return f"{counted(len(items), 'paragraph')}: {shown}"
    return cut(", ".join(f"{k}={_value(v)}" for k, v in arguments.items()), 80)


def _value(value: Any) -> str:
    if isinstance(value, str):
        return cut(value, 24)
    if isinstance(value, list | tuple):
        return f"[{len(value)} items]"
    if isinstance(value, dict):
        return "{…}"
    return json.dumps(value)


def cut(text: str, limit: int) -> str:
    """``text``, cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def commit_summary(written: Sequence[str], unchanged: Sequence[str]) -> str:
    """What a batch did to the file: ``committed 2 paragraphs``, ``… · 1 already had this text``, or, when
    nothing was written, ``batch unchanged: 3 paragraphs already had this text``."""
    if not written:
        if unchanged:
            return f"batch unchanged: {counted(len(unchanged), 'paragraph')} already had this text"
        return "batch unchanged: nothing written"
    return f"committed {counted(len(written), 'paragraph')}" + already(unchanged)


def already(unchanged: Sequence[object]) -> str:
    """`` · 2 already had this text``, or nothing."""
    return f" · {len(unchanged)} already had this text" if unchanged else ""


def pretty(value: Any) -> str:
    """JSON, indented, non-ASCII kept (CJK stays readable), control characters escaped by the encoder."""
    return json_text(value, indent=2, default=str)


def first_line(text: str, limit: int = 200) -> str:
    """``text`` on one line (its whitespace runs as one space), cut to ``limit`` characters."""
    return cut(" ".join(text.split()), limit)


def ids_line(label: str, ids: Sequence[str]) -> str:
    """A line ``label: a, b`` under what comes before, or nothing without IDs."""
    return f"\n{label}: {', '.join(ids)}" if ids else ""


def when(condition: object, text: str) -> str:
    """``text`` when ``condition`` holds, else nothing."""
    return text if condition else ""


def spent(usage: dict[str, int], cost: dict[str, str | float] | None) -> str:
    """`` · 12.3k tok · 38% cached · $0.01`` from a record's ``usage`` and ``cost`` (nothing without tokens)."""
    return " · " + usage_text(usage, cost, short=True) if usage else ""
