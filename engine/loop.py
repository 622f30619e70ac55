"""The tool-call loop for one chunk.

Fresh history ``[system, user(chunk)]``; each turn streams one response, then runs its tool calls in
order (only after the whole response arrived, so a failed or retried request has no side effects),
appends one ``tool`` message per call, and goes on. A translate chunk is complete the moment every
paragraph has an accepted submission — no extra turn, unless the batch that completed it carries
error-severity warnings (one more turn to fix them). A polish/proofread chunk is complete the same way, or
when the model answers ``no changes``. Any other answer without a call while paragraphs are missing gets a
reminder naming them (at most two; an echo of the chunk is reminded once), then the chunk ends incomplete
(``NO_SUBMISSION``); so does reaching ``max_turns``. ``engine.nudges`` decides and words these.

Turns that cannot move the chunk forward are bounded: two responses cut off by the token limit (finish
reason ``length``: the request's output limit, or the model's context filling up) end the chunk
``OUTPUT_LIMIT``; two turns whose only submissions changed nothing (every text already saved) or repeated
an earlier call end it ``NO_PROGRESS``. The model is always told what actually happened. A model
failure (classified by the client, retries already spent) ends the chunk ``failed``; a context overflow is
reported as ``CONTEXT_OVERFLOW`` so the run can split the chunk.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from engine.chunk_outcome import FILE_FAILURES, MAX_FILE_FAILURES, ChunkOutcome
from engine.client.errors import ModelError
from engine.client.events import Completed, ReasoningDelta, RetryScheduled, StreamEvent, TextDelta, ToolCallProgress
from engine.client.failure import ModelFailure
from engine.client.response import AssembledResponse, ToolCall
from engine.client.text_calls import lift_text_calls
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
from engine.loop_texts import (
    CUT_CALL_TEXT,
    OUTPUT_LIMIT_TEXT,
    REPAIRED_WARNING,
    REPEATED_NOTE,
    STALLED_WHY,
    TOO_MANY_CALLS_TEXT,
    UNCHANGED_NOTE,
    oversized_call,
    tool_message,
    unusable_call,
)
from engine.nudges import COMPLETE, ChunkNudges
from engine.summaries import EndCode
from engine.tasks import TASK_RULES
from engine.tools.args import MAX_ARGUMENT_CHARS, invalid_arguments
from engine.tools.registry import ToolRegistry
from engine.tools.results import Committed, ToolReply

MAX_CALLS_PER_RESPONSE = 64  # a model batching sensibly makes a few; thousands are a runaway model or a hostile server
MAX_STALLED_TURNS = 2  # of turns cut off by the token limit; of turns that only repeated or resent saved texts
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


def _call_key(call: ToolCall) -> str:
    return call.name + json.dumps(call.arguments, sort_keys=True, ensure_ascii=False)


class ToolCallLoop:
    """Runs one chunk's conversation against a model, executing tools through the registry."""

    def __init__(
        self,
        config: ToolCallLoopConfig,
        *,
        model: ChatModel,
        registry: ToolRegistry,
        emit: Emit,
        run_id: str,
        outcome: ChunkOutcome | None = None,
    ) -> None:
        self.config = config
        self.scope = config.scope  # the chunk's one object that every tool call carries
        self.model = model
        self.registry = registry
        self.emit = emit
        self.run_id = run_id
        self.chunk = config.chunk_index
        self.revises = TASK_RULES[config.task].revises
        if self.scope.submissions is None:
            raise ValueError("a chunk's scope carries the tracker of its submissions")
        self.submissions = self.scope.submissions
        path = self.scope.source.path
        self.file_name = "" if path is None else str(path)
        self.tools = list(config.tools)
        self.tool_names = tuple(t["function"]["name"] for t in self.tools)
        self.outcome = outcome or ChunkOutcome(status="incomplete", missing=config.paragraph_ids)
        self.history: list[dict[str, Any]] = []
        self._calls_made: set[str] = set()
        self._cancel_pending = False
        self._file_failures = 0  # tool calls in a row that found the chapter file unreadable or unsavable
        self._cut_turns = self._idle_turns = self._traced = 0
        self.nudges = ChunkNudges(config)  # reminders and the fix turn
        self._content: str | None = None  # the text of this turn's response
        self._submission: dict[str, Any] | None = None  # the result of this turn's last successful submission

    def _event(self, cls: type[EngineEvent], **fields: Any) -> None:
        self.emit(cls(run_id=self.run_id, chunk=self.chunk, **fields))

    def _missing(self) -> list[str]:
        return list(self.submissions.remaining)

    def _end(self, code: EndCode) -> bool:
        """End the chunk with ``code`` (returns False: the conversation stops)."""
        self.outcome.end_code = code
        return False

    def _complete(self) -> bool:
        """End the chunk complete (returns False), unless the batch that completed it this turn carries errors
        the model has not seen: then one more turn with them (returns True; ``engine.nudges``)."""
        if self._nudge(self.nudges.after_completion(self._submission, self.outcome.turns)):
            return True
        self.outcome.status = "complete"
        return False

    async def run(self) -> ChunkOutcome:
        """Drive the conversation until the chunk is complete, incomplete or failed."""
        outcome = self.outcome
        outcome.status, outcome.end_code = "incomplete", None
        self.history = self.config.initial_messages()
        while True:
            if outcome.turns >= self.config.max_turns:
                self._end("MAX_TURNS")
                break
            response = await self._next_response()
            if response is None or not await self._answer(response):
                break
            if self.nudges.fix_turn_over(outcome.turns):  # whatever the model did with its errors
                self._complete()
                break
        self._finish()
        return outcome

    async def _next_response(self) -> AssembledResponse | None:
        """Send the history (one more turn) and receive the whole response; None when the model failed."""
        outcome = self.outcome
        outcome.turns += 1
        turn = outcome.turns
        history = self.history
        self._event(
            ModelRequest,
            turn=turn,
            message_count=len(history),
            tool_names=self.tool_names,
            messages=tuple(history[self._traced :]),
            first_message=self._traced,
        )
        self._traced = len(history)  # the history only grows: the next request carries what comes after
        try:
            response = await self._stream(history, turn)
        except ModelError as exc:
            self._fail(outcome, exc.failure, "MODEL_ERROR")
            return None
        response = lift_text_calls(response, self.tool_names, turn) or response
        self._record_response(response, turn, outcome)
        self._content, self._submission = response.content, None
        if response.finish_reason == "error":
            failure = response.failure or ModelFailure("the response ended with an error", "server_error", None, False)
            self._fail(outcome, failure, "STREAM_ERROR")
            return None
        return response

    async def _answer(self, response: AssembledResponse) -> bool:
        """Act on one whole response; whether the conversation goes on."""
        if response.finish_reason == "length":
            return self._cut_turn(response)
        response, dropped = self._bound_calls(response)
        self.history.append(response.assistant_message())
        if response.tool_calls:
            return await self._tool_turn(response, dropped)
        return self._text_turn()

    def _cut_turn(self, response: AssembledResponse) -> bool:
        """A response cut off by the token limit: nothing in it runs; two in a chunk end it."""
        self._cut_turns += 1
        if response.usage is not None:
            self.outcome.cut_completion_tokens.append(response.usage.completion_tokens)
        if response.tool_calls:
            self.history.append(response.assistant_message())
            self._answer_cut_calls(response.tool_calls, self.history, self.outcome.turns, self.outcome)
        else:
            self._event(
                ErrorEvent,
                message="the response was cut off (finish reason length) before it made any tool call",
                code="OUTPUT_LIMIT",
            )
            self.history.append({"role": "assistant", "content": response.content or ""})
            self.history.append({"role": "user", "content": OUTPUT_LIMIT_TEXT})
        return self._cut_turns < MAX_STALLED_TURNS or self._end("OUTPUT_LIMIT")

    async def _tool_turn(self, response: AssembledResponse, dropped: int) -> bool:
        """Run the response's calls; whether the conversation goes on."""
        complete, progress = await self._run_tools(response.tool_calls, self.history, self.outcome.turns, self.outcome)
        if dropped:
            made = len(response.tool_calls) + dropped
            text = TOO_MANY_CALLS_TEXT.format(made=made, limit=MAX_CALLS_PER_RESPONSE)
            self.history.append({"role": "user", "content": text})
        if self.outcome.end_code in FILE_FAILURES:
            return False
        if complete:
            return self._complete()
        if progress is False:
            self._idle_turns += 1
            return self._idle_turns < MAX_STALLED_TURNS or self._end("NO_PROGRESS")
        return True

    def _text_turn(self) -> bool:
        """An answer without tool calls: complete, a reminder of what is missing, or the end (``NO_SUBMISSION``)."""
        missing = self._missing()
        nudge = self.nudges.after_text(self._content, missing)
        if nudge == COMPLETE:
            return self._complete()
        if nudge is not None:
            self._event(Reminder, turn=self.outcome.turns, missing=tuple(missing), number=self.nudges.reminders)
        return self._nudge(nudge) or self._end("NO_SUBMISSION")

    def _nudge(self, text: str | None) -> bool:
        """Tell the model ``text`` and go on; False when there is nothing to tell."""
        if text is None:
            return False
        self.history.append({"role": "user", "content": text})
        return True

    def _finish(self) -> None:
        outcome = self.outcome
        if (what := STALLED_WHY.get(outcome.end_code or "")) is not None:
            self._event(ErrorEvent, message=f"chunk {self.chunk} stopped: {what}", code=outcome.end_code)
        if not self.revises:
            outcome.missing = tuple(self._missing())
        elif outcome.status == "complete":
            outcome.missing = ()

    def _bound_calls(self, response: AssembledResponse) -> tuple[AssembledResponse, int]:
        """The response with at most ``MAX_CALLS_PER_RESPONSE`` tool calls (the rest are dropped from what is sent
        back as well, so every call in the history has its answer), and how many were dropped."""
        dropped = len(response.tool_calls) - MAX_CALLS_PER_RESPONSE
        if dropped <= 0:
            return response, 0
        self._event(
            ErrorEvent,
            code="TOO_MANY_CALLS",
            message=f"the response made {len(response.tool_calls):,} "
            f"tool calls; the first {MAX_CALLS_PER_RESPONSE} run, the other {dropped:,} were dropped",
        )
        return dataclasses.replace(response, tool_calls=response.tool_calls[:MAX_CALLS_PER_RESPONSE]), dropped

    def _stop_on_file(self, outcome: ChunkOutcome, code: EndCode, result: dict[str, Any]) -> None:
        """The chapter file failed ``MAX_FILE_FAILURES`` calls in a row: a deleted file, a full disk, a read-only
        folder will not heal while the model retries, so end the chunk (and, through the run, the rest)."""
        detail = str(result.get("error") or code)
        outcome.status, outcome.end_code = "failed", code
        outcome.error = (
            f"the chapter file could not be {'read' if code == 'CHAPTER_UNAVAILABLE' else 'saved'} "
            f"{MAX_FILE_FAILURES} times in a row ({detail}); the run stops"
        )
        self._event(ErrorEvent, message=f"chunk {self.chunk} stopped: {outcome.error}", code=code, fatal=True)

    def _fail(self, outcome: ChunkOutcome, failure: ModelFailure, code: str) -> None:
        outcome.fail(failure)
        self._event(
            ErrorEvent,
            message=failure.message,
            code="CONTEXT_OVERFLOW" if failure.type == "context_overflow" else code,
            fatal=failure.stops_run,
            error=failure.to_json(),
        )

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
                    self._event(ModelDelta, turn=turn, channel="tool_arguments", tool_name=item.name, chars=item.chars)
            elif isinstance(item, RetryScheduled):
                reported.clear()
                self._event(Retry, attempt=item.attempt, reason=item.reason, delay=item.delay_s)
            elif isinstance(item, Completed):
                response = item.response
        if response is None:  # a model implementation that forgot its final event
            raise RuntimeError("the model stream ended without a final response")
        return response

    def _record_response(self, response: AssembledResponse, turn: int, outcome: ChunkOutcome) -> None:
        usage = None if response.usage is None else response.usage.to_json()
        if usage is not None:
            outcome.usage.update(usage)
        self._event(
            ModelResponse,
            turn=turn,
            content=response.content,
            reasoning=response.reasoning,
            tool_calls=tuple(_call_record(c) for c in response.calls_as_made),
            expanded_tool_calls=tuple(_call_record(c) for c in response.tool_calls) if response.received_calls else (),
            finish_reason=response.finish_reason,
            finish_reason_raw=response.finish_reason_raw,
            usage=usage,
            latency_ms=round(response.latency_ms, 1),
            error=response.error,
            failure=None if response.failure is None else response.failure.to_json(),
            attempts=response.attempts,
            lifted_from_content=response.lifted_from_content,
        )

    def _answer_cut_calls(
        self, calls: tuple[ToolCall, ...], history: list[dict[str, Any]], turn: int, outcome: ChunkOutcome
    ) -> None:
        """A response cut off by the output limit: none of its calls ran; each is answered as truncated."""
        for call in calls:
            outcome.tool_calls += 1
            self._event(ToolCalled, turn=turn, call_id=call.id, name=call.name, arguments=call.arguments_raw)
            result = {
                **invalid_arguments(call.name, CUT_CALL_TEXT, "Resend it with fewer paragraphs."),
                "error_code": "ARGUMENTS_TRUNCATED",
            }
            outcome.tool_errors["ARGUMENTS_TRUNCATED"] += 1
            self._event(
                ToolResult,
                turn=turn,
                call_id=call.id,
                name=call.name,
                success=False,
                error_code="ARGUMENTS_TRUNCATED",
                result=result,
            )
            history.append(tool_message(call, result))

    async def _run_tools(
        self, calls: tuple[ToolCall, ...], history: list[dict[str, Any]], turn: int, outcome: ChunkOutcome
    ) -> tuple[bool, bool | None]:
        """Execute the calls in order.

        Returns (complete, progress): complete when the translate chunk became complete (stop at once); progress
        is None when the turn submitted nothing, False when every submission was a repeat or changed nothing.
        """
        submitted = advanced = False
        for call in calls:
            progress = await self._one_call(call, history, turn, outcome)
            if self._cancel_pending:  # a commit finished and was reported while the run was being cancelled
                outcome.missing = tuple(self._missing())
                raise asyncio.CancelledError
            if outcome.end_code in FILE_FAILURES:
                return False, None
            if progress is not None:
                submitted, advanced = True, advanced or progress
                if self._all_submitted(outcome):
                    return True, True
        return False, (advanced if submitted else None)

    def _all_submitted(self, outcome: ChunkOutcome) -> bool:
        """After a submission: whether every paragraph of the chunk now has one (``missing`` kept current)."""
        outcome.missing = tuple(self._missing())
        return not outcome.missing

    async def _one_call(
        self, call: ToolCall, history: list[dict[str, Any]], turn: int, outcome: ChunkOutcome
    ) -> bool | None:
        """Run one call and answer it; for a submission, whether it moved the chunk on (None: not a submission).

        Only the submitting tool's calls are the chunk's progress: another tool that writes (a glossary proposal)
        never counts, nor is it told that nothing changed.
        """
        outcome.tool_calls += 1
        arguments = call.arguments if call.arguments is not None else call.arguments_raw
        self._event(ToolCalled, turn=turn, call_id=call.id, name=call.name, arguments=arguments)
        result, committed, repeated = await self._execute(call)
        ok = bool(result.get("success"))
        accepted = committed.accepted if committed is not None else ()
        progress = None
        if call.executable and self.registry.submits(call.name):
            result, progress = _judged_submission(result, ok, accepted, repeated)
        code = self._count_result(ok, result, outcome)
        self._event(ToolResult, turn=turn, call_id=call.id, name=call.name, success=ok, error_code=code, result=result)
        if committed is not None and accepted:  # only when something reached the disk
            self._committed(committed)
        if committed is not None:  # a successful submission: its errors may earn a fix turn
            self._submission = result
        history.append(tool_message(call, result))
        if self._file_failures >= MAX_FILE_FAILURES:
            self._stop_on_file(
                outcome, "CHAPTER_UNAVAILABLE" if code == "CHAPTER_UNAVAILABLE" else "COMMIT_FAILED", result
            )
        return progress

    def _committed(self, committed: Committed) -> None:
        self._event(
            BatchCommitted,
            paragraph_ids=committed.accepted,
            file=self.file_name,
            unchanged=committed.unchanged,
            kept_selection=committed.kept_selection,
            suggested=committed.suggested,
            protected=committed.protected,
        )

    async def _execute(self, call: ToolCall) -> tuple[dict[str, Any], Committed | None, bool]:
        """The call's result, what it committed, and whether it repeats an earlier call of this chunk."""
        if not call.executable:
            return unusable_call(call), None, False
        if len(call.arguments_raw) > MAX_ARGUMENT_CHARS:  # the tools' own limit, whatever the client parsed
            return oversized_call(call), None, False
        key = _call_key(call)
        repeated = key in self._calls_made
        self._calls_made.add(key)
        reply = await self._call(call)
        result = reply.result
        if call.repaired:
            result = {**result, "warning": REPAIRED_WARNING}
        return result, reply.committed, repeated

    async def _call(self, call: ToolCall) -> ToolReply:
        """The tool's reply. A call that writes is finished even when the run is cancelled meanwhile: a commit
        that started is completed and reported (its tool result and ``batch_committed``) before the cancellation
        goes on (``_cancel_pending``), so the report always matches the file."""
        pending = self.registry.call(call.name, call.arguments, self.scope)
        if not self.registry.writes(call.name):
            return await pending
        task = asyncio.ensure_future(pending)
        while True:
            try:
                return await asyncio.shield(task)
            except asyncio.CancelledError:
                if task.done():
                    raise
                self._cancel_pending = True

    def _count_result(self, ok: bool, result: dict[str, Any], outcome: ChunkOutcome) -> str | None:
        """The result's error code (None on success), counted; and the run of file failures."""
        code = None if ok else str(result.get("error_code") or "ERROR")
        if code:
            outcome.tool_errors[code] += 1
        self._file_failures = self._file_failures + 1 if code in FILE_FAILURES else 0
        return code


def _judged_submission(
    result: dict[str, Any], ok: bool, accepted: tuple[str, ...], repeated: bool
) -> tuple[dict[str, Any], bool]:
    """A submission's result with a note when it changed nothing, and whether it moved the chunk on."""
    if repeated:
        return {**result, "note": REPEATED_NOTE}, False
    if ok and not accepted:
        return {**result, "note": UNCHANGED_NOTE}, False
    return result, True  # accepted something, or a new attempt the tools refused: not a stall


def _call_record(call: ToolCall) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": call.id,
        "name": call.name,
        "arguments": call.arguments_raw,
        "error": call.error,
        "repaired": call.repaired,
    }
    if call.error_code:
        record["error_code"] = call.error_code
    return record


async def execute_tool_call_loop(
    config: ToolCallLoopConfig,
    *,
    model: ChatModel,
    registry: ToolRegistry,
    emit: Emit,
    run_id: str,
    outcome: ChunkOutcome | None = None,
) -> ChunkOutcome:
    """Run the tool-call loop for the chunk described by ``config`` (its scope bounds the tools).

    ``outcome``, when given, is filled in as the chunk runs (the run keeps it to report a cancelled chunk).
    """
    return await ToolCallLoop(config, model=model, registry=registry, emit=emit, run_id=run_id, outcome=outcome).run()
