"""Errors the model client raises: one sentence a person can act on, and whether trying again may help."""

from __future__ import annotations

from engine.client.failure import FailureType, ModelFailure
from engine.urls import public_url  # noqa: F401 — re-exported: the client's messages use it


def redact(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` replaced, so a provider echoing the key cannot leak it."""
    if secret and len(secret) >= 4:
        return text.replace(secret, "[redacted]")
    return text


def sentence(text: str, limit: int = 300) -> str:
    """Collapse whitespace to one line, cut at ``limit`` characters and end with a full stop."""
    one = " ".join(text.split())
    if len(one) > limit:
        one = one[: limit - 1].rstrip() + "…"
    if one and one[-1] not in ".!?…":
        one += "."
    return one


class ModelError(Exception):
    """A request to the model failed before any output was streamed (after the retries it was allowed).

    ``str(error)`` is one sentence naming the server (without credentials), the HTTP status when there was one and
    the provider's own message. ``failure`` is its classification (``engine.client.failure``); ``retryable`` says
    whether the same request may succeed later.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        status: int | None = None,
        code: str | None = None,
        type: FailureType | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        kind: FailureType = type or ("server_error" if retryable else "invalid_request")
        self.failure = ModelFailure(message, kind, code, retryable, retry_after_s, status)
        super().__init__(message)

    @classmethod
    def of(cls, failure: ModelFailure) -> ModelError:
        """The error carrying ``failure``."""
        return cls(
            failure.message,
            retryable=failure.retryable,
            status=failure.status,
            code=failure.code,
            type=failure.type,
            retry_after_s=failure.retry_after_s,
        )

    @property
    def message(self) -> str:
        """The one sentence."""
        return self.failure.message

    @property
    def retryable(self) -> bool:
        """Whether the same request may succeed later."""
        return self.failure.retryable

    @property
    def status(self) -> int | None:
        """The HTTP status, when there was one."""
        return self.failure.status

    @property
    def code(self) -> str | None:
        """The provider's error code, when it sent one."""
        return self.failure.code

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.message!r}, type={self.failure.type}, retryable={self.retryable}, "
            f"status={self.status})"
        )


class ModelHTTPError(ModelError):
    """The server answered with a non-2xx status."""


class ModelConnectionError(ModelError):
    """No usable connection: refused, reset, DNS failure, or closed before any output."""


class ModelTimeoutError(ModelError):
    """Connecting took longer than the connect timeout, or the server stayed silent longer than the read timeout."""


class ModelStreamError(ModelError):
    """The server opened a 200 stream but its first event was an error object."""
