"""What crosses the wire: streamed chunks, usage, and provider error bodies.

Every type ignores unknown fields (``obfuscation``, ``system_fingerprint``, Together's ``text``/``token_id``,
llama.cpp's ``timings``, Azure's ``prompt_filter_results`` ...). Chunks are decoded in two ways:

- ``decode_chunk``, the fast path: msgspec decodes and type-checks the JSON text in one pass, strictly (an
  ``index`` must be a number, an ``id`` a string or a number ...). Nearly every chunk of every server takes it.
- ``validate_chunk``, the slow path for whatever the fast one refuses: the text parsed with ``json`` (lone
  surrogate escapes, ``NaN``, non-object payloads), then validated in pydantic's lax mode, which accepts the looser
  types some servers send (an ``index`` as a numeric string, ``true`` as 1 ...). Its models are built on first use:
  most runs never need them.

Both give the same ``WireChunk`` for every chunk the fast path accepts.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import msgspec

# Field types are kept loose where servers disagree (``Any``), and the assembler narrows them: Python-level
# validators would run for every one of the thousands of chunks of a turn.


class WireFunction(msgspec.Struct, gc=False):
    """``function`` of a tool-call delta; ``arguments`` may be a fragment string, a whole object, or absent."""

    name: str | None = None
    arguments: Any = None


class WireToolCall(msgspec.Struct, gc=False):
    """One entry of ``delta.tool_calls``; only ``function.arguments`` is reliably present after the first."""

    index: int | None = None
    id: str | int | None = None
    type: str | None = None
    function: WireFunction | None = None
    extra_content: dict[str, Any] | None = None


class WireDelta(msgspec.Struct, gc=False):
    """``choices[i].delta``. ``content`` may be a list of parts (Mistral's thinking/text chunks)."""

    role: str | None = None
    content: str | list[Any] | None = None
    refusal: str | None = None
    reasoning_content: Any = None
    reasoning: Any = None
    tool_calls: list[WireToolCall] | WireToolCall | None = None
    function_call: WireFunction | None = None
    extra_content: dict[str, Any] | None = None


class WireChoice(msgspec.Struct, gc=False):
    """``choices[i]``: the delta and, on one chunk, the finish reason."""

    index: int | None = 0
    delta: WireDelta | None = None
    finish_reason: str | None = None


class WireUsage(msgspec.Struct, gc=False):
    """Token counts as a provider sends them; any of them may be missing. ``engine.client.usage`` turns the
    provider's shape (OpenAI's details, DeepSeek's cache hit/miss counts, Gemini's uncounted thoughts) into one."""

    # Usage is metadata: any JSON value is taken here and judged by engine.client.usage, so a count of the wrong
    # type or size (1.5, "1000", 1e30) never fails the response that carries it.
    prompt_tokens: Any = None
    completion_tokens: Any = None
    total_tokens: Any = None
    prompt_tokens_details: Any = None
    completion_tokens_details: Any = None
    prompt_cache_hit_tokens: Any = None
    prompt_cache_miss_tokens: Any = None


class WireGroq(msgspec.Struct, gc=False):
    """Groq's vendor block (2024): usage lived only here, on the last chunk."""

    usage: WireUsage | None = None


class WireChunk(msgspec.Struct, gc=False):
    """One ``chat.completion.chunk`` (``object`` is optional: Mistral omits it, Azure sends ``""``).

    ``error``/``message``/``code``/``detail`` only matter for error objects; ``looks_like_error`` says when to read
    them with ``parse_error_payload``.
    """

    object: str | None = None
    choices: list[WireChoice] | None = None
    usage: WireUsage | None = None
    x_groq: WireGroq | None = None
    error: Any = None
    detail: Any = None

    def looks_like_error(self) -> bool:
        """True for the error shapes of ``parse_error_payload``."""
        return bool(self.error) or self.object == "error" or (self.detail is not None and not self.choices)


_decode = msgspec.json.Decoder(WireChunk).decode


def decode_chunk(data: str | bytes) -> WireChunk | None:
    """The chunk in ``data``, decoded strictly in one pass; None when it needs ``validate_chunk`` (not JSON as
    msgspec reads it, not an object, or a field of a looser type than declared)."""
    try:
        return _decode(data)
    except msgspec.DecodeError:  # ValidationError included
        return None


class MalformedChunk(ValueError):
    """A decoded chunk whose fields do not fit even the lax types; ``where`` is the first bad place
    (``choices.0.delta.content``)."""

    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


def validate_chunk(payload: dict[str, Any]) -> WireChunk:
    """The slow path: a chunk parsed with ``json``, validated in pydantic's lax mode (see the module docstring).

    Raises ``MalformedChunk`` when a field does not fit.
    """
    from pydantic import ValidationError

    try:
        lax = _lax_chunk_model().model_validate(payload)
    except ValidationError as exc:
        raise MalformedChunk(".".join(str(part) for part in exc.errors()[0]["loc"])) from None
    # The lax result has the declared types now: the strict conversion to the one chunk type always fits.
    return msgspec.convert(lax.model_dump(), WireChunk)


@functools.cache
def _lax_chunk_model() -> Any:
    """The pydantic twin of ``WireChunk`` (generated from it: the same fields), built on first use."""
    from engine.struct_twin import twin

    return twin(WireChunk)


class ProviderError(msgspec.Struct, frozen=True, kw_only=True):
    """What a provider said went wrong, from any of the error shapes (see ``parse_error_payload``)."""

    message: str
    code: str | None = None
    type: str | None = None
    status: int | None = None  # a numeric code inside the body (in-stream errors carry one)
    retry_delay_s: float | None = None  # google.rpc.RetryInfo.retryDelay


def parse_error_payload(payload: Any) -> ProviderError | None:
    """Read an error from any shape providers use, or None when ``payload`` is not an error.

    Shapes: OpenAI ``{"error": {"message", "type", "code"}}``; OpenRouter adds ``metadata``; Ollama
    ``{"error": "…"}``; vLLM/Mistral ``{"object": "error", "message", "type", "code"}``; Google
    ``[{"error": {…, "details": [RetryInfo]}}]``;
    FastAPI-style ``{"detail": "…"}``.
    """
    if isinstance(payload, list):
        return next((found for found in map(parse_error_payload, payload) if found is not None), None)
    return _error_in_object(payload) if isinstance(payload, dict) else None


def _error_in_object(payload: dict[str, Any]) -> ProviderError | None:
    inner = payload.get("error")
    if isinstance(inner, str) and inner:
        return ProviderError(message=inner)
    if isinstance(inner, dict) and inner:
        return _inner_error(inner)
    if payload.get("object") == "error":
        return _from_fields(payload)
    return _detail_error(payload)


def _inner_error(inner: dict[str, Any]) -> ProviderError:
    """The object under ``error``: its fields when it has the usual ones, else its JSON as the message."""
    if inner.get("object") == "error" or "message" in inner or "code" in inner:
        return _from_fields(inner)
    return ProviderError(message=json.dumps(inner)[:300])


def _detail_error(payload: dict[str, Any]) -> ProviderError | None:
    """FastAPI's ``{"detail": "…"}`` (a chunk with ``choices`` is not an error)."""
    detail = payload.get("detail")
    if isinstance(detail, str) and detail and "choices" not in payload:
        return ProviderError(message=detail)
    return None


def _from_fields(fields: dict[str, Any]) -> ProviderError:
    code = fields.get("code")
    status = fields.get("status")
    kind = fields.get("type")
    return ProviderError(
        message=_message(fields),
        code=_text_code(code, status),
        type=kind if isinstance(kind, str) else None,
        status=_numeric_status(code, status),
        retry_delay_s=_retry_info(fields.get("details")),
    )


def _message(fields: dict[str, Any]) -> str:
    """The error's message (its fields as JSON when it has none), with the upstream provider's own words."""
    message = fields.get("message")
    if not isinstance(message, str) or not message:
        message = json.dumps(fields.get("message") or fields)[:300]
    raw = _upstream_words(fields.get("metadata"))
    return message if raw is None else f"{message} ({raw})"


def _upstream_words(metadata: Any) -> str | None:
    """OpenRouter's ``metadata.raw``: what the provider behind it said."""
    raw = metadata.get("raw") if isinstance(metadata, dict) else None
    return raw if isinstance(raw, str) and raw else None


def _numeric_status(code: Any, status: Any) -> int | None:
    """The HTTP-like status in ``code`` or else ``status`` (a number, or digits)."""
    for candidate in (code, status):
        number = _status_number(candidate)
        if number is not None:
            return number
    return None


def _status_number(value: Any) -> int | None:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if type(value) is int and 100 <= value <= 599:  # not a bool: type(True) is bool
        return value
    return None


def _text_code(code: Any, status: Any) -> str | None:
    """A code in words: ``code``, or else ``status`` (Google: ``"RESOURCE_EXHAUSTED"``)."""
    for candidate in (code, status):
        if isinstance(candidate, str) and not candidate.isdigit():
            return candidate
    return None


def _retry_info(details: Any) -> float | None:
    """Google's ``RetryInfo.retryDelay`` (``"34s"``, or protobuf JSON ``{"seconds": 34, "nanos": …}``)."""
    for delay in _retry_delays(details):
        if isinstance(delay, str) and delay.endswith("s"):
            return _float_or_none(delay[:-1])
        if isinstance(delay, dict):
            return float(delay.get("seconds", 0)) + float(delay.get("nanos", 0)) / 1e9
    return None


def _retry_delays(details: Any) -> list[Any]:
    if not isinstance(details, list):
        return []
    return [
        item.get("retryDelay")
        for item in details
        if isinstance(item, dict) and str(item.get("@type", "")).endswith("google.rpc.RetryInfo")
    ]


def _float_or_none(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None
