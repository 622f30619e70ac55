"""A trace file as steps the inspector walks through (pure, no Textual).

Steps group the events of a JSONL trace the way a person reads a run: a *turn* is the request with the
model's answer, a *tool* step is a call with its result (paired by ``call_id``), and commits, reminders,
retries, errors and chunk/run boundaries are steps of their own. Every step knows the chunk it belongs
to, so the inspector can show that chunk's boundaries next to it. The events are the engine's own types
(``engine.trace.read_events``); their words come from ``tui.event_text``, and a line of the trace that holds no
event is a *problem* step saying why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from msgspec.structs import replace

from engine.counted import counted
from engine.events import ChunkStarted, EngineEventT, ModelRequest, ModelResponse, ToolCalled, ToolResult
from engine.history import sent_history
from engine.trace import TraceProblem, TraceRecord
from tui.event_text import MODEL_RESPONSE, TOOL_RESULT, StepKind, describer
from tui.event_words import pretty

__all__ = ["Step", "boundaries_text", "build_steps", "matches", "message_text", "pretty", "pretty_arguments"]


@dataclass
class Step:
    """One step of a run."""

    number: int
    kind: StepKind | Literal["problem"]
    title: str
    events: list[TraceRecord] = field(default_factory=list)
    chunk_event: ChunkStarted | None = None  # the chunk_started this step belongs to
    tool: str | None = None
    error_code: str | None = None
    is_error: bool = False


class _Steps:
    """The steps built so far, and what is still open: the chunk, the turn waiting for its answer, the calls
    waiting for their results, and the chunk's history as its requests sent it."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.chunk: ChunkStarted | None = None
        self.open_turn: Step | None = None
        self.open_tools: dict[str, Step] = {}
        self.whole: tuple[dict[str, Any], ...] = ()  # the chunk's history so far, every message whole

    def add(self, record: TraceRecord) -> None:
        if isinstance(record, TraceProblem):
            self._problem(record)
        elif isinstance(record, ModelRequest):
            self._request(record)
        elif isinstance(record, ModelResponse):
            self._response(record)
        elif isinstance(record, ToolResult):
            self._result(record)
        else:
            if isinstance(record, ChunkStarted):
                self.chunk, self.whole = record, ()
            elif isinstance(record, ToolCalled) and record.chunk is None:
                self.chunk = None  # an MCP session's call with no chunk open (a run's calls always have one)
            self._new(record)

    def _new(self, record: EngineEventT) -> Step | None:
        words = describer(record).step(record)
        if words is None:
            return None
        step = Step(
            len(self.steps) + 1,
            words.kind,
            words.title,
            [record],
            self.chunk,
            words.tool,
            words.error_code,
            words.is_error,
        )
        self.steps.append(step)
        if isinstance(record, ToolCalled):
            self.open_tools[record.call_id] = step
        return step

    def _problem(self, problem: TraceProblem) -> None:
        title = f"line {problem.line_no}: {problem.kind or 'a record'} not read: {problem.reason}"
        self.steps.append(Step(len(self.steps) + 1, "problem", title, [problem], self.chunk, is_error=True))

    def _request(self, request: ModelRequest) -> None:
        # Each request records only the messages it adds (from first_message on): the history it sent is the
        # chunk's earlier messages plus these, the answered ones shrunk as the loop shrank them (a bounded request).
        # An older trace recorded the whole history every time.
        self.whole = self.whole[: max(0, request.first_message)] + request.messages
        sent = sent_history(list(self.whole), request.first_message) if request.bounded else self.whole
        self.open_turn = self._new(replace(request, messages=tuple(sent)))

    def _response(self, response: ModelResponse) -> None:
        turn, self.open_turn = self.open_turn, None
        request = turn.events[0] if turn is not None else None
        if turn is None or not isinstance(request, ModelRequest) or request.turn != response.turn:
            self._new(response)
            return
        words = MODEL_RESPONSE.step(response)
        turn.events.append(response)
        turn.title, turn.is_error = words.title, words.is_error

    def _result(self, result: ToolResult) -> None:
        step = self.open_tools.pop(result.call_id, None)
        if step is None:
            self._new(result)
            return
        step.events.append(result)
        step.title = TOOL_RESULT.mark(result) + step.title
        step.is_error, step.error_code = not result.success, TOOL_RESULT.code(result)


def build_steps(records: list[TraceRecord]) -> list[Step]:
    """Group a trace's events (and its problem lines) into steps, in file order."""
    steps = _Steps()
    for record in records:
        steps.add(record)
    return steps.steps


def matches(step: Step, needle: str) -> bool:
    """Whether a step matches a filter: a tool name or an error code (case-insensitive, substring)."""
    wanted = needle.strip().casefold()
    if not wanted:
        return True
    return any(wanted in (value or "").casefold() for value in (step.tool, step.error_code))


def pretty_arguments(arguments: Any) -> str:
    """Tool-call arguments as pretty JSON; a raw JSON string is parsed first, broken JSON shown as is."""
    if isinstance(arguments, str):
        try:
            return pretty(json.loads(arguments))
        except (ValueError, RecursionError):
            return arguments
    return pretty(arguments)


def boundaries_text(chunk: ChunkStarted | None) -> str:
    """The chunk's boundaries in one or two lines."""
    if chunk is None:
        return "no chunk (before the first chunk started, or none open)"
    ids = chunk.paragraph_ids
    return (
        f"chunk {chunk.chunk}/{chunk.chunk_count} · {counted(len(ids), 'paragraph')} · "
        f"first {chunk.first_paragraph_id} · last {chunk.last_paragraph_id}\n"
        f"allowed: {', '.join(ids)}"
    )


def message_text(message: dict[str, Any]) -> str:
    """One chat message as readable text (role, content, tool calls, tool_call_id); a trace may hold anything in
    a message's fields, so every one of them is read with care."""
    call_for = message.get("tool_call_id")
    lines = [f"── {message.get('role', '?')}" + (f" (for {call_for})" if call_for else "")]
    content = message.get("content")
    if content:
        lines.append(content if isinstance(content, str) else pretty(content))
    if message.get("reasoning_content"):
        lines.append("reasoning: " + str(message["reasoning_content"]))
    lines.extend(_call_text(call) for call in _dicts(message.get("tool_calls")))
    return "\n".join(lines)


def _call_text(call: dict[str, Any]) -> str:
    fn = call.get("function")
    fn = fn if isinstance(fn, dict) else {}
    return f"→ {fn.get('name', '?')} [{call.get('id', '?')}]\n{pretty_arguments(fn.get('arguments', ''))}"


def _dicts(value: object) -> list[dict[str, Any]]:
    """The objects of a list read from a trace (anything else in it, or anything but a list, is left out)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
