"""How engine events read in the log pane: one short line each, the whole text of the expanded entry, and the
text a copy gives (pure).

``model_delta`` events are not entries: the pane folds them into its one "current output" line. A line's
``text`` is safe to draw (control characters from the model or the chapter shown escaped); ``detail`` and
``copy`` are the texts as they are, and whoever draws them escapes them (``LogEntry.expanded`` does). Times
are local clock time (``HH:MM:SS``); an epoch number never reaches the screen or the clipboard.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.counted import counted
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
from tui.terminal_text import json_text, visible

Level = Literal["info", "muted", "ok", "accent", "warning", "error"]
LEVELS: tuple[Level, ...] = ("info", "muted", "ok", "accent", "warning", "error")

# How a chunk or a run that ended reads: a cancel, a split or a chapter busy with another run is not a failure, so
# not in the errors-only view.
_END_LEVELS: dict[str, Level] = {"complete": "ok", "cancelled": "warning", "split": "warning", "busy": "warning"}


def clock(ts: float) -> str:
    """``ts`` (seconds since the epoch) as local clock time, ``HH:MM:SS``."""
    return time.strftime("%H:%M:%S", time.localtime(ts))


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One entry of the log pane: ``text`` is its one line (safe to draw), ``detail`` its whole text (as is;
    empty when the line says it all), ``copy`` what the clipboard and the text view get, ``ts`` when it
    happened."""

    kind: str
    level: Level
    text: str
    copy: str
    ts: float = 0.0
    detail: str = ""

    @property
    def is_error(self) -> bool:
        """Shown when the pane is filtered to errors."""
        return self.level == "error"

    @property
    def time(self) -> str:
        """When it happened, as local clock time."""
        return clock(self.ts)

    @property
    def expanded(self) -> str:
        """The whole entry after its local time, safe to draw: every line of it, newlines and tabs kept,
        control characters escaped."""
        return visible(f"{self.time}  {self.detail or self.text}")


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
        return f"{counted(len(items), 'paragraph')}: {shown}"
    text = ", ".join(f"{k}={_value(v)}" for k, v in arguments.items())
    return text if len(text) <= 80 else text[:79] + "…"


def commit_summary(written: Sequence[str], unchanged: Sequence[str]) -> str:
    """What a batch did to the file: ``committed 2 paragraphs``, ``… · 1 already had this text``, or, when
    nothing was written, ``batch unchanged: 3 paragraphs already had this text``."""
    if not written:
        if unchanged:
            return f"batch unchanged: {counted(len(unchanged), 'paragraph')} already had this text"
        return "batch unchanged: nothing written"
    text = f"committed {counted(len(written), 'paragraph')}"
    return text + (f" · {len(unchanged)} already had this text" if unchanged else "")


def _batch_result(result: dict[str, Any]) -> str:
    """The tool result of ``add_translation_batch`` in words (the model's submissions that were accepted and
    those identical to the text already there)."""
    accepted, unchanged = result.get("accepted"), result.get("unchanged")
    accepted = accepted if isinstance(accepted, list) else []
    unchanged = unchanged if isinstance(unchanged, list) else []
    if not accepted:
        return commit_summary((), unchanged)
    text = f"{counted(len(accepted), 'paragraph')} accepted"
    return text + (f" · {len(unchanged)} already had this text" if unchanged else "")


def _json(event: EngineEvent) -> str:
    data = event.to_json()
    ts = data.pop("ts", None)
    shown = {"kind": data.pop("kind"), **({"time": clock(ts)} if isinstance(ts, int | float) else {}), **data}
    return json.dumps(shown, ensure_ascii=False, indent=2, default=str)


def _pretty(value: Any) -> str:
    return json_text(value, indent=2, default=str)


def _first_line(text: str, limit: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _ids(label: str, ids: Sequence[str]) -> str:
    return f"\n{label}: {', '.join(ids)}" if ids else ""


def entry_for(event: EngineEvent) -> LogEntry | None:
    """The log entry of an event (None for events that only feed the current-output line)."""
    described = _describe(event)
    if described is None:
        return None
    level, line, detail, copy = described
    return LogEntry(
        event.kind, level, visible(line, newlines=False), _json(event) if copy is None else copy, event.ts, detail
    )


def _describe(event: EngineEvent) -> tuple[Level, str, str, str | None] | None:
    """(level, the one line, the whole text, the copy when it is not the event's JSON)."""
    if isinstance(event, RunStarted):
        line = (
            f"▶ {event.task} {event.chapter_id} · model {event.model} · {counted(event.chunk_count, 'chunk')} · "
            f"{counted(event.paragraph_count, 'paragraph')}"
        )
        return "accent", line, f"{line}\nfile: {event.chapter_path}\nserver: {event.base_url}", None
    if isinstance(event, ChunkStarted):
        line = (
            f"── chunk {event.part or event.chunk}/{event.chunk_count} · "
            f"{counted(len(event.paragraph_ids), 'paragraph')} · "
            f"{event.first_paragraph_id}…{event.last_paragraph_id}"
        )
        return "accent", line, line + _ids("paragraphs", event.paragraph_ids), None
    if isinstance(event, ModelRequest):
        line = f"→ turn {event.turn} · {counted(event.message_count, 'message')}"
        return "muted", line, line + _ids("tools", event.tool_names), None
    if isinstance(event, ModelResponse):
        facts = f"\nfinish: {event.finish_reason} · {event.latency_ms:.0f} ms" + (
            f" · {event.usage.get('total_tokens')} tokens" if event.usage and "total_tokens" in event.usage else ""
        )
        if event.error:
            return "error", f"✗ model error: {_first_line(event.error)}", f"✗ model error: {event.error}{facts}", None
        if event.content.strip():
            thinking = f"\nthinking: {event.reasoning}" if event.reasoning.strip() else ""
            return (
                "info",
                f"model: {_first_line(event.content)}",
                f"model: {event.content}{thinking}{facts}",
                event.content,
            )
        return None
    if isinstance(event, ToolCalled):
        line = f"⚙ {event.name}({short_arguments(event.name, event.arguments)})"
        arguments = event.arguments if isinstance(event.arguments, str) else _pretty(event.arguments)
        return "info", line, f"⚙ {event.name}\n{arguments}", None
    if isinstance(event, ToolResult):
        return _tool_result(event)
    if isinstance(event, BatchCommitted):
        if event.paragraph_ids:
            line = (
                f"✔ committed {counted(len(event.paragraph_ids), 'paragraph')} to {event.file.rsplit('/', 1)[-1]}"
                + (f" · {len(event.unchanged)} already had this text" if event.unchanged else "")
            )
        else:  # nothing reached the file (older engines reported such batches too)
            line = "○ " + commit_summary((), event.unchanged)
        if event.kept_selection:
            line += f" · your selection kept for {len(event.kept_selection)}"
        detail = (
            line
            + _ids("committed", event.paragraph_ids)
            + _ids("already had this text", event.unchanged)
            + _ids("your selection kept", event.kept_selection)
            + f"\nfile: {event.file}"
        )
        return ("ok" if event.paragraph_ids else "muted"), line, detail, None
    if isinstance(event, Reminder):
        line = (
            f"! reminder {event.number}: {counted(len(event.missing), 'paragraph')} missing: "
            f"{', '.join(event.missing[:4])}{' …' if len(event.missing) > 4 else ''}"
        )
        return "warning", line, line + _ids("missing", event.missing), None
    if isinstance(event, Retry):
        head = f"↻ retry {event.attempt} in {event.delay:.1f} s: "
        return "warning", head + _first_line(event.reason), head + event.reason, None
    if isinstance(event, ErrorEvent):
        head = f"✗ {event.code} " if event.code else "✗ "
        detail = head + event.message + (f"\n{_pretty(event.error)}" if event.error else "")
        return "error", head + _first_line(event.message), detail, None
    if isinstance(event, ChunkFinished):
        return _chunk_finished(event)
    if isinstance(event, RunFinished):
        line = f"■ run {event.status}"
        return _END_LEVELS.get(event.status, "error"), line, f"{line}\n{_pretty(event.summary)}", None
    return "muted", event.kind, _json(event), None


def _tool_result(event: ToolResult) -> tuple[Level, str, str, str | None]:
    result = event.result if isinstance(event.result, dict) else {}
    if event.success:
        extra = f" · {_batch_result(result)}" if event.name == "add_translation_batch" else ""
        line = f"  ✓ {event.name}{extra}"
        return "ok", line, f"{line.strip()}\n{_pretty(event.result)}", None
    message = str(result.get("error", ""))
    head = f"  ✗ {event.error_code or 'ERROR'} {event.name}: "
    rest = {k: v for k, v in result.items() if k not in ("success", "error", "error_code", "hint")}
    detail = (
        head.strip()
        + " "
        + message
        + (f"\nhint: {result['hint']}" if result.get("hint") else "")
        + (f"\n{_pretty(rest)}" if rest else "")
    )
    return "error", head + _first_line(message), detail, None


def _chunk_finished(event: ChunkFinished) -> tuple[Level, str, str, str | None]:
    errors = ", ".join(f"{code}×{n}" for code, n in sorted(event.tool_errors.items()))
    line = (
        f"■ chunk {event.part or event.chunk} {event.status} · {counted(event.turns, 'turn')} · "
        f"{counted(event.tool_calls, 'tool call')}"
        + (f" · errors {errors}" if errors else "")
        + (f" · missing {len(event.missing)}" if event.missing else "")
    )
    detail = (
        line
        + (f"\nwhy: {event.end_code}" if event.end_code else "")
        + (f"\nerror: {event.error}" if event.error else "")
        + _ids("missing", event.missing)
        + (f"\ntokens: {_pretty(event.usage)}" if event.usage else "")
    )
    return _END_LEVELS.get(event.status, "error"), line, detail, None


def notice(text: str, *, error: bool = False, warning: bool = False) -> LogEntry:
    """A line from the workstation itself (a reload, an invalid file, a refused edit); it may quote a file
    name or an error, so it is escaped like the others."""
    level: Level = "error" if error else "warning" if warning else "accent"
    return LogEntry("notice", level, visible(text, newlines=False), text, time.time(), text)
