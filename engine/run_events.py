"""A run's events as an async iterator that still delivers ``run_finished`` after ``cancel()``."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

from engine.events import EngineEvent

_END = object()


class RunEvents:
    """The events of one or more runs, as an async iterator, with a way to stop them that still delivers the end.

    ``cancel()`` asks the runs to stop (within a second; committed batches stay, nothing is half-written) and
    iteration goes on until each run has emitted its ``run_finished`` (status ``cancelled``), so every consumer —
    the ``--json`` stream, the trace, the TUI — sees how the run ended. Closing the iterator (or cancelling the
    task that iterates it) stops the runs at once; the trace still gets ``run_finished``.
    """

    def __init__(
        self,
        produce: Callable[[Callable[[Any], None]], Awaitable[None]],
        name: str,
        on_cancel: Callable[[], None] | None = None,
    ) -> None:
        self._produce = produce
        self._name = name
        self._on_cancel = on_cancel
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._iterator = self._iterate()
        self.cancelled = False

    def __aiter__(self) -> RunEvents:
        return self

    async def __anext__(self) -> EngineEvent:
        return await self._iterator.__anext__()

    async def aclose(self) -> None:
        """Stop the runs now and release the iterator."""
        await self._iterator.aclose()

    def cancel(self) -> None:
        """Ask the runs to stop; keep iterating to receive their ``run_finished`` events."""
        if self.cancelled:
            return
        self.cancelled = True
        if self._on_cancel is not None:
            self._on_cancel()
        elif self._task is not None and not self._task.done():
            self._task.cancel()

    async def _body(self) -> None:
        try:
            await self._produce(self._queue.put_nowait)
        except asyncio.CancelledError:
            if not self.cancelled:  # cancelled from outside, not by cancel(): let it propagate
                raise
        finally:
            self._queue.put_nowait(_END)

    async def _iterate(self) -> AsyncGenerator[EngineEvent, None]:
        self._task = asyncio.create_task(self._body(), name=self._name)
        if self.cancelled:
            self._task.cancel()
        task = self._task
        try:
            while (item := await self._queue.get()) is not _END:
                yield item
            await task
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
