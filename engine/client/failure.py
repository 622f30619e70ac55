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


@dataclass(frozen=True, slots=True)
class _Rule:
    """One line of the classification table: a failure is ``kind`` when its status is one of ``statuses``, its
    provider code or type is one of ``codes``, or its message holds ``words``.

    ``codes_when`` and ``words_when``, when set, are the only statuses under which the codes or the words count (a
    message mentioning the context is only an overflow when the status allows it).
    """

    kind: FailureType
    statuses: frozenset[int] = frozenset()
    codes: frozenset[str] = frozenset()
    words: re.Pattern[str] | None = None
    codes_when: frozenset[int | None] | None = None
    words_when: frozenset[int | None] | None = None

    def matches(self, message: str, status: int | None, names: set[str]) -> bool:
        """True when this rule names the failure."""
        return status in self.statuses or self._by_code(status, names) or self._by_words(status, message)

    def _by_code(self, status: int | None, names: set[str]) -> bool:
        return not names.isdisjoint(self.codes) and (self.codes_when is None or status in self.codes_when)

    def _by_words(self, status: int | None, message: str) -> bool:
        if self.words is None or (self.words_when is not None and status not in self.words_when):
            return False
        return self.words.search(message) is not None


# No header makes these worth retrying: the same request would fail the same way.
_NEVER_RETRIED = frozenset({"quota", "context_overflow"})
_BAD_REQUEST = frozenset({400, 413, 422})

# First match wins, in this order: a quota or context code wins over a status that says otherwise (a 429
# ``insufficient_quota`` is a quota failure, a 400 ``exceed_context_size_error`` a context overflow).
_RULES = (
    _Rule("quota", frozenset({402}), _QUOTA_CODES, _QUOTA_WORDS),
    _Rule("context_overflow", codes=_CONTEXT_CODES, words=_CONTEXT_WORDS, words_when=_BAD_REQUEST | {None}),
    _Rule("authentication", frozenset({401}), _AUTH_CODES),
    _Rule("permission", frozenset({403}), _PERMISSION_CODES),
    _Rule("unknown_model", frozenset({404}), _NOT_FOUND_CODES),
    _Rule("invalid_request", _BAD_REQUEST, _INVALID_CODES, codes_when=frozenset({None})),
    _Rule("rate_limit", frozenset({429}), _RATE_CODES),
    _Rule("overloaded", frozenset({503, 529}), _OVERLOAD_CODES, _OVERLOAD_WORDS),
    _Rule("timeout", frozenset({408})),
    _Rule("upstream_closed", frozenset({502}), words=_UPSTREAM_WORDS),
)


def classify(
    message: str,
    *,
    status: int | None = None,
    code: str | None = None,
    error_type: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> tuple[FailureType, bool]:
    """The failure type and whether retrying may help, for a provider error from any source.

    The provider's own code and type win over the status; then the status; then words in the message (``_RULES``).
    An error with no status and no recognisable code (an in-stream ``server_error``) is a retryable server error.
    OpenAI's ``x-should-retry`` header overrides retryability of the transient types.
    """
    names = {_norm(code), _norm(error_type)} - {""}
    kind = next((rule.kind for rule in _RULES if rule.matches(message, status, names)), None) or _unlisted(status)
    return kind, _retryable(kind, _norm((headers or {}).get("x-should-retry")))


def _unlisted(status: int | None) -> FailureType:
    """A status no rule names: other 4xx answers (409 Conflict aside) refuse the request, the rest are the server's."""
    if status is not None and 400 <= status < 500 and status != 409:
        return "invalid_request"
    return "server_error"


def _retryable(kind: FailureType, hint: str) -> bool:
    """Whether ``kind`` may succeed when retried. OpenAI's ``x-should-retry`` (``hint``) overrides the type's own
    answer, except that a quota failure or a context overflow is never retried."""
    if kind in RUN_STOPPING_TYPES or kind == "context_overflow":
        return hint == "true" and kind not in _NEVER_RETRIED
    return hint != "false"
