"""``ModelClient``: streaming chat completions with tools against any OpenAI-compatible server.

One shared ``httpx.AsyncClient`` (keep-alive) per client. The API key is sent only in the ``Authorization`` header
of each request; it is never stored on the httpx client, shown in ``repr``, or put into any message.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import aclosing
from typing import Any

import httpx

from engine.client.assembly import StreamAssembler
from engine.client.attempt_failure import INTERRUPTIONS, AttemptFailures, FailedAttempt, credentials_in
from engine.client.errors import ModelError
from engine.client.events import Completed, RetryScheduled, StreamEvent
from engine.client.failure import ModelFailure
from engine.client.limits import StreamLimits
from engine.client.reading import response_reads
from engine.client.response import AssembledResponse, Usage
from engine.client.retry import RetryBudget, RetryPolicy
from engine.settings import DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_TOKENS, DEFAULT_READ_TIMEOUT

_DEFAULT_RETRIES = 2


def new_http_client(
    *,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    read_timeout: float = DEFAULT_READ_TIMEOUT,
    tls: bool = True,
    max_connections: int = 64,
    keep_alive: int = 16,
) -> httpx.AsyncClient:
    """The connection pool model clients use; several clients (concurrent chapters) may share one.

    ``read_timeout`` is the inter-chunk timeout, not a total one: reasoning models and queued requests
    can stay silent for a long time. With ``tls=False`` (plain-http endpoints such as a local server)
    the CA bundle is not loaded, which saves ~0.2 s of start-up per pool. ``keep_alive``: idle connections kept
    open for the next request (``run_chapters`` keeps one per chapter running at once).
    """
    return httpx.AsyncClient(
        timeout=httpx.Timeout(connect=connect_timeout, read=read_timeout, write=60.0, pool=read_timeout),
        limits=httpx.Limits(
            max_connections=max_connections, max_keepalive_connections=keep_alive, keepalive_expiry=30.0
        ),
        verify=tls,
    )


class ModelClient:
    """A streaming chat-completions client. Use ``async with`` or call ``aclose()`` when done."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        temperature: float | None = None,
        extra_headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        max_retries: int = _DEFAULT_RETRIES,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        read_timeout: float = DEFAULT_READ_TIMEOUT,
        max_tokens: int | None = DEFAULT_MAX_TOKENS,
        max_tokens_field: str = "max_tokens",
        retry_policy: RetryPolicy | None = None,
        http_client: httpx.AsyncClient | None = None,
        limits: StreamLimits | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.max_tokens_field = max_tokens_field
        self.read_timeout = read_timeout
        self.limits = limits or StreamLimits()
        # Keep a query string where it belongs (Azure: ".../deployments/x?api-version=2024-10-21").
        base = httpx.URL(self.base_url)
        self._url = base.copy_with(path=base.path.rstrip("/") + "/chat/completions")
        self._api_key = api_key or None
        extra_headers = extra_headers or {}
        # Redacted from every message, in case a provider or proxy echoes a credential back in an error.
        secrets = credentials_in(api_key, extra_headers, base)
        self._failures = AttemptFailures(self.base_url, secrets, read_timeout, self.limits.response_seconds)
        self._extra_body = dict(extra_body or {})
        self._headers = _request_headers(self._api_key, extra_headers)
        self._policy = _retry_policy(retry_policy, max_retries)
        self._owns_http = http_client is None
        self._http = http_client or new_http_client(
            connect_timeout=connect_timeout, read_timeout=read_timeout, tls=self._url.scheme == "https"
        )

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"
        return f"ModelClient(base_url={self._failures.shown_url!r}, model={self.model!r}, api_key={key})"

    async def __aenter__(self) -> ModelClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the shared HTTP connection pool (unless it was passed in)."""
        if self._owns_http:
            await self._http.aclose()

    def request_body(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        """The JSON body posted for ``messages`` and ``tools``; ``extra_body`` keys set to None are removed."""
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            body["tools"] = tools
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:  # every request is bounded: a degenerating model cannot run forever
            body[self.max_tokens_field] = self.max_tokens
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
        return _with_extra(body, self._extra_body)

    async def stream(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> AsyncIterator[StreamEvent]:
        """Post one chat completion and yield its deltas, any retries, and finally ``Completed``.

        One retry budget (``max_retries``) covers the whole request: a failure before any output and a retryable
        error inside the stream (overload, a 502 "upstream closed", a broken or truncated stream) are retried alike,
        with backoff; a ``RetryScheduled`` tells the consumer to drop what it got so far. Raises ``ModelError`` when
        the request failed before any output and retrying did not help or was not allowed. A stream whose last
        attempt ended in error is returned as ``Completed`` with ``finish_reason == "error"`` and its ``failure``.
        Tokens of failed attempts are added to the final response's usage: they were billed.
        """
        payload = json.dumps(self.request_body(messages, tools), ensure_ascii=False).encode("utf-8")
        budget = RetryBudget(self._policy)
        billed: Usage | None = None
        while True:
            assembler = StreamAssembler()
            started = time.perf_counter()
            ending: ModelError | AssembledResponse
            try:
                async for event in self._attempt(payload, assembler, started):
                    yield event
            except FailedAttempt as failed:
                if budget.reconnect_at_once(failed.stale_connection):
                    continue
                ending, failure = failed.error, failed.error.failure
            else:
                response = _finished(assembler, started, budget.taken + 1, billed)
                billed = response.usage
                if response.failure is None:
                    yield Completed(response)
                    return
                ending, failure = response, self._cleaned(response.failure)
            delay, failure = budget.next_delay(failure)
            if delay is None:
                yield _last_word(ending, failure)
                return
            yield RetryScheduled(budget.take(), failure.message, delay)
            await self._policy.sleep(delay)

    async def _attempt(self, payload: bytes, assembler: StreamAssembler, started: float) -> AsyncIterator[StreamEvent]:
        """Send the request once and yield what it streams; raises ``FailedAttempt`` when it failed before any
        output. A response cut short after output began ends in the assembler's failure instead."""
        try:
            async with (
                asyncio.timeout(self.limits.response_seconds),
                self._http.stream("POST", self._url, content=payload, headers=self._headers) as response,
            ):
                reads = await response_reads(response, assembler, self.limits, self._failures, started)
                async with aclosing(reads):  # a consumer that stops early closes the reading at once
                    async for events in reads:
                        for event in events:
                            yield event
        except INTERRUPTIONS as exc:
            cut = self._failures.interruption(exc)
            if not assembler.output_started:
                raise cut.before_output from None
            assembler.fail(cut.message, cut.kind)
            return
        self._check_output(assembler)

    def _check_output(self, assembler: StreamAssembler) -> None:
        """Raise ``FailedAttempt`` when the stream brought no output: an error first, or nothing at all."""
        if assembler.early_error is not None:
            raise self._failures.error_instead_of_stream(assembler.early_error)
        if not assembler.output_started and assembler.finish_reason_raw is None:
            raise self._failures.nothing_sent()

    def _cleaned(self, failure: ModelFailure) -> ModelFailure:
        return dataclasses.replace(failure, message=self._failures.clean(failure.message))


def _with_extra(body: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``body`` with the profile's ``extra_body`` keys set, and those set to None removed."""
    for key, value in extra.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    return body


def _request_headers(api_key: str | None, extra_headers: Mapping[str, str]) -> dict[str, str]:
    headers = {
        "Content-Type": "application/json",
        "Accept": "text/event-stream",
        "User-Agent": "proofdesk",
        **dict(extra_headers),
    }
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


def _retry_policy(policy: RetryPolicy | None, max_retries: int) -> RetryPolicy:
    """An explicit ``policy`` keeps its own budget unless ``max_retries`` was changed from the default too."""
    if policy is None:
        return RetryPolicy(max_retries=max_retries)
    return policy if max_retries == _DEFAULT_RETRIES else dataclasses.replace(policy, max_retries=max_retries)


def _finished(assembler: StreamAssembler, started: float, attempts: int, billed: Usage | None) -> AssembledResponse:
    """The attempt's response, its usage added to what the failed attempts before it were billed."""
    response = assembler.finish(
        (time.perf_counter() - started) * 1000.0, attempts=attempts, first_byte_ms=assembler.first_byte_ms
    )
    if response.usage is not None:
        billed = response.usage if billed is None else billed + response.usage
    return dataclasses.replace(response, usage=billed)


def _last_word(ending: ModelError | AssembledResponse, failure: ModelFailure) -> Completed:
    """The end of a request that is not retried: its last response, now carrying ``failure``; an attempt that failed
    before any output raises its error instead."""
    if isinstance(ending, ModelError):
        raise type(ending).of(failure) from None
    return Completed(dataclasses.replace(ending, failure=failure))
