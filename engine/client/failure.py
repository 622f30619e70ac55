"""One classification for every way a request can fail, whether the server said it with an HTTP status or as an
error object inside a 200 stream.

``ModelFailure`` is the structured form carried by ``ModelError`` (a request that failed before any output), by an
``AssembledResponse`` that ended in error, by ``model_response``/``error`` events and by ``check-model --json``:
``{"message", "type", "code", "retryable", "retry_after_s"}``.

Types and what the engine does with them:

- not retried, the run stops: ``quota``, ``authentication``, ``permission``, ``unknown_model``, ``invalid_request``;
- not retried, only the chunk is affected: ``context_overflow`` (the run splits the chunk or fails just that chunk),
  ``response_limit`` (a response past its size or time bound: ``engine.client.limits``);
- retried with backoff, sharing one budget per request: ``rate_limit``, ``overloaded``, ``server_error``,
  ``upstream_closed``, ``truncated_stream``, ``timeout``, ``connection``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

FailureType = Literal[
    "quota",
    "authentication",
    "permission",
    "unknown_model",
    "invalid_request",
    "context_overflow",
    "rate_limit",
    "overloaded",
    "server_error",
    "upstream_closed",
    "truncated_stream",
    "timeout",
    "connection",
    "response_limit",
]

RUN_STOPPING_TYPES: frozenset[str] = frozenset(
    {"quota", "authentication", "permission", "unknown_model", "invalid_request"}
)
# The request or its configuration is wrong (exit 2): a key, a model name, a request the server refuses.
CONFIGURATION_TYPES: frozenset[str] = frozenset({"authentication", "permission", "unknown_model", "invalid_request"})

_QUOTA_CODES = frozenset(
    {
        "insufficient_quota",
        "billing_hard_limit_reached",
        "insufficient_balance",
        "quota_exceeded",
        "billing_not_active",
        "payment_required",
    }
)
_AUTH_CODES = frozenset(
    {"invalid_api_key", "authentication_error", "unauthenticated", "account_deactivated", "invalid_authentication"}
)
_PERMISSION_CODES = frozenset(
    {"permission_error", "permission_denied", "forbidden", "unsupported_country_region_territory"}
)
_NOT_FOUND_CODES = frozenset({"model_not_found", "not_found_error", "not_found", "notfounderror"})
_INVALID_CODES = frozenset(
    {"invalid_request_error", "badrequesterror", "invalid_argument", "bad_request", "unprocessable_entity"}
)
_CONTEXT_CODES = frozenset(
    {
        "context_length_exceeded",
        "exceed_context_size_error",
        "context_window_exceeded",
        "model_context_window_exceeded",
        "string_above_max_length",
    }
)
_RATE_CODES = frozenset({"rate_limit_exceeded", "rate_limit_error", "resource_exhausted", "too_many_requests"})
_OVERLOAD_CODES = frozenset(
    {
        "overloaded",
        "overloaded_error",
        "server_overloaded",
        "unavailable",
        "service_unavailable",
        "insufficient_system_resource",
    }
)
_CONTEXT_WORDS = re.compile(
    r"context[ _-]?(length|size|window)|maximum context|too many tokens|exceeds? the (available )?context"
    r"|prompt is too long|input is too long|reduce the length of the messages|maximum (input|prompt) length",
    re.IGNORECASE,
)
_QUOTA_WORDS = re.compile(r"insufficient[ _](quota|balance)|exceeded your current quota|billing", re.IGNORECASE)
_UPSTREAM_WORDS = re.compile(r"upstream|bad gateway|connection (was )?(closed|reset)", re.IGNORECASE)
_OVERLOAD_WORDS = re.compile(r"overloaded|over capacity|at capacity|server is busy", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ModelFailure:
    """A classified request failure; ``status`` is the HTTP (or in-body numeric) status when there was one."""

    message: str
    type: FailureType
    code: str | None
    retryable: bool
    retry_after_s: float | None = None
    status: int | None = None

    @property
    def stops_run(self) -> bool:
        """True when no later request of the run can succeed either (quota, key, model name, request shape)."""
        return self.type in RUN_STOPPING_TYPES

    @property
    def is_configuration(self) -> bool:
        """True when the configuration needs fixing (the CLI's exit 2)."""
        return self.type in CONFIGURATION_TYPES

    def to_json(self) -> dict[str, Any]:
        """The structured form of the contract (the status is added when known)."""
        data: dict[str, Any] = {
            "message": self.message,
            "type": self.type,
            "code": self.code,
            "retryable": self.retryable,
            "retry_after_s": self.retry_after_s,
        }
        if self.status is not None:
            data["status"] = self.status
        return data


def _norm(value: str | None) -> str:
    return (value or "").strip().lower()


def classify(
    message: str,
    *,
    status: int | None = None,
    code: str | None = None,
    error_type: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> tuple[FailureType, bool]:
    """The failure type and whether retrying may help, for a provider error from any source.

    The provider's own code and type win over the status (a 429 ``insufficient_quota`` is a quota failure, a 400
    ``exceed_context_size_error`` a context overflow); then the status; then words in the message. An error with no
    status and no recognisable code (an in-stream ``server_error``) is a retryable server error. OpenAI's
    ``x-should-retry`` header overrides retryability of the transient types.
    """
    names = {_norm(code), _norm(error_type)} - {""}
    kind: FailureType
    if names & _QUOTA_CODES or status == 402 or _QUOTA_WORDS.search(message):
        kind = "quota"
    elif names & _CONTEXT_CODES or (status in (None, 400, 413, 422) and _CONTEXT_WORDS.search(message)):
        kind = "context_overflow"
    elif status == 401 or names & _AUTH_CODES:
        kind = "authentication"
    elif status == 403 or names & _PERMISSION_CODES:
        kind = "permission"
    elif status == 404 or names & _NOT_FOUND_CODES:
        kind = "unknown_model"
    elif status in (400, 413, 422) or (status is None and names & _INVALID_CODES):
        kind = "invalid_request"
    elif status == 429 or names & _RATE_CODES:
        kind = "rate_limit"
    elif status in (503, 529) or names & _OVERLOAD_CODES or _OVERLOAD_WORDS.search(message):
        kind = "overloaded"
    elif status == 408:
        kind = "timeout"
    elif status == 502 or _UPSTREAM_WORDS.search(message):
        kind = "upstream_closed"
    elif status is not None and 400 <= status < 500 and status != 409:
        kind = "invalid_request"
    else:
        kind = "server_error"
    retryable = kind not in RUN_STOPPING_TYPES and kind != "context_overflow"
    hint = _norm((headers or {}).get("x-should-retry"))
    if hint == "false":
        retryable = False
    elif hint == "true" and kind not in ("quota", "context_overflow"):
        retryable = True
    return kind, retryable
