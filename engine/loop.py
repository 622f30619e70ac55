"""The tool-call loop for one chunk.

Fresh history ``[system, user(chunk)]``; each turn streams one response, then runs its tool calls in
order (only after the whole response arrived, so a failed or retried request has no side effects),
appends one ``tool`` message per call, and goes on. A translate chunk is complete the moment every
paragraph has an accepted submission — no extra turn, unless the batch that completed it carries
error-severity warnings (one more turn to fix them). A polish/proofread chunk is complete the same way, or
when the model answers ``no changes``. Any other answer without a call while paragraphs are missing gets a
reminder naming them (at most two; an echo of the chunk is reminded once), then the chunk ends incomplete
(``NO_SUBMISSION``); so does reaching ``max_turns``. ``engine.nudges`` decides and words these.

What small models send instead of a call (design section 19): calls written as JSON in the content are run as calls
(``client/text_calls.py``); ``[ID: …] text`` lines are submitted as ``add_translation_batch``
(``text_answers.py``, ``text_submission.py``: a ``text_submission`` event, each result sent back as a user message);
a cut-off ``add_translation_batch`` commits the items that closed before the cut (``cut_batch.py``; no other cut call
runs, and every cut call is shown back as what closed of it, never as ``{}``).

Turns that cannot move the chunk forward are bounded: two turns cut off (finish reason ``length``: the request's
output limit, or the model's context filling up; or a call's arguments cut off) end the chunk ``OUTPUT_LIMIT``, and
the run then runs the paragraphs still without a submission as two halves; two turns whose only submissions changed
nothing (every text already saved) or repeated an earlier call end it ``NO_PROGRESS``. The model is always told what
actually happened. Each request resends the turns the model has answered shrunk (``engine.history``); the history
kept here, and traced, stays whole. A model failure (classified by the client, retries already spent) ends the chunk
``failed``; a context overflow is reported as ``CONTEXT_OVERFLOW`` so the run can split the chunk.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from typing import Any

from engine.call_records import call_key, response_fields, shown_arguments
from engine.chat_model import ChatModel
from engine.chunk_outcome import FILE_FAILURES, MAX_FILE_FAILURES, ChunkOutcome
from engine.client.errors import ModelError
from engine.client.failure import ModelFailure
from engine.client.response import AssembledResponse, ToolCall
from engine.client.text_calls import lift_text_calls
from engine.cut_batch import TRUNCATED, closed_items_call, cut_batch, cut_result, shown_closed
from engine.events import (
    BatchCommitted,
    EngineEvent,
    ErrorEvent,
    ModelRequest,
    ModelResponse,
    Reminder,
    TextSubmission,
    ToolCalled,
    ToolResult,
)
from engine.history import bounded
from engine.loop_config import ToolCallLoopConfig
from engine.loop_texts import (
    OUTPUT_LIMIT_TEXT,
    REPAIRED_WARNING,
    STALLED_WHY,
    TOO_MANY_CALLS_TEXT,
    judged_submission,
    oversized_call,
    tool_message,
    unusable_call,
)
from engine.model_stream import streamed
from engine.nudges import COMPLETE, ChunkNudges
from engine.summaries import EndCode
from engine.tasks import TASK_RULES
from engine.text_answers import TextItem, text_items
from engine.text_submission import answer_message, cut_answer_text, text_batches
from engine.tools.raw_arguments import MAX_ARGUMENT_CHARS
from engine.tools.registry import ToolRegistry
from engine.tools.results import Committed, ToolReply

MAX_CALLS_PER_RESPONSE = 64  # a model batching sensibly makes a few; thousands are a runaway model or a hostile server
MAX_STALLED_TURNS = 2  # of turns cut off by the token limit; of turns that only repeated or resent saved texts

Emit = Callable[[EngineEvent], None]


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
        self._refused: dict[str, dict[str, Any]] = {}  # call id -> the result of a text answer refused as a whole
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
        answered = self._traced  # what the previous request sent: the model has answered it
        self._event(
            ModelRequest,
            turn=turn,
            message_count=len(history),
            tool_names=self.tool_names,
            messages=tuple(history[self._traced :]),
            first_message=self._traced,
            bounded=True,
        )
        self._traced = len(history)  # the history only grows: the next request carries what comes after
        try:
            response = await streamed(
                self.model, bounded(history, answered, self.registry.submits), self.tools, turn, self._event
            )
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
        response, dropped = self._bound_calls(response)
        response = shown_closed(response)  # a cut call is shown back as what closed of it, never as {}
        if response.finish_reason == "length":
            return await self._cut_turn(response)
        self.history.append(response.assistant_message())
        if response.tool_calls:
            return await self._tool_turn(response, dropped)
        if not self.nudges.echoed(response.content) and (items := text_items(response.content)) is not None:
            return await self._text_answer(items)
        return self._text_turn()

    async def _cut_turn(self, response: AssembledResponse) -> bool:
        """A response cut off by the token limit: no call in it runs, but a cut batch submits the items that closed
        before the cut (``engine/cut_batch.py``); two cut turns in a chunk end it."""
        if response.usage is not None:
            self.outcome.cut_completion_tokens.append(response.usage.completion_tokens)
        if response.tool_calls:
            self.history.append(response.assistant_message())
            complete, progress = await self._run_tools(
                response.tool_calls, self.history, self.outcome.turns, self.outcome
            )
            return self._went_on(complete, progress, cut=True)
        items = text_items(response.content)
        if items is not None and len(items) > 1:
            return await self._cut_text_answer(response, items)
        self._event(
            ErrorEvent,
            message="the response was cut off (finish reason length) before it made any tool call",
            code="OUTPUT_LIMIT",
        )
        self.history.append({"role": "assistant", "content": response.content or ""})
        self.history.append({"role": "user", "content": OUTPUT_LIMIT_TEXT})
        return self._cut_again()

    async def _tool_turn(self, response: AssembledResponse, dropped: int) -> bool:
        """Run the response's calls; whether the conversation goes on."""
        truncated = self.outcome.tool_errors[TRUNCATED]
        complete, progress = await self._run_tools(response.tool_calls, self.history, self.outcome.turns, self.outcome)
        if dropped:
            made = len(response.tool_calls) + dropped
            text = TOO_MANY_CALLS_TEXT.format(made=made, limit=MAX_CALLS_PER_RESPONSE)
            self.history.append({"role": "user", "content": text})
        return self._went_on(complete, progress, cut=self.outcome.tool_errors[TRUNCATED] > truncated)

    async def _cut_text_answer(self, response: AssembledResponse, items: list[TextItem]) -> bool:
        """A text answer cut off by the token limit: the items a later ID line closed are submitted; the last one,
        which may be cut, never is (the model is told to send it again)."""
        self.history.append({"role": "assistant", "content": response.content})
        went_on = await self._text_answer(items[:-1], cut=True)
        self.history.append({"role": "user", "content": cut_answer_text(items[-1].paragraph_id)})
        return went_on

    async def _text_answer(self, items: list[TextItem], cut: bool = False) -> bool:
        """``[ID: …]`` lines instead of a call: submitted as ``add_translation_batch`` calls, each answered by a user
        message (``engine/text_submission.py``)."""
        turn = self.outcome.turns
        self._event(TextSubmission, turn=turn, paragraph_ids=tuple(item.paragraph_id for item in items))
        batches = text_batches(items, self.config.chunk, self.scope, turn)
        if batches.refusal is not None:
            self._refused[batches.calls[0].id] = batches.refusal
        answers: list[dict[str, Any]] = []
        complete, progress = await self._run_tools(batches.calls, answers, turn, self.outcome)
        self.history.extend(answer_message(message) for message in answers)
        return self._went_on(complete, progress, cut)

    def _went_on(self, complete: bool, progress: bool | None, cut: bool = False) -> bool:
        """After a turn's calls: whether the conversation goes on (the chunk is complete, stalled or its file
        failed). ``cut``: the turn was cut off, or a call's arguments were."""
        if self.outcome.end_code in FILE_FAILURES:
            return False
        if complete:
            return self._complete()
        if cut:
            return self._cut_again()
        if progress is False:
            self._idle_turns += 1
            return self._idle_turns < MAX_STALLED_TURNS or self._end("NO_PROGRESS")
        return True

    def _cut_again(self) -> bool:
        """One more turn cut off; the second in a chunk ends it ``OUTPUT_LIMIT`` (the run then runs the paragraphs
        still without a submission as two halves)."""
        self._cut_turns += 1
        return self._cut_turns < MAX_STALLED_TURNS or self._end("OUTPUT_LIMIT")

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
        if outcome.end_code == "OUTPUT_LIMIT":
            outcome.rerun = tuple(self._missing())

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

    def _stop_on_file(self, outcome: ChunkOutcome, last: str | None, result: dict[str, Any]) -> None:
        """The chapter file failed ``MAX_FILE_FAILURES`` calls in a row: a deleted file, a full disk, a read-only
        folder will not heal while the model retries, so end the chunk (and, through the run, the rest)."""
        code: EndCode = "CHAPTER_UNAVAILABLE" if last == "CHAPTER_UNAVAILABLE" else "COMMIT_FAILED"
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

    def _record_response(self, response: AssembledResponse, turn: int, outcome: ChunkOutcome) -> None:
        usage = None if response.usage is None else response.usage.to_json()
        if usage is not None:
            outcome.usage.update(usage)
        self._event(ModelResponse, turn=turn, usage=usage, **response_fields(response))

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
        self._event(ToolCalled, turn=turn, call_id=call.id, name=call.name, arguments=shown_arguments(call))
        result, committed, repeated = await self._execute(call)
        ok = bool(result.get("success"))
        accepted = committed.accepted if committed is not None else ()
        result, progress = self._judged(call, result, committed, repeated)
        code = self._count_result(ok, result, outcome)
        self._event(ToolResult, turn=turn, call_id=call.id, name=call.name, success=ok, error_code=code, result=result)
        if committed is not None and accepted:  # only when something reached the disk
            self._committed(committed)
        if committed is not None:  # a successful submission: its errors may earn a fix turn
            self._submission = result
        history.append(tool_message(call, result))
        if self._file_failures >= MAX_FILE_FAILURES:
            self._stop_on_file(outcome, code, result)
        return progress

    def _judged(
        self, call: ToolCall, result: dict[str, Any], committed: Committed | None, repeated: bool
    ) -> tuple[dict[str, Any], bool | None]:
        """A submission's result (with a note when it changed nothing) and whether it moved the chunk on; any other
        call's result as it is, and None. A cut batch that committed its closed items is a submission too."""
        if not (call.executable or committed is not None) or not self.registry.submits(call.name):
            return result, None
        accepted = committed.accepted if committed is not None else ()
        return judged_submission(result, bool(result.get("success")), accepted, repeated)

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
            return await self._unusable(call)
        if len(call.arguments_raw) > MAX_ARGUMENT_CHARS:  # the tools' own limit, whatever the client parsed
            return oversized_call(call), None, False
        key = call_key(call)
        repeated = key in self._calls_made
        self._calls_made.add(key)
        reply = await self._call(call)
        result = reply.result
        if call.repaired:
            result = {**result, "warning": REPAIRED_WARNING}
        return result, reply.committed, repeated

    async def _unusable(self, call: ToolCall) -> tuple[dict[str, Any], Committed | None, bool]:
        """A call that cannot run as made: a cut batch submits the items that closed before the cut, as a batch of
        their own; any other is answered with why it did not run."""
        if call.error_code != TRUNCATED or not self.registry.submits(call.name):
            return unusable_call(call), None, False
        cut = cut_batch(call)
        if not cut.items:
            return cut_result(cut, None), None, False
        reply = await self._call(closed_items_call(call, cut))
        return cut_result(cut, reply.result), reply.committed, False

    async def _call(self, call: ToolCall) -> ToolReply:
        """The tool's reply. A call that writes is finished even when the run is cancelled meanwhile: a commit
        that started is completed and reported (its tool result and ``batch_committed``) before the cancellation
        goes on (``_cancel_pending``), so the report always matches the file."""
        if (refused := self._refused.pop(call.id, None)) is not None:
            return ToolReply(refused)
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
