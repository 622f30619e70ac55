"""How engine events read in the log pane: one short line each, the whole text of the expanded entry, and the
text a copy gives (pure). The words and the style of each kind come from its describer in ``tui.event_text``.

``model_delta`` events are not entries: the pane folds them into its one "current output" line. A line's
``text`` is safe to draw (control characters from the model or the chapter shown escaped); ``detail`` and
``copy`` are the texts as they are, and whoever draws them escapes them (``LogEntry.expanded`` does). Times
are local clock time (``HH:MM:SS``); an epoch number never reaches the screen or the clipboard.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from engine.events import EngineEvent
from tui.event_text import LEVELS, Level, describer
from tui.terminal_text import visible

__all__ = ["LEVELS", "Level", "LogEntry", "clock", "entry_for", "notice"]


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


def _json(event: EngineEvent) -> str:
    data = event.to_json()
    ts = data.pop("ts", None)
    shown = {"kind": data.pop("kind"), **({"time": clock(ts)} if isinstance(ts, int | float) else {}), **data}
    return json.dumps(shown, ensure_ascii=False, indent=2, default=str)


def entry_for(event: EngineEvent) -> LogEntry | None:
    """The log entry of an event (None for events that only feed the current-output line)."""
    words = describer(event).log(event)
    if words is None:
        return None
    copy = _json(event) if words.copy is None else words.copy
    return LogEntry(event.kind, words.level, visible(words.line, newlines=False), copy, event.ts, words.detail)


def notice(text: str, *, error: bool = False, warning: bool = False) -> LogEntry:
    """A line from the workstation itself (a reload, an invalid file, a refused edit); it may quote a file
    name or an error, so it is escaped like the others."""
    level: Level = "error" if error else "warning" if warning else "accent"
    return LogEntry("notice", level, visible(text, newlines=False), text, time.time(), text)
