"""How much one response may take: its longest line, its biggest event, its total size and its total time.

A hostile or broken server must not exhaust memory or hang a run: a gzip body that inflates to gigabytes of one
SSE line, a line that never ends, a stream that never ends, keep-alive comments forever. Past a bound the request
fails with ``response_limit`` (not retried: the same server would do it again) and the run goes on with its next
chunk. Real responses stay far below: a streamed chunk is a few hundred bytes, a whole answer rarely a megabyte.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.settings import DEFAULT_RESPONSE_MB, DEFAULT_RESPONSE_SECONDS

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class StreamLimits:
    """The bounds of one response (profile keys ``response_mb`` and ``response_seconds``)."""

    response_bytes: int = DEFAULT_RESPONSE_MB * MIB
    response_seconds: float = DEFAULT_RESPONSE_SECONDS
    line_bytes: int = 8 * MIB  # one SSE line; an event is capped at the same size

    @classmethod
    def of(
        cls, response_mb: int = DEFAULT_RESPONSE_MB, response_seconds: float = DEFAULT_RESPONSE_SECONDS
    ) -> StreamLimits:
        """The limits for a profile's ``response_mb`` and ``response_seconds``."""
        size = response_mb * MIB
        return cls(size, response_seconds, min(8 * MIB, size))


class StreamLimitError(Exception):
    """A response passed one of its bounds; the message says which, in words."""
