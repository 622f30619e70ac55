"""How one attempt of a request failed, in one sentence that names the server and never a credential.

``FailedAttempt`` carries the ``ModelError`` of an attempt that failed before any output; ``AttemptFailures`` words
each way an attempt can fail (an HTTP status, a web page, an error object instead of a stream, a timeout, a broken
connection, a passed bound) for one server, with every credential redacted from what the provider echoed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from http import HTTPStatus
from typing import NamedTuple

import httpx

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
from engine.client.failure import FailureType, ModelFailure, classify
from engine.client.http_body import error_text, html_title
from engine.client.limits import StreamLimitError
from engine.client.retry import server_delay
from engine.client.wire import ProviderError

# The ways an exchange is cut short once it was sent; each is told by ``AttemptFailures.interruption``.
INTERRUPTIONS = (StreamLimitError, TimeoutError, httpx.TimeoutException, httpx.TransportError)

_NOTHING_SAID = ProviderError(message="")  # an error body without a message of the provider's


class FailedAttempt(Exception):
    """An attempt failed before any output; the error's ``retry_after_s`` is what the server asked us to wait."""

    def __init__(self, error: ModelError, *, stale_connection: bool = False) -> None:
        super().__init__(error.message)
        self.error = error
        self.stale_connection = stale_connection


class Interruption(NamedTuple):
    """An exchange cut short: the words and type for a response already under way, or the failed attempt."""

    message: str
    kind: FailureType
    before_output: FailedAttempt


def credentials_in(api_key: str | None, headers: Mapping[str, str], url: httpx.URL) -> list[str]:
    """What may be a credential: the key, header values, the URL's password and query values (long enough to
    redact without mangling ordinary words)."""
    candidates: Iterable[str | None] = (
        api_key,
        *headers.values(),
        url.password,
        *(value for _, value in url.params.multi_items()),
    )
    return [value for value in candidates if value and len(value) >= 8]


class AttemptFailures:
    """The failures of attempts against one server, worded for a person (``str(error)`` is one sentence)."""

    def __init__(self, base_url: str, secrets: list[str], read_timeout: float, response_seconds: float) -> None:
        self.base_url = base_url
        self.shown_url = public_url(base_url)
        self._secrets = secrets
        self._read_timeout = read_timeout
        self._response_seconds = response_seconds

    def clean(self, text: str) -> str:
        """``text`` with every credential redacted and the base URL shown without its secrets."""
        for secret in self._secrets:
            text = redact(text, secret)
        return text.replace(self.base_url, self.shown_url) if self.base_url != self.shown_url else text

    def http_status(self, response: httpx.Response, body: bytes) -> FailedAttempt:
        """A non-2xx answer, classified by the provider's error body, its status and its headers."""
        status = response.status_code
        provider = error_text(body, response.headers.get("content-type", "")) or _NOTHING_SAID
        said = f": {self.clean(provider.message)}" if provider.message else ""
        answered = f"The model server at {self.shown_url} answered HTTP {status} {_phrase(status)}".rstrip()
        message = sentence(answered + said)
        kind, retryable = classify(
            provider.message, status=status, code=provider.code, error_type=provider.type, headers=response.headers
        )
        return FailedAttempt(
            ModelHTTPError(
                message,
                retryable=retryable,
                status=status,
                code=provider.code or provider.type,
                type=kind,
                retry_after_s=server_delay(response.headers, provider.retry_delay_s),
            )
        )

    def web_page(self, status: int, page: bytes) -> FailedAttempt:
        """An HTML page where an event stream belonged: usually a base URL without its ``/v1``."""
        title = html_title(page.decode("utf-8", errors="replace"))
        message = sentence(
            f"The model server at {self.shown_url} answered HTTP {status} with a web page "
            f"({self.clean(title)}) instead of an event stream; check the base URL (it usually "
            f"ends in /v1)"
        )
        kind = classify("", status=status)[0] if status >= 400 else "invalid_request"
        return FailedAttempt(ModelHTTPError(message, retryable=False, status=status, type=kind))

    def error_instead_of_stream(self, provider: ProviderError) -> FailedAttempt:
        """A 200 stream whose first event was an error object."""
        kind, retryable = classify(
            provider.message, status=provider.status, code=provider.code, error_type=provider.type
        )
        status = f" ({provider.status})" if provider.status else ""
        message = sentence(
            f"The model server at {self.shown_url} sent an error instead of a response{status}: "
            f"{self.clean(provider.message)}"
        )
        return FailedAttempt(
            ModelStreamError(
                message,
                retryable=retryable,
                status=provider.status,
                code=provider.code or provider.type,
                type=kind,
                retry_after_s=provider.retry_delay_s,
            )
        )

    def nothing_sent(self) -> FailedAttempt:
        """A stream that ended before any output or finish reason."""
        return FailedAttempt(
            ModelStreamError(
                f"The model server at {self.shown_url} ended the stream before sending anything.",
                retryable=True,
                type="truncated_stream",
            )
        )

    def interruption(self, exc: Exception) -> Interruption:
        """One of ``INTERRUPTIONS``, told for a response under way and for an attempt without output."""
        if isinstance(exc, StreamLimitError):
            message = f"{exc} from {self.shown_url}; proofdesk stopped reading it (profile key response_mb)"
            return Interruption(message, "response_limit", _past_bound(ModelStreamError, message))
        if isinstance(exc, TimeoutError):
            message = (
                f"the response from {self.shown_url} went on for more than {self._response_seconds:g} s; "
                "proofdesk stopped reading it (profile key response_seconds)"
            )
            return Interruption(message, "response_limit", _past_bound(ModelTimeoutError, message))
        if isinstance(exc, httpx.TimeoutException):
            message = f"the server sent nothing for {self._read_timeout:g} s during the response"
            return Interruption(message, "timeout", self._timeout(exc))
        message = f"the connection broke during the response: {self._detail(exc)}"
        return Interruption(message, "truncated_stream", self._transport(exc))

    def _timeout(self, exc: httpx.TimeoutException) -> FailedAttempt:
        if isinstance(exc, httpx.ConnectTimeout):
            message = f"Connecting to the model server at {self.shown_url} timed out."
        else:
            message = f"The model server at {self.shown_url} sent nothing for {self._read_timeout:g} s."
        return FailedAttempt(ModelTimeoutError(message, retryable=True, type="timeout"))

    def _transport(self, exc: Exception) -> FailedAttempt:
        if isinstance(exc, httpx.ConnectError):
            message = f"Could not connect to the model server at {self.shown_url}: {self._detail(exc)}"
        else:
            message = f"The connection to the model server at {self.shown_url} failed: {self._detail(exc)}"
        return FailedAttempt(
            ModelConnectionError(sentence(message), retryable=True, type="connection"),
            stale_connection=isinstance(exc, httpx.RemoteProtocolError),
        )

    def _detail(self, exc: Exception) -> str:
        return self.clean(str(exc) or type(exc).__name__)


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _past_bound(error: type[ModelError], message: str) -> FailedAttempt:
    """A response past its size or time bound: not retried, the same server would do it again."""
    return FailedAttempt(error.of(ModelFailure(message, "response_limit", None, False)))
