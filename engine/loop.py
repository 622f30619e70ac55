"""The tool-call loop for one chunk (design section 6).

Fresh history ``[system, user(chunk)]``; each turn streams one response, then runs its tool calls in
order (only after the whole response arrived, so a failed or retried request has no side effects),
appends one ``tool`` message per call, and goes on. A translate chunk is complete the moment every
paragraph has an accepted submission — no extra turn. Polish/proofread chunks end on a text-only
answer. A text-only answer while paragraphs are missing gets a reminder naming them (at most two),
then the chunk ends incomplete; so does reaching ``max_turns``.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.client.errors import ModelError
from engine.client.events import Completed, ReasoningDelta, RetryScheduled, StreamEvent, TextDelta, ToolCallProgress
from engine.client.response import AssembledResponse, ToolCall
from engine.context import ChapterSource
from engine.events import (
    BatchCommitted,
    EngineEvent,
    ErrorEvent,
    ModelDelta,
    ModelRequest,
    ModelResponse,
    Reminder,
    Retry,
    ToolCalled,
    ToolResult,
)
from engine.loop_config import ToolCallLoopConfig
from engine.tools.args import invalid_arguments
from engine.tools.registry import ToolRegistry

MAX_REMINDERS = 2
MAX_STREAM_REISSUES = 2  # a broken stream re-issues the whole request (it costs a turn each time)
BATCH_TOOL = "add_translation_batch"
TOOL_PROGRESS_STEP = 256

Emit = Callable[[EngineEvent], None]


class ChatModel(Protocol):
    """What the loop needs from a model: the HTTP client and the demo model both provide it."""

    def stream(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> AsyncIterator[StreamEvent]:
        """Stream one response to ``messages``."""
        ...

    async def aclose(self) -> None:
        """Release connections (the run calls it once, at its end)."""
        ...


@dataclass
class ChunkOutcome:
    """How one chunk ended, with its counters."""

    status: str  # complete | incomplete | failed
    missing: tuple[str, ...]
    turns: int = 0
    tool_calls: int = 0
    tool_errors: Counter[str] = field(default_factory=Counter)
    usage: Counter[str] = field(default_factory=Counter)
    fatal: bool = False  # the model cannot be used at all (auth, not found, unreachable): stop the run
    error: str | None = None


def reminder_text(missing: list[str]) -> str:
    """The reminder sent when the model stops while paragraphs of its chunk have no submission."""
    ids = ", ".join(missing)
    return (f"{len(missing)} paragraph(s) of this chunk still have no accepted submission: {ids}. Submit them with "
            "add_translation_batch, using each paragraph_id exactly as shown in [ID: …].")


def _tool_message(call: ToolCall, result: dict[str, Any]) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result, ensure_ascii=False)}


def _unusable_call(call: ToolCall) -> dict[str, Any]:
    what = f"The arguments of {call.name or 'this tool call'} could not be used: {call.error or 'no arguments'}."
    return invalid_arguments(call.name, what, "Send the arguments again as one JSON object that matches the tool's "
                             "schema.")


class ToolCallLoop:
    """Runs one chunk's conversation against a model, executing tools through the registry."""

    def __init__(self, config: ToolCallLoopConfig, *, model: ChatModel, registry: ToolRegistry,
                 source: ChapterSource, emit: Emit, run_id: str) -> None:
        self.config = config
        self.model = model
        self.registry = registry
        self.source = source
        self.emit = emit
        self.run_id = run_id
        self.chunk = config.chunk_index
        self.submissions = config.new_submissions()
        self.file_name = str(getattr(source, "path", ""))
        self.tools = list(config.tools)
        self.tool_names = tuple(t["function"]["name"] for t in self.tools)

    def _event(self, cls: type[EngineEvent], **fields: Any) -> None:
        self.emit(cls(run_id=self.run_id, chunk=self.chunk, **fields))

    def _missing(self) -> list[str]:
        return list(self.submissions.remaining)

    async def run(self) -> ChunkOutcome:
        """Drive the conversation until the chunk is complete, incomplete or failed."""
        cfg = self.config
        history = cfg.initial_messages()
        outcome = ChunkOutcome(status="incomplete", missing=())
        reminders = reissues = 0
        while outcome.turns < cfg.max_turns:
            outcome.turns += 1
            turn = outcome.turns
            self._event(ModelRequest, turn=turn, message_count=len(history), tool_names=self.tool_names,
                        messages=tuple(history))
            try:
                response = await self._stream(history, turn)
            except ModelError as exc:
                self._event(ErrorEvent, message=str(exc), code="MODEL_ERROR", fatal=not exc.retryable)
                outcome.status, outcome.error, outcome.fatal = "failed", str(exc), not exc.retryable
                break
            self._record_response(response, turn, outcome)
            if response.finish_reason == "error":
                self._event(ErrorEvent, message=response.error or "the response ended with an error",
                            code="STREAM_ERROR")
                reissues += 1
                if reissues > MAX_STREAM_REISSUES:
                    outcome.status, outcome.error = "failed", response.error
                    break
                continue  # nothing of a broken response is kept or executed; the request is re-issued
            if response.finish_reason == "length":
                self._event(ErrorEvent, message="the response was cut off by the token limit; its tool calls "
                            "were not executed", code="TRUNCATED")
                history.append({"role": "assistant", "content": response.content or ""})
                history.append({"role": "user", "content": "Your last response was cut off by the output token "
                                "limit, so none of its tool calls ran. Submit smaller batches."})
                continue
            history.append(response.assistant_message())
            if response.tool_calls:
                if await self._run_tools(response.tool_calls, history, turn, outcome):
                    outcome.status = "complete"
                    break
                continue
            if cfg.task != "translate":
                outcome.status = "complete"
                break
            missing = self._missing()
            if not missing:
                outcome.status = "complete"
                break
            if reminders >= MAX_REMINDERS:
                break
            reminders += 1
            self._event(Reminder, turn=turn, missing=tuple(missing), number=reminders)
            history.append({"role": "user", "content": reminder_text(missing)})
        if cfg.task == "translate":
            outcome.missing = tuple(self._missing())
        return outcome

    async def _stream(self, history: list[dict[str, Any]], turn: int) -> AssembledResponse:
        response: AssembledResponse | None = None
        reported: dict[int, int] = {}  # tool call index -> characters last reported
        async for item in self.model.stream(history, self.tools):
            if isinstance(item, TextDelta):
                self._event(ModelDelta, turn=turn, channel="text", text=item.text)
            elif isinstance(item, ReasoningDelta):
                self._event(ModelDelta, turn=turn, channel="reasoning", text=item.text)
            elif isinstance(item, ToolCallProgress):
                # Argument fragments arrive a few characters at a time; progress every 256 is plenty to show.
                last = reported.get(item.index)
                if last is None or item.chars - last >= TOOL_PROGRESS_STEP:
                    reported[item.index] = item.chars
                    self._event(ModelDelta, turn=turn, channel="tool_arguments", tool_name=item.name,
                                chars=item.chars)
            elif isinstance(item, RetryScheduled):
                self._event(Retry, attempt=item.attempt, reason=item.reason, delay=item.delay_s)
            elif isinstance(item, Completed):
                response = item.response
        if response is None:  # a model implementation that forgot its final event
            raise RuntimeError("the model stream ended without a final response")
        return response

    def _record_response(self, response: AssembledResponse, turn: int, outcome: ChunkOutcome) -> None:
        usage = None if response.usage is None else dataclasses.asdict(response.usage)
        if usage is not None:
            outcome.usage.update(usage)
        self._event(
            ModelResponse, turn=turn, content=response.content, reasoning=response.reasoning,
            tool_calls=tuple({"id": c.id, "name": c.name, "arguments": c.arguments_raw, "error": c.error,
                              "repaired": c.repaired} for c in response.tool_calls),
            finish_reason=response.finish_reason,
            usage=usage,
            latency_ms=round(response.latency_ms, 1), error=response.error,
        )

    async def _run_tools(self, calls: tuple[ToolCall, ...], history: list[dict[str, Any]], turn: int,
                         outcome: ChunkOutcome) -> bool:
        """Execute the calls in order; True when the translate chunk became complete (stop at once)."""
        cfg = self.config
        for call in calls:
            outcome.tool_calls += 1
            self._event(ToolCalled, turn=turn, call_id=call.id, name=call.name,
                        arguments=call.arguments if call.arguments is not None else call.arguments_raw)
            if not call.executable:
                result = _unusable_call(call)
            else:
                # The chunk's paragraph IDs travel with every call: the registry builds the handler's
                # ToolContext.chunk_boundaries from them (config.tool_call_options carries paragraph_ids).
                result = await self.registry.handle_tool_call(
                    call.name, call.arguments, source=self.source, **cfg.tool_call_options(self.submissions))
                if call.repaired:
                    result = {**result, "warning": "Your arguments were not valid JSON and were repaired "
                              "automatically; check that they say what you meant."}
            ok = bool(result.get("success"))
            code = None if ok else str(result.get("error_code") or "ERROR")
            if code:
                outcome.tool_errors[code] += 1
            self._event(ToolResult, turn=turn, call_id=call.id, name=call.name, success=ok, error_code=code,
                        result=result)
            if ok and call.name == BATCH_TOOL and (result.get("accepted") or result.get("unchanged")):
                self._event(BatchCommitted, paragraph_ids=tuple(result.get("accepted", ())), file=self.file_name,
                            unchanged=tuple(result.get("unchanged", ())),
                            kept_selection=tuple(result.get("kept_selection", ())))
            history.append(_tool_message(call, result))
            if cfg.task == "translate" and ok and call.name == BATCH_TOOL and not self._missing():
                return True
        return False


async def execute_tool_call_loop(config: ToolCallLoopConfig, *, model: ChatModel, registry: ToolRegistry,
                                 source: ChapterSource, emit: Emit, run_id: str) -> ChunkOutcome:
    """Run the tool-call loop for the chunk described by ``config`` (its paragraph IDs bound the tools)."""
    return await ToolCallLoop(config, model=model, registry=registry, source=source, emit=emit,
                              run_id=run_id).run()
