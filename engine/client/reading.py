"""Reading one response off the connection: an event stream read by read, a whole JSON body, a capped error body,
and the drain after ``[DONE]`` that keeps the connection reusable.

Each read yields the list of events it completed (the SSE loop is the hot path: one decoder call and one assembler
call per network read).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator

import httpx

from engine.client.assembly import StreamAssembler
from engine.client.attempt_failure import AttemptFailures
from engine.client.events import StreamEvent
from engine.client.http_body import json_completion_as_chunk
from engine.client.limits import MIB, StreamLimitError, StreamLimits
from engine.client.sse import SSEDecoder

_ERROR_BODY_LIMIT = 64 * 1024
_JSON_BODY_LIMIT = 32 * 1024 * 1024
_DRAIN_SECONDS = 0.5
_DRAIN_LIMIT = 1024 * 1024

Reads = AsyncGenerator[list[StreamEvent], None]


async def response_reads(
    response: httpx.Response,
    assembler: StreamAssembler,
    limits: StreamLimits,
    failures: AttemptFailures,
    started: float,
) -> Reads:
    """The events of ``response`` read by read; raises ``FailedAttempt`` for an error status or a web page.

    ``started`` (``time.perf_counter()`` when the request was sent) times the first byte.
    """
    if not 200 <= response.status_code < 300:
        raise failures.http_status(response, await _read_capped(response, _ERROR_BODY_LIMIT))
    content_type = response.headers.get("content-type", "").lower()
    if "text/html" in content_type:
        raise failures.web_page(response.status_code, await _read_capped(response, _ERROR_BODY_LIMIT))
    if "json" in content_type and "event-stream" not in content_type:
        return _json_reads(response, assembler, limits, started)
    return _stream_reads(response, assembler, limits, started)


async def _stream_reads(
    response: httpx.Response, assembler: StreamAssembler, limits: StreamLimits, started: float
) -> Reads:
    decoder = SSEDecoder(limits.line_bytes)
    chunks = response.aiter_bytes()
    size = 0
    async for data in chunks:
        if assembler.first_byte_ms is None:
            assembler.first_byte_ms = _elapsed_ms(started)
        size += len(data)
        if size > limits.response_bytes:
            raise _too_big(limits)
        yield assembler.feed_all(decoder.feed(data))
        if assembler.stopped:
            await _drain(chunks)
            return
    yield assembler.feed_all(decoder.close())


async def _json_reads(
    response: httpx.Response, assembler: StreamAssembler, limits: StreamLimits, started: float
) -> Reads:
    """A 2xx JSON body: the server ignored ``stream: true`` (or sent an error object with status 200)."""
    body = await _read_capped(response, min(_JSON_BODY_LIMIT, limits.response_bytes) + 1)
    if len(body) > limits.response_bytes:
        raise _too_big(limits)
    assembler.first_byte_ms = _elapsed_ms(started)
    try:
        payload = json.loads(body)
    except (ValueError, RecursionError):
        decoder = SSEDecoder()  # mislabelled SSE
        yield assembler.feed_all(decoder.feed(body) + decoder.close())
        return
    yield assembler.feed_payload(json_completion_as_chunk(payload))


def _elapsed_ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0


def _too_big(limits: StreamLimits) -> StreamLimitError:
    return StreamLimitError(f"the response grew past {limits.response_bytes // MIB} MB")


async def _drain(chunks: AsyncIterator[bytes]) -> None:
    """Read what follows ``[DONE]`` (usually just the end of the chunked body) so the connection can be reused.

    Bounded in time and size: a server that keeps the stream open after ``[DONE]`` only costs its connection.
    """
    size = 0
    try:
        async with asyncio.timeout(_DRAIN_SECONDS):
            async for data in chunks:
                size += len(data)
                if size > _DRAIN_LIMIT:
                    return
    except (TimeoutError, httpx.HTTPError):
        return


async def _read_capped(response: httpx.Response, limit: int) -> bytes:
    """The body's first ``limit`` bytes (an error page need not be read whole)."""
    chunks: list[bytes] = []
    size = 0
    async for data in response.aiter_bytes():
        chunks.append(data)
        size += len(data)
        if size >= limit:
            break
    return b"".join(chunks)[:limit]
