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
from http import HTTPStatus
from typing import Any

import httpx

from engine.client.assembly import StreamAssembler
from engine.client.errors import (
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelStreamError,
    ModelTimeoutError,
    public_url,
    redact,
    sentence,
)
from engine.client.events import Completed, RetryScheduled, StreamEvent
from engine.client.failure import ModelFailure, classify
from engine.client.http_body import error_text, html_title, json_completion_as_chunk
from engine.client.limits import MIB, StreamLimitError, StreamLimits
from engine.client.response import AssembledResponse, Usage
from engine.client.retry import RetryPolicy, server_delay
from engine.client.sse import SSEDecoder
from engine.client.wire import ProviderError
from engine.settings import DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_TOKENS, DEFAULT_READ_TIMEOUT

_ERROR_BODY_LIMIT = 64 * 1024
_JSON_BODY_LIMIT = 32 * 1024 * 1024
_DRAIN_SECONDS = 0.5
_DRAIN_LIMIT = 1024 * 1024


class _Failed(Exception):
    """An attempt failed before any output; the error's ``retry_after_s`` is what the server asked us to wait."""

    def __init__(self, error: ModelError, *, stale_connection: bool = False) -> None:
        super().__init__(error.message)
        self.error = error
        self.stale_connection = stale_connection


def new_http_client(
    *,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    read_timeout: float = DEFAULT_READ_TIMEOUT,
    tls: bool = True,
    max_connections: int = 64,
) -> httpx.AsyncClient:
    """The connection pool model clients use; several clients (concurrent chapters) may share one.

    ``read_timeout`` is the inter-chunk timeout, not a total one: reasoning models and queued requests
    can stay silent for a long time. With ``tls=False`` (plain-http endpoints such as a local server)
    the CA bundle is not loaded, which saves ~0.2 s of start-up per pool.
    """
    return httpx.AsyncClient(
        timeout=httpx.Timeout(connect=connect_timeout, read=read_timeout, write=60.0, pool=read_timeout),
        limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=16, keepalive_expiry=30.0),
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
        max_retries: int = 2,
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
        self._shown_url = public_url(self.base_url)
        self._api_key = api_key or None
        # Redacted from every message: the key, and what else may be a credential (header values, the URL's
        # password and query values), in case a provider or proxy echoes them back in an error.
        self._secrets = [
            v
            for v in (
                api_key,
                *(extra_headers or {}).values(),
                base.password,
                *(value for _, value in base.params.multi_items()),
            )
            if v and len(v) >= 8
        ]
        self._extra_body = dict(extra_body or {})
        self._headers = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
            "User-Agent": "proofdesk",
            **dict(extra_headers or {}),
        }
        if self._api_key:
            self._headers["Authorization"] = f"Bearer {self._api_key}"
        # An explicit retry_policy keeps its own budget unless max_retries was changed from the default too.
        policy = retry_policy or RetryPolicy(max_retries=max_retries)
        self._policy = policy if max_retries == 2 else dataclasses.replace(policy, max_retries=max_retries)
        self._owns_http = http_client is None
        self._http = http_client or new_http_client(
            connect_timeout=connect_timeout, read_timeout=read_timeout, tls=self._url.scheme == "https"
        )

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"
        return f"ModelClient(base_url={self._shown_url!r}, model={self.model!r}, api_key={key})"

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
        for key, value in self._extra_body.items():
            if value is None:
                body.pop(key, None)
            else:
                body[key] = value
        return body

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
        retries = 0
        reconnected = False
        billed: Usage | None = None
        while True:
            assembler = StreamAssembler()
            started = time.perf_counter()
            response: AssembledResponse | None = None
            try:
                async for event in self._attempt(payload, assembler, started):
                    yield event
            except _Failed as failed:
                error = failed.error
                failure = error.failure
                if failed.stale_connection and not reconnected:
                    # A kept-alive connection the server had already closed (llama.cpp, uvicorn close idle ones
                    # after ~5 s): nothing reached the server, so send again at once, outside the retry budget.
                    reconnected = True
                    continue
            else:
                response = assembler.finish(
                    (time.perf_counter() - started) * 1000.0,
                    attempts=retries + 1,
                    first_byte_ms=assembler.first_byte_ms,
                )
                if response.usage is not None:
                    billed = response.usage if billed is None else billed + response.usage
                if response.failure is None:
                    yield Completed(dataclasses.replace(response, usage=billed))
                    return
                failure = dataclasses.replace(response.failure, message=self._clean(response.failure.message))
                response = dataclasses.replace(response, failure=failure, usage=billed)
            delay = None
            if failure.retryable and retries < self._policy.max_retries:
                delay = self._policy.delay(retries, failure.retry_after_s)
                if delay is None:
                    wait = failure.retry_after_s or 0.0
                    failure = dataclasses.replace(
                        failure,
                        message=f"{failure.message.rstrip('.')} (it asks to wait "
                        f"{wait:.0f} s, longer than the {self._policy.max_server_delay_s:.0f} s we accept).",
                    )
                    if response is not None:
                        response = dataclasses.replace(response, failure=failure)
            if delay is None:
                if response is None:
                    raise type(error).of(failure) from None
                yield Completed(response)
                return
            retries += 1
            yield RetryScheduled(retries, failure.message, delay)
            await self._policy.sleep(delay)

    async def _attempt(self, payload: bytes, assembler: StreamAssembler, started: float) -> AsyncIterator[StreamEvent]:
        limits = self.limits
        try:
            async with (
                asyncio.timeout(limits.response_seconds),
                self._http.stream("POST", self._url, content=payload, headers=self._headers) as response,
            ):
                if not 200 <= response.status_code < 300:
                    body = await _read_capped(response, _ERROR_BODY_LIMIT)
                    raise self._http_failure(response, body)
                content_type = response.headers.get("content-type", "").lower()
                if "text/html" in content_type:
                    page = await _read_capped(response, _ERROR_BODY_LIMIT)
                    raise self._web_page_failure(response.status_code, page)
                if "json" in content_type and "event-stream" not in content_type:
                    body = await _read_capped(response, min(_JSON_BODY_LIMIT, limits.response_bytes) + 1)
                    if len(body) > limits.response_bytes:
                        raise StreamLimitError(f"the response grew past {limits.response_bytes // MIB} MB")
                    assembler.first_byte_ms = (time.perf_counter() - started) * 1000.0
                    async for event in self._whole_body(body, assembler):
                        yield event
                else:
                    decoder = SSEDecoder(limits.line_bytes)
                    chunks = response.aiter_bytes()
                    size = 0
                    async for data in chunks:
                        if assembler.first_byte_ms is None:
                            assembler.first_byte_ms = (time.perf_counter() - started) * 1000.0
                        size += len(data)
                        if size > limits.response_bytes:
                            raise StreamLimitError(f"the response grew past {limits.response_bytes // MIB} MB")
                        for sse in decoder.feed(data):
                            for event in assembler.feed(sse):
                                yield event
                        if assembler.stopped:
                            await _drain(chunks)
                            break
                    else:
                        for sse in decoder.close():
                            for event in assembler.feed(sse):
                                yield event
        except StreamLimitError as exc:
            message = f"{exc} from {self._shown_url}; proofdesk stopped reading it (profile key response_mb)"
            if assembler.output_started:
                assembler.fail(message, "response_limit")
                return
            raise _Failed(ModelStreamError.of(ModelFailure(message, "response_limit", None, False))) from None
        except TimeoutError:
            message = (
                f"the response from {self._shown_url} went on for more than {limits.response_seconds:g} s; "
                "proofdesk stopped reading it (profile key response_seconds)"
            )
            if assembler.output_started:
                assembler.fail(message, "response_limit")
                return
            raise _Failed(ModelTimeoutError.of(ModelFailure(message, "response_limit", None, False))) from None
        except httpx.TimeoutException as exc:
            if assembler.output_started:
                assembler.fail(f"the server sent nothing for {self.read_timeout:g} s during the response", "timeout")
                return
            raise self._timeout_failure(exc) from None
        except httpx.TransportError as exc:
            if assembler.output_started:
                assembler.fail(f"the connection broke during the response: {self._detail(exc)}")
                return
            raise self._transport_failure(exc) from None
        if assembler.early_error is not None:
            raise self._stream_failure(assembler.early_error)
        if not assembler.output_started and assembler.finish_reason_raw is None:
            raise _Failed(
                ModelStreamError(
                    f"The model server at {self._shown_url} ended the stream before sending anything.",
                    retryable=True,
                    type="truncated_stream",
                )
            )

    async def _whole_body(self, body: bytes, assembler: StreamAssembler) -> AsyncIterator[StreamEvent]:
        """A 2xx JSON body: the server ignored ``stream: true`` (or sent an error object with status 200)."""
        try:
            payload = json.loads(body)
        except (ValueError, RecursionError):
            decoder = SSEDecoder()  # mislabelled SSE
            for sse in decoder.feed(body) + decoder.close():
                for event in assembler.feed(sse):
                    yield event
            return
        for event in assembler.feed_payload(json_completion_as_chunk(payload)):
            yield event

    # -- failures --------------------------------------------------------------------------------------------------

    def _http_failure(self, response: httpx.Response, body: bytes) -> _Failed:
        status = response.status_code
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = ""
        provider = error_text(body, response.headers.get("content-type", ""))
        said = f": {self._clean(provider.message)}" if provider and provider.message else ""
        message = sentence(f"The model server at {self._shown_url} answered HTTP {status} {phrase}".rstrip() + said)
        kind, retryable = classify(
            provider.message if provider else "",
            status=status,
            code=provider.code if provider else None,
            error_type=provider.type if provider else None,
            headers=response.headers,
        )
        requested = server_delay(response.headers, provider.retry_delay_s if provider else None)
        code = (provider.code or provider.type) if provider else None
        return _Failed(
            ModelHTTPError(message, retryable=retryable, status=status, code=code, type=kind, retry_after_s=requested)
        )

    def _web_page_failure(self, status: int, page: bytes) -> _Failed:
        title = html_title(page.decode("utf-8", errors="replace"))
        message = sentence(
            f"The model server at {self._shown_url} answered HTTP {status} with a web page "
            f"({self._clean(title)}) instead of an event stream; check the base URL (it usually "
            f"ends in /v1)"
        )
        kind = classify("", status=status)[0] if status >= 400 else "invalid_request"
        return _Failed(ModelHTTPError(message, retryable=False, status=status, type=kind))

    def _stream_failure(self, provider: ProviderError) -> _Failed:
        kind, retryable = classify(
            provider.message, status=provider.status, code=provider.code, error_type=provider.type
        )
        status = f" ({provider.status})" if provider.status else ""
        message = sentence(
            f"The model server at {self._shown_url} sent an error instead of a response{status}: "
            f"{self._clean(provider.message)}"
        )
        return _Failed(
            ModelStreamError(
                message,
                retryable=retryable,
                status=provider.status,
                code=provider.code or provider.type,
                type=kind,
                retry_after_s=provider.retry_delay_s,
            )
        )

    def _timeout_failure(self, exc: httpx.TimeoutException) -> _Failed:
        if isinstance(exc, httpx.ConnectTimeout):
            message = f"Connecting to the model server at {self._shown_url} timed out."
        else:
            message = f"The model server at {self._shown_url} sent nothing for {self.read_timeout:g} s."
        return _Failed(ModelTimeoutError(message, retryable=True, type="timeout"))

    def _transport_failure(self, exc: httpx.TransportError) -> _Failed:
        if isinstance(exc, httpx.ConnectError):
            message = f"Could not connect to the model server at {self._shown_url}: {self._detail(exc)}"
        else:
            message = f"The connection to the model server at {self._shown_url} failed: {self._detail(exc)}"
        return _Failed(
            ModelConnectionError(sentence(message), retryable=True, type="connection"),
            stale_connection=isinstance(exc, httpx.RemoteProtocolError),
        )

    def _detail(self, exc: Exception) -> str:
        return self._clean(str(exc) or type(exc).__name__)

    def _clean(self, text: str) -> str:
        for secret in self._secrets:
            text = redact(text, secret)
        return text.replace(self.base_url, self._shown_url) if self.base_url != self._shown_url else text


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
    chunks: list[bytes] = []
    size = 0
    async for data in response.aiter_bytes():
        chunks.append(data)
        size += len(data)
        if size >= limit:
            break
    return b"".join(chunks)[:limit]
