"""When to retry a failed request and how long to wait (wire.md §4, the policy of openai-python).

Retries happen only before any output: a stream that broke after output started is returned as an error result
and the caller re-issues the whole request (so tools never run twice).
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

RETRYABLE_STATUSES = frozenset({408, 409, 429})
NEVER_RETRY_CODES = frozenset({"insufficient_quota", "billing_hard_limit_reached", "invalid_api_key",
                               "account_deactivated", "insufficient_balance"})


def status_is_retryable(status: int, headers: Mapping[str, str], code: str | None = None,
                        error_type: str | None = None) -> bool:
    """408, 409, 429 and ≥ 500 are worth retrying, unless the server says otherwise or the quota is gone.

    ``x-should-retry: true|false`` (OpenAI) overrides the status; ``insufficient_quota`` comes with a 429 but can
    never succeed, so it is not retried.
    """
    if code in NEVER_RETRY_CODES or error_type in NEVER_RETRY_CODES:
        return False
    hint = headers.get("x-should-retry", "").strip().lower()
    if hint == "true":
        return True
    if hint == "false":
        return False
    return status in RETRYABLE_STATUSES or status >= 500


def server_delay(headers: Mapping[str, str], body_delay_s: float | None = None,
                 now: Callable[[], float] = time.time) -> float | None:
    """The delay the server asked for: ``retry-after-ms``, then ``Retry-After`` (seconds or HTTP date), then
    Google's ``RetryInfo.retryDelay`` from the body; None when it asked for nothing usable."""
    value = headers.get("retry-after-ms")
    if value:
        try:
            return float(value) / 1000.0
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value:
        try:
            return float(value)
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(value)
            except (TypeError, ValueError):
                when = None
            if when is not None:
                return when.timestamp() - now()
    return body_delay_s


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
        if requested_s is not None and requested_s > self.max_server_delay_s:
            return None
        if requested_s is not None and requested_s > 0:
            return requested_s
        return self.backoff(retries_taken)

    async def sleep(self, delay_s: float) -> None:
        """Wait ``delay_s`` seconds, scaled by ``time_scale``."""
        await asyncio.sleep(max(0.0, delay_s * self.time_scale))
