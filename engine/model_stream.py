"""A model's stream as the loop reports it: text and reasoning deltas, tool-argument progress every
``TOOL_PROGRESS_STEP`` characters, retries, and the whole response at the end."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.chat_model import ChatModel
from engine.client.assembly import AssembledResponse
from engine.client.events import Completed, ReasoningDelta, RetryScheduled, TextDelta, ToolCallProgress
from engine.events import ModelDelta, Retry

TOOL_PROGRESS_STEP = 256  # argument fragments arrive a few characters at a time; progress every 256 is plenty

Report = Callable[..., None]  # the loop's event reporter: (event class, **fields)


async def streamed(
    model: ChatModel, messages: list[dict[str, Any]], tools: list[dict[str, Any]], turn: int, report: Report
) -> AssembledResponse:
    """Stream one request's response, reporting its progress; the whole response."""
    response: AssembledResponse | None = None
    reported: dict[int, int] = {}  # tool call index -> characters last reported
    async for item in model.stream(messages, tools):
        if isinstance(item, Completed):
            response = item.response
        else:
            _progress(item, turn, reported, report)
    if response is None:  # a model implementation that forgot its final event
        raise RuntimeError("the model stream ended without a final response")
    return response


def _progress(item: object, turn: int, reported: dict[int, int], report: Report) -> None:
    if isinstance(item, TextDelta):
        report(ModelDelta, turn=turn, channel="text", text=item.text)
    elif isinstance(item, ReasoningDelta):
        report(ModelDelta, turn=turn, channel="reasoning", text=item.text)
    elif isinstance(item, ToolCallProgress):
        last = reported.get(item.index)
        if last is None or item.chars - last >= TOOL_PROGRESS_STEP:
            reported[item.index] = item.chars
            report(ModelDelta, turn=turn, channel="tool_arguments", tool_name=item.name, chars=item.chars)
    elif isinstance(item, RetryScheduled):
        reported.clear()
        report(Retry, attempt=item.attempt, reason=item.reason, delay=item.delay_s)
