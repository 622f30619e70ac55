"""The embedded ``demo`` model: offline, no key, streaming like a real provider through the same interface.

It yields the same stream events as :class:`engine.client.ModelClient` (text deltas, then one
``Completed`` with an assembled response), so the real loop and the real tools run unchanged.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

from engine.client.events import Completed, ReasoningDelta, StreamEvent, TextDelta, ToolCallProgress
from engine.client.finish import FinishReason
from engine.client.response import AssembledResponse, ToolCall, Usage
from engine.demo_plan import plan_turn


class DemoModel:
    """Offline scripted model; ``delay`` seconds between streamed words make it look alive in the TUI."""

    name = "demo"

    def __init__(self, *, task: str, target_language: str = "en", delay: float = 0.0) -> None:
        self.task = task
        self.target_language = target_language
        self.delay = delay
        self._calls = 0

    async def stream(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> AsyncIterator[StreamEvent]:
        """Stream the next turn of the demo plan for this conversation."""
        started = time.perf_counter()
        turn = plan_turn(messages, task=self.task, target_language=self.target_language)
        if turn.reasoning:
            yield ReasoningDelta(turn.reasoning)
        words = turn.text.split(" ")
        for i, word in enumerate(words):
            await self._pause()
            yield TextDelta(word if i == 0 else " " + word)
        calls = []
        for position, (name, args) in enumerate(turn.tool_calls):
            self._calls += 1
            raw = json.dumps(args, ensure_ascii=False)
            await self._pause()
            yield ToolCallProgress(position, name, len(raw))
            calls.append(ToolCall(id=f"demo{self._calls:05d}", name=name, arguments_raw=raw, arguments=args))
        yield Completed(_response(messages, turn.text, turn.reasoning, tuple(calls), started))

    async def _pause(self) -> None:
        """The pause between streamed pieces that makes the demo look alive (none in tests)."""
        if self.delay:
            await asyncio.sleep(self.delay)

    async def aclose(self) -> None:
        """Nothing to release (same interface as the HTTP client)."""


def _response(
    messages: list[dict[str, Any]], text: str, reasoning: str, calls: tuple[ToolCall, ...], started: float
) -> AssembledResponse:
    """The turn as one assembled response, with a rough token count (4 characters a token)."""
    prompt = sum(len(str(m.get("content") or "")) for m in messages) // 4
    completion = (len(text) + sum(len(c.arguments_raw) for c in calls)) // 4
    finish: FinishReason = "tool_calls" if calls else "stop"
    return AssembledResponse(
        content=text,
        reasoning=reasoning,
        tool_calls=calls,
        finish_reason=finish,
        finish_reason_raw=finish,
        usage=Usage(prompt, completion, prompt + completion),
        failure=None,
        latency_ms=(time.perf_counter() - started) * 1000,
    )
