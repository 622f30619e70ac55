"""The log pane's "current output" line: what the model is streaming in the turn in progress, replaced in place.

Pure state and text, no widget: the pane feeds it the events it queues and draws :meth:`CurrentOutput.line`.
"""

from __future__ import annotations

from rich.cells import cell_len

from engine.events import ChunkFinished, EngineEvent, ModelDelta, ModelRequest, ModelResponse, RunFinished, RunStarted
from tui.terminal_text import visible

_KEEP = 20_000  # characters of streamed text kept for copying the current line


class CurrentOutput:
    """The streamed text of the turn in progress (None when nothing streams) and what it is (its label)."""

    def __init__(self) -> None:
        self.text: str | None = None
        self.label = ""
        self._run_over = False  # after a run's end, stray deltas do not bring the line back

    def on_event(self, event: EngineEvent) -> None:
        """Waiting at a request, gone at the answer; no stray delta brings it back after the run's end (whatever
        its status: nothing is streaming any more)."""
        if isinstance(event, ModelDelta):
            self._on_delta(event)
        elif isinstance(event, RunStarted):
            self._run_over = False
        elif isinstance(event, ModelRequest):
            self.text, self.label = "", f"turn {event.turn}: waiting for the model…"
            self._run_over = False
        elif isinstance(event, ModelResponse | ChunkFinished):
            self.text = None
        elif isinstance(event, RunFinished):
            self.run_ended()

    def run_ended(self) -> None:
        """The run stopped, with or without its ``run_finished``: the line goes."""
        self.text, self._run_over = None, True

    def clear(self) -> None:
        self.text = None

    def _on_delta(self, delta: ModelDelta) -> None:
        if self._run_over:
            return
        if delta.channel == "text":
            self.label = "model: "
        elif delta.channel == "reasoning":
            self.label = "thinking: "
        else:
            self.label = f"writing {delta.tool_name or 'tool call'} ({delta.chars} chars)"
            self.text = self.text or ""
            return
        self.text = ((self.text or "") + delta.text)[-_KEEP:]

    def line(self, width: int) -> str:
        """``▸ label`` and as much of the stream's end as ``width`` cells hold (its start cut with ``…``),
        control characters escaped (the text and a tool's name come from the model)."""
        label = visible(self.label, newlines=False)
        tail = visible(" ".join((self.text or "").split()), newlines=False)
        room = max(width - cell_len(label) - 2, 0)
        if len(tail) > room or cell_len(tail) > room:
            room = max(room - 1, 0)  # the start is cut: keep a cell for "…", so the end stays in view
        shown: list[str] = []
        used = 0
        for ch in reversed(tail):  # the end of the stream is what is new
            w = cell_len(ch)
            if used + w > room:
                shown.append("…")
                break
            shown.append(ch)
            used += w
        return "▸ " + label + "".join(reversed(shown))
