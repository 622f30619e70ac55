"""How engine events read in the log pane: one short line each, plus the full text a copy gives (pure).

``model_delta`` events are not entries: the pane folds them into its one "current output" line. A line's
``text`` is safe to draw (control characters from the model or the chapter shown escaped); ``copy`` is the
text as it is, for the clipboard and for views that escape it themselves.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from engine.events import (
    BatchCommitted,
    ChunkFinished,
    ChunkStarted,
    EngineEvent,
    ErrorEvent,
    ModelRequest,
    ModelResponse,
    Reminder,
    Retry,
    RunFinished,
    RunStarted,
    ToolCalled,
    ToolResult,
)
from tui.terminal_text import visible

Level = Literal["info", "muted", "ok", "accent", "warning", "error"]
LEVELS: tuple[Level, ...] = ("info", "muted", "ok", "accent", "warning", "error")


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of the log pane; ``copy`` is the full text put on the clipboard."""

    kind: str
    level: Level
    text: str
    copy: str

    @property
    def is_error(self) -> bool:
        """Shown when the pane is filtered to errors."""
        return self.level == "error"


def _value(value: Any) -> str:
    if isinstance(value, str):
        return value if len(value) <= 24 else value[:23] + "…"
    if isinstance(value, list | tuple):
        return f"[{len(value)} items]"
    if isinstance(value, dict):
        return "{…}"
    return json.dumps(value)


def short_arguments(name: str, arguments: Any) -> str:
    """A few words saying what a tool was called with (``paragraph_id=e58ed763, count=3``)."""
    if not isinstance(arguments, dict):
        text = str(arguments)
        return text if len(text) <= 60 else text[:59] + "…"
    if name == "add_translation_batch" and isinstance(arguments.get("paragraphs"), list):
        items = arguments["paragraphs"]
        ids = [str(i.get("paragraph_id", i.get("index", "?"))) if isinstance(i, dict) else "?" for i in items]
        shown = ", ".join(ids[:3]) + (", …" if len(ids) > 3 else "")
        return f"{len(items)} paragraph{'s' if len(items) != 1 else ''}: {shown}"
    text = ", ".join(f"{k}={_value(v)}" for k, v in arguments.items())
    return text if len(text) <= 80 else text[:79] + "…"


def _full(event: EngineEvent) -> str:
    return json.dumps(event.to_json(), ensure_ascii=False, indent=2, default=str)


def _first_line(text: str, limit: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def entry_for(event: EngineEvent) -> LogEntry | None:
    """The log line of an event (None for events that only feed the current-output line)."""
    entry = _describe(event)
    if entry is None:
        return None
    text = visible(entry.text, newlines=False)  # model content, IDs, tool arguments, server errors
    return entry if text is entry.text else LogEntry(entry.kind, entry.level, text, entry.copy)


def _describe(event: EngineEvent) -> LogEntry | None:
    full = _full(event)
    kind = event.kind
    if isinstance(event, RunStarted):
        return LogEntry(kind, "accent", f"▶ {event.task} {event.chapter_id} · model {event.model} · "
                        f"{event.chunk_count} chunk(s) · {event.paragraph_count} paragraph(s)", full)
    if isinstance(event, ChunkStarted):
        count = len(event.paragraph_ids)
        return LogEntry(kind, "accent", f"── chunk {event.chunk}/{event.chunk_count} · {count} paragraph(s) · "
                        f"{event.first_paragraph_id}…{event.last_paragraph_id}", full)
    if isinstance(event, ModelRequest):
        return LogEntry(kind, "muted", f"→ turn {event.turn} · {event.message_count} messages", full)
    if isinstance(event, ModelResponse):
        if event.error:
            return LogEntry(kind, "error", f"✗ model error: {_first_line(event.error)}", full)
        if event.content.strip():
            return LogEntry(kind, "info", f"model: {_first_line(event.content)}", event.content)
        return None
    if isinstance(event, ToolCalled):
        return LogEntry(kind, "info", f"⚙ {event.name}({short_arguments(event.name, event.arguments)})", full)
    if isinstance(event, ToolResult):
        if event.success:
            extra = ""
            accepted = event.result.get("accepted") if isinstance(event.result, dict) else None
            if isinstance(accepted, list):
                extra = f" · {len(accepted)} accepted"
            return LogEntry(kind, "ok", f"  ✓ {event.name}{extra}", full)
        message = event.result.get("error", "") if isinstance(event.result, dict) else ""
        return LogEntry(kind, "error", f"  ✗ {event.error_code or 'ERROR'} {event.name}: {_first_line(message)}",
                        full)
    if isinstance(event, BatchCommitted):
        text = f"✔ committed {len(event.paragraph_ids)} paragraph(s) to {event.file.rsplit('/', 1)[-1]}"
        if event.kept_selection:
            text += f" · your selection kept for {len(event.kept_selection)}"
        return LogEntry(kind, "ok", text, full)
    if isinstance(event, Reminder):
        return LogEntry(kind, "warning", f"! reminder {event.number}: {len(event.missing)} paragraph(s) missing: "
                        f"{', '.join(event.missing[:4])}{' …' if len(event.missing) > 4 else ''}", full)
    if isinstance(event, Retry):
        return LogEntry(kind, "warning", f"↻ retry {event.attempt} in {event.delay:.1f} s: {_first_line(event.reason)}",
                        full)
    if isinstance(event, ErrorEvent):
        code = f"{event.code} " if event.code else ""
        return LogEntry(kind, "error", f"✗ {code}{_first_line(event.message)}", full)
    if isinstance(event, ChunkFinished):
        errors = ", ".join(f"{code}×{n}" for code, n in sorted(event.tool_errors.items()))
        text = (f"■ chunk {event.chunk} {event.status} · {event.turns} turn(s) · {event.tool_calls} tool call(s)"
                + (f" · errors {errors}" if errors else "")
                + (f" · missing {len(event.missing)}" if event.missing else ""))
        return LogEntry(kind, "ok" if event.status == "complete" else "error", text, full)
    if isinstance(event, RunFinished):
        level: Level = "ok" if event.status == "complete" else "error"
        return LogEntry(kind, level, f"■ run {event.status}", full)
    return LogEntry(kind, "muted", f"{kind}", full)


def notice(text: str, *, error: bool = False) -> LogEntry:
    """A line from the workstation itself (a reload, an invalid file, a refused edit); it may quote a file
    name or an error, so it is escaped like the others."""
    return LogEntry("notice", "error" if error else "accent", visible(text, newlines=False), text)
