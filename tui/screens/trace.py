"""The trace inspector: step through a run's JSONL trace — turns, tool calls, commits, errors.

It reads the trace *file* (the record), never the log pane (a view). For the step under the cursor it
shows the chunk's boundaries, the messages sent and the model's answer, or the tool's arguments and result
as pretty JSON. Everything read from the trace is shown with control characters escaped (``visible``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, TypeVar

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from engine.counted import counted
from engine.events import ModelRequest, ModelResponse, ToolCalled, ToolResult
from engine.trace import TraceProblem, TraceReadError, TraceRecord, read_events
from tui.clipboard import copy_and_say
from tui.screens.prompt import PromptScreen
from tui.terminal_text import visible
from tui.usage_text import usage_text
from tui.widgets.trace_steps import (
    Step,
    boundaries_text,
    build_steps,
    matches,
    message_text,
    pretty,
    pretty_arguments,
)

_R = TypeVar("_R", bound=TraceRecord)


class _Escaped(Text):
    """A ``Text`` whose appended strings (read from the trace) have their control characters escaped."""

    def append(self, text: str | Text, style: str | Style | None = None) -> _Escaped:
        super().append(visible(text) if isinstance(text, str) else text, style)
        return self


class TraceStepList(OptionList):
    """The steps of the trace; errors in the error colour."""

    COMPONENT_CLASSES = {"trace-steps--error", "trace-steps--muted"}
    HELP_GROUP = "Steps"
    BINDINGS = [
        Binding("down", "cursor_down", "Next step", show=False, id="steps.down"),
        Binding("up", "cursor_up", "Previous step", show=False, id="steps.up"),
        Binding("pagedown", "page_down", "Page down", show=False, id="steps.page_down"),
        Binding("pageup", "page_up", "Page up", show=False, id="steps.page_up"),
        Binding("home", "first", "First step", show=False, id="steps.first"),
        Binding("end", "last", "Last step", show=False, id="steps.last"),
        Binding("enter", "select", "Select", show=False, id="steps.select"),
    ]


class TraceScreen(Screen[None]):
    """Inspect one trace file step by step."""

    HELP_GROUP = "Trace inspector"
    BINDINGS = [
        Binding("j", "step(1)", "Next step", show=False, id="trace.next"),
        Binding("k", "step(-1)", "Previous step", show=False, id="trace.previous"),
        Binding("n", "error(1)", "Next error", id="trace.next_error"),
        Binding("N", "error(-1)", "Previous error", id="trace.previous_error"),
        Binding("f", "filter", "Filter", id="trace.filter"),
        Binding("y", "copy", "Copy step", show=False, id="trace.copy"),
        Binding("pagedown,space", "detail_page(1)", "Detail: page down", show=False, id="trace.detail_down"),
        Binding("pageup", "detail_page(-1)", "Detail: page up", show=False, id="trace.detail_up"),
        Binding("b,q", "back", "Back", id="trace.back"),
    ]
    COMPONENT_CLASSES = {"trace-screen--heading", "trace-screen--error"}

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.steps: list[Step] = []
        self.shown: list[Step] = []
        self.filter_text = ""
        self.problem: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(visible(f"Trace {self.path.name} · reading…", newlines=False), id="trace-status", markup=False)
        with Horizontal(id="trace-body"):
            yield TraceStepList(id="trace-steps")
            with VerticalScroll(id="trace-detail"):
                yield Static("", id="trace-detail-text", markup=False)
        yield Footer(compact=True)

    async def on_mount(self) -> None:
        self.query_one(TraceStepList).focus()
        try:
            events = await asyncio.to_thread(lambda: list(read_events(self.path)))
        except TraceReadError as exc:
            self.problem = str(exc)
            events = []
        self.steps = build_steps(events)
        self._apply_filter()

    # -- list ----------------------------------------------------------------------------------------------

    def _apply_filter(self) -> None:
        self.shown = [s for s in self.steps if matches(s, self.filter_text)]
        steps = self.query_one(TraceStepList)
        error = steps.get_component_rich_style("trace-steps--error", partial=True)
        steps.clear_options()
        steps.add_options(
            [
                Option(
                    Text(
                        visible(f"{s.number:>3} {s.title}", newlines=False),
                        style=error if s.is_error else Style(),
                        no_wrap=True,
                        overflow="ellipsis",
                    ),
                    id=str(s.number),
                )
                for s in self.shown
            ]
        )
        if self.shown:
            steps.highlighted = 0
        self._update_status()
        self._show_detail()

    def _update_status(self) -> None:
        errors = sum(s.is_error for s in self.steps)
        text = f"Trace {self.path.name} · {counted(len(self.steps), 'step')} · {counted(errors, 'error')}"
        if self.filter_text:
            text += f" · filter {self.filter_text!r}: {len(self.shown)}"
        if self.problem:
            text += f" · {self.problem}"
        self.query_one("#trace-status", Static).update(visible(text, newlines=False))

    @property
    def current(self) -> Step | None:
        """The step under the cursor."""
        index = self.query_one(TraceStepList).highlighted
        if index is None or not 0 <= index < len(self.shown):
            return None
        return self.shown[index]

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_detail()

    # -- detail --------------------------------------------------------------------------------------------

    def _show_detail(self) -> None:
        step = self.current
        body = self.query_one("#trace-detail-text", Static)
        if step is None:
            body.update(
                visible(self.problem)
                if self.problem
                else ("No step matches the filter." if self.steps else "This trace is empty.")
            )
            return
        body.update(self.describe(step))
        self.query_one("#trace-detail").scroll_home(animate=False)

    def describe(self, step: Step) -> Text:
        """Everything about one step."""
        # partial: the detail pane's background shows through, not the screen's
        heading = self.get_component_rich_style("trace-screen--heading", partial=True)
        error = self.get_component_rich_style("trace-screen--error", partial=True)
        text = _Escaped(end="")
        text.append(f"Step {step.number}/{len(self.steps)} · {step.kind}\n", heading)
        if step.is_error:
            text.append(step.title + "\n", error)
        text.append("Chunk boundaries\n", heading)
        text.append(boundaries_text(step.chunk_event) + "\n")
        if step.kind == "turn":
            self._describe_turn(text, step, heading, error)
        elif step.kind == "tool":
            self._describe_tool(text, step, heading, error)
        else:
            text.append("Event\n", heading)
            text.append(pretty(_json(step.events[0])) + "\n")
        return text

    @staticmethod
    def _describe_tool(text: Text, step: Step, heading: Style, error: Style) -> None:
        call = _first(step, ToolCalled)
        result = _first(step, ToolResult)
        text.append("Arguments\n", heading)
        text.append(pretty(None if call is None else call.arguments) + "\n")
        text.append("Result\n", heading)
        text.append(
            pretty(result.result) + "\n" if result else "(no result recorded)\n", error if step.is_error else Style()
        )

    @staticmethod
    def _describe_turn(text: Text, step: Step, heading: Style, error: Style) -> None:
        request = _first(step, ModelRequest)
        if request is not None:
            text.append(f"Messages sent ({request.message_count})\n", heading)
            for message in request.messages:
                text.append(message_text(message) + "\n")
            if not request.messages:
                text.append("(not recorded in this trace)\n")
        text.append("Model answer\n", heading)
        response = _first(step, ModelResponse)
        if response is None:
            text.append("(no answer recorded)\n")
            return
        if response.error:
            text.append(f"error: {response.error}\n", error)
        if response.reasoning:
            text.append(f"reasoning: {response.reasoning}\n")
        if response.content:
            text.append(f"{response.content}\n")
        for call in response.tool_calls:
            text.append(f"→ {call.get('name', '?')} [{call.get('id', '?')}]\n")
            text.append(pretty_arguments(call.get("arguments")) + "\n")
        spent = usage_text(response.usage) if response.usage else "no usage reported"
        text.append(f"finish {response.finish_reason} · {spent} · {response.latency_ms:.0f} ms\n")

    # -- actions -------------------------------------------------------------------------------------------

    def action_step(self, delta: int) -> None:
        steps = self.query_one(TraceStepList)
        if delta > 0:
            steps.action_cursor_down()
        else:
            steps.action_cursor_up()

    def action_error(self, delta: int) -> None:
        steps = self.query_one(TraceStepList)
        start = steps.highlighted if steps.highlighted is not None else -1
        count = len(self.shown)
        for k in range(1, count + 1):
            index = (start + delta * k) % count
            if self.shown[index].is_error:
                steps.highlighted = index
                return
        self.notify("No error in this trace." if not self.filter_text else "No error among the filtered steps.")

    def action_filter(self) -> None:
        def apply(value: str | None) -> None:
            if value is not None:
                self.filter_text = value.strip()
                self._apply_filter()

        self.app.push_screen(
            PromptScreen("Filter steps by tool name or error code (empty: all)", value=self.filter_text), apply
        )

    def action_copy(self) -> None:
        step = self.current
        if step is not None:
            copy_and_say(self, pretty([_json(record) for record in step.events]), "the step's events as JSON")

    def action_detail_page(self, direction: int) -> None:
        detail = self.query_one("#trace-detail", VerticalScroll)
        if direction > 0:
            detail.scroll_page_down(animate=False)
        else:
            detail.scroll_page_up(animate=False)

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit()


def _first(step: Step, kind: type[_R]) -> _R | None:
    """The step's first event of type ``kind``."""
    return next((e for e in step.events if isinstance(e, kind)), None)


def _json(record: TraceRecord) -> Any:
    """A step's event as the JSON object the trace holds (a problem line: what it says, and why it is no event)."""
    if isinstance(record, TraceProblem):
        return {"line": record.line_no, "problem": record.reason, "text": record.text}
    return record.to_json()
