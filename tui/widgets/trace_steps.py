"""A trace file as steps the inspector walks through (pure, no Textual).

Steps group the events of a JSONL trace the way a person reads a run: a *turn* is the request with the
model's answer, a *tool* step is a call with its result (paired by ``call_id``), and commits, reminders,
retries, errors and chunk/run boundaries are steps of their own. Every step knows the chunk it belongs
to, so the inspector can show that chunk's boundaries next to it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from engine.counted import counted
from tui.terminal_text import json_text
from tui.usage_text import usage_text
from tui.widgets.log_entries import commit_summary, short_arguments


@dataclass
class Step:
    """One step of a run."""

    number: int
    kind: str  # run | chunk | turn | tool | commit | reminder | retry | error | chunk_end | run_end | other
    title: str
    events: list[dict[str, Any]] = field(default_factory=list)
    chunk_event: dict[str, Any] | None = None  # the chunk_started this step belongs to
    tool: str | None = None
    error_code: str | None = None
    is_error: bool = False


# The type each known field must have for the inspector to read it; a field of another type (a damaged or
# hand-edited trace) is dropped, so the inspector shows "?" instead of failing. Lists keep only fitting items.
_FIELD_TYPES: dict[str, type | tuple[type, ...]] = {
    "kind": str,
    "name": str,
    "call_id": str,
    "task": str,
    "model": str,
    "status": str,
    "finish_reason": str,
    "error_code": str,
    "first_paragraph_id": str,
    "last_paragraph_id": str,
    "reason": str,
    "code": str,
    "turn": (int, str),
    "chunk": (int, str),
    "chunk_count": (int, str),
    "number": (int, str),
    "attempt": (int, str),
    "message_count": int,
    "first_message": int,
    "latency_ms": (int, float),
    "delay": (int, float),
    "success": bool,
    "usage": dict,
    "summary": dict,
    "cost": dict,
    "paragraph_ids": list,
    "missing": list,
    "unchanged": list,
    "messages": list,
    "tool_calls": list,
}
_LIST_ITEMS: dict[str, type] = {
    "paragraph_ids": str,
    "missing": str,
    "unchanged": str,
    "messages": dict,
    "tool_calls": dict,
}


def clean_event(event: Any) -> dict[str, Any] | None:
    """``event`` with every known field of the wrong type dropped (None for a record that is not an object)."""
    if not isinstance(event, dict):
        return None
    cleaned = dict(event)
    for key, wanted in _FIELD_TYPES.items():
        value = cleaned.get(key)
        if value is None:
            continue
        if not isinstance(value, wanted) or (wanted is not bool and isinstance(value, bool)):
            del cleaned[key]
        elif key in _LIST_ITEMS:
            cleaned[key] = [item for item in value if isinstance(item, _LIST_ITEMS[key])]
    return cleaned


def _turn_title(request: dict[str, Any], response: dict[str, Any] | None) -> str:
    turn = request.get("turn", "?")
    if response is None:
        return f"turn {turn} · no answer"
    calls = response.get("tool_calls") or []
    if response.get("error"):
        return f"turn {turn} · model error"
    if calls:
        names = ", ".join(str(c.get("name", "?")) for c in calls[:2]) + (" …" if len(calls) > 2 else "")
        return f"turn {turn} · {counted(len(calls), 'call')}: {names}"
    return f"turn {turn} · text answer"


def _count(n: object, noun: str) -> str:
    """``counted`` for a number read from a trace file, which may be missing or of the wrong kind."""
    return counted(n, noun) if isinstance(n, int) and not isinstance(n, bool) else f"? {noun}s"


def build_steps(events: list[dict[str, Any]]) -> list[Step]:
    """Group trace events into steps, in file order."""
    steps: list[Step] = []
    chunk: dict[str, Any] | None = None
    open_turn: Step | None = None
    open_tools: dict[str, Step] = {}
    sent: list[dict[str, Any]] = []  # the chunk's history as its requests sent it

    def add(kind: str, title: str, event: dict[str, Any], **extra: Any) -> Step:
        step = Step(len(steps) + 1, kind, title, [event], chunk, **extra)
        steps.append(step)
        return step

    for raw in events:
        event = clean_event(raw)
        if event is None:
            continue
        kind = event.get("kind")
        if kind == "run_started":
            add(
                "run",
                f"run {event.get('task', '?')} · {event.get('model', '?')} · "
                f"{_count(event.get('chunk_count'), 'chunk')}",
                event,
            )
        elif kind == "chunk_started":
            chunk = event
            sent = []
            add(
                "chunk",
                f"chunk {event.get('chunk', '?')}/{event.get('chunk_count', '?')} · "
                f"{counted(len(event.get('paragraph_ids') or []), 'paragraph')}",
                event,
            )
        elif kind == "model_request":
            # Each request records only the messages it adds (from first_message on): the history it sent is
            # the chunk's earlier messages plus these. An older trace recorded the whole history every time.
            first = event.get("first_message") or 0
            sent = sent[: max(0, first)] + list(event.get("messages") or [])
            event = {**event, "messages": sent}
            open_turn = add("turn", _turn_title(event, None), event)
        elif kind == "model_response":
            if open_turn is not None and open_turn.events[0].get("turn") == event.get("turn"):
                open_turn.events.append(event)
                open_turn.title = _turn_title(open_turn.events[0], event)
                open_turn.is_error = bool(event.get("error"))
            else:
                add("turn", _turn_title({"turn": event.get("turn")}, event), event, is_error=bool(event.get("error")))
            open_turn = None
        elif kind == "tool_called":
            name = str(event.get("name", "?"))
            step = add("tool", f"{name}({short_arguments(name, event.get('arguments'))})", event, tool=name)
            open_tools[str(event.get("call_id"))] = step
        elif kind == "tool_result":
            step = open_tools.pop(str(event.get("call_id")), None)
            name = str(event.get("name", "?"))
            if step is None:
                step = add("tool", name, event, tool=name)
            else:
                step.events.append(event)
            if not event.get("success", True):
                step.is_error = True
                step.error_code = event.get("error_code") or "ERROR"
                step.title = f"✗ {step.error_code} · {step.title}"
            else:
                step.title = f"✓ {step.title}"
        elif kind == "batch_committed":
            add("commit", commit_summary(event.get("paragraph_ids") or [], event.get("unchanged") or []), event)
        elif kind == "reminder":
            add("reminder", f"reminder {event.get('number', '?')}: {len(event.get('missing') or [])} missing", event)
        elif kind == "retry":
            add("retry", f"retry {event.get('attempt', '?')}: {event.get('reason', '')}", event)
        elif kind == "error":
            add(
                "error",
                f"✗ {event.get('code') or 'error'}: {event.get('message', '')}",
                event,
                error_code=event.get("code"),
                is_error=True,
            )
        elif kind == "chunk_finished":
            status = event.get("status", "?")
            add(
                "chunk_end",
                f"chunk {event.get('chunk', '?')} {status}{_spent(event)}",
                event,
                is_error=status != "complete",
            )
        elif kind == "run_finished":
            status = event.get("status", "?")
            summary = event.get("summary")
            add(
                "run_end",
                f"run {status}{_spent(summary if isinstance(summary, dict) else {})}",
                event,
                is_error=status != "complete",
            )
        elif kind != "model_delta":
            add("other", str(kind), event)
    return steps


def _spent(record: dict[str, Any]) -> str:
    """`` · 12.3k tok · 38% cached · $0.01`` from a record's ``usage`` and ``cost`` (nothing when absent or damaged)."""
    usage, cost = record.get("usage"), record.get("cost")
    if not isinstance(usage, dict) or not usage:
        return ""
    return " · " + usage_text(usage, cost if isinstance(cost, dict) else None, short=True)


def matches(step: Step, needle: str) -> bool:
    """Whether a step matches a filter: a tool name or an error code (case-insensitive, substring)."""
    wanted = needle.strip().casefold()
    if not wanted:
        return True
    return any(wanted in (value or "").casefold() for value in (step.tool, step.error_code))


def pretty(value: Any) -> str:
    """JSON, indented, non-ASCII kept (CJK stays readable), control characters escaped by the encoder."""
    return json_text(value, indent=2, default=str)


def pretty_arguments(arguments: Any) -> str:
    """Tool-call arguments as pretty JSON; a raw JSON string is parsed first, broken JSON shown as is."""
    if isinstance(arguments, str):
        try:
            return pretty(json.loads(arguments))
        except (ValueError, RecursionError):
            return arguments
    return pretty(arguments)


def boundaries_text(chunk: dict[str, Any] | None) -> str:
    """The chunk's boundaries in one or two lines."""
    if chunk is None:
        return "no chunk (before the first chunk started)"
    ids = chunk.get("paragraph_ids") or []
    return (
        f"chunk {chunk.get('chunk', '?')}/{chunk.get('chunk_count', '?')} · {counted(len(ids), 'paragraph')} · "
        f"first {chunk.get('first_paragraph_id', '?')} · last {chunk.get('last_paragraph_id', '?')}\n"
        f"allowed: {', '.join(ids)}"
    )


def message_text(message: dict[str, Any]) -> str:
    """One chat message as readable text (role, content, tool calls, tool_call_id)."""
    message = clean_event(message) or {}
    role = message.get("role", "?")
    lines = [f"── {role}" + (f" (for {message['tool_call_id']})" if message.get("tool_call_id") else "")]
    content = message.get("content")
    if isinstance(content, str) and content:
        lines.append(content)
    elif content:
        lines.append(pretty(content))
    if message.get("reasoning_content"):
        lines.append("reasoning: " + str(message["reasoning_content"]))
    calls = message.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        call = call if isinstance(call, dict) else {}
        fn = call.get("function")
        fn = fn if isinstance(fn, dict) else {}
        arguments = pretty_arguments(fn.get("arguments", ""))
        lines.append(f"→ {fn.get('name', '?')} [{call.get('id', '?')}]\n{arguments}")
    return "\n".join(lines)
