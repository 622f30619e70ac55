"""How long to wait before retrying a failed request (the policy of openai-python); which failures are retried at
all is ``engine.client.failure.classify``'s decision.

A retried request is re-issued whole, and tools only run after a whole response arrived, so a retry never runs a
tool twice.
"""

from __future__ import annotations

import asyncio
import dataclasses
import email.utils
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from engine.client.failure import ModelFailure


def server_delay(
    headers: Mapping[str, str], body_delay_s: float | None = None, now: Callable[[], float] = time.time
) -> float | None:
    """The delay the server asked for: ``retry-after-ms``, then ``Retry-After`` (seconds or HTTP date), then
    Google's ``RetryInfo.retryDelay`` from the body; None when it asked for nothing usable."""
    millis = _number(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000.0
    after = _retry_after_s(headers.get("retry-after"), now)
    return body_delay_s if after is None else after


def _retry_after_s(value: str | None, now: Callable[[], float]) -> float | None:
    """``Retry-After`` in seconds: a number, or an HTTP date."""
    seconds = _number(value)
    if seconds is not None or not value:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return when.timestamp() - now()


def _number(value: str | None) -> float | None:
    try:
        return float(value) if value else None
    except ValueError:
        return None


@dataclass(frozen=True)
class RetryPolicy:
    """Retry budget and delays. ``time_scale`` multiplies every real sleep (tests use a tiny one)."""

    max_retries: int = 2
    initial_delay_s: float = 0.5
    max_delay_s: float = 8.0
    max_server_delay_s: float = 120.0
    jitter: float = 0.25
    time_scale: float = 1.0
    random: Callable[[], float] = field(default=random.random, repr=False)

    def backoff(self, retries_taken: int) -> float:
        """``min(0.5·2^n, 8)·(1 − 0.25·rand)`` for ``n`` retries already taken."""
        base = min(self.initial_delay_s * 2.0**retries_taken, self.max_delay_s)
        return base * (1.0 - self.jitter * self.random())

    def delay(self, retries_taken: int, requested_s: float | None) -> float | None:
        """Seconds to wait before the next attempt, or None when the server asks for longer than we accept."""
        if requested_s is None:
            return self.backoff(retries_taken)
        if requested_s > self.max_server_delay_s:
            return None
        return requested_s if requested_s > 0 else self.backoff(retries_taken)

    async def sleep(self, delay_s: float) -> None:
        """Wait ``delay_s`` seconds, scaled by ``time_scale``."""
        await asyncio.sleep(max(0.0, delay_s * self.time_scale))


@dataclass
class RetryBudget:
    """The retries of one request: how many were taken, and whether the one free reconnect was used."""

    policy: RetryPolicy
    taken: int = 0
    reconnected: bool = False

    def reconnect_at_once(self, stale_connection: bool) -> bool:
        """Whether to send again at once, outside the budget: a kept-alive connection the server had already closed
        (llama.cpp and uvicorn close idle ones after ~5 s) means nothing reached the server. Once per request."""
        if not stale_connection or self.reconnected:
            return False
        self.reconnected = True
        return True

    def next_delay(self, failure: ModelFailure) -> tuple[float | None, ModelFailure]:
        """Seconds to wait before retrying after ``failure``, or None when it is not retried; and the failure, which
        says why when the server asked to wait longer than the policy accepts."""
        if not failure.retryable or self.taken >= self.policy.max_retries:
            return None, failure
        delay = self.policy.delay(self.taken, failure.retry_after_s)
        if delay is None:
            return None, dataclasses.replace(failure, message=self._asks_too_long(failure))
        return delay, failure

    def take(self) -> int:
        """Count one retry; its number (1 = the first retry)."""
        self.taken += 1
        return self.taken

    def _asks_too_long(self, failure: ModelFailure) -> str:
        wait = failure.retry_after_s or 0.0
        return (
            f"{failure.message.rstrip('.')} (it asks to wait "
            f"{wait:.0f} s, longer than the {self.policy.max_server_delay_s:.0f} s we accept)."
        )
