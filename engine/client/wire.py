"""Pydantic models of what crosses the wire: streamed chunks, usage, and provider error bodies.

Every model ignores unknown fields (``obfuscation``, ``system_fingerprint``, Together's ``text``/``token_id``,
llama.cpp's ``timings``, Azure's ``prompt_filter_results`` ...) and accepts the looser types some servers send
(an ``index`` as a numeric string, an ``id`` as a number, ``arguments`` as a JSON object).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore")


# Field types are kept loose where servers disagree (``Any``), and the assembler narrows them: Python-level
# validators would run for every one of the thousands of chunks of a turn.


class WireFunction(_Wire):
    """``function`` of a tool-call delta; ``arguments`` may be a fragment string, a whole object, or absent."""

    name: str | None = None
    arguments: Any = None


class WireToolCall(_Wire):
    """One entry of ``delta.tool_calls``; only ``function.arguments`` is reliably present after the first."""

    index: int | None = None
    id: str | int | None = None
    type: str | None = None
    function: WireFunction | None = None
    extra_content: dict[str, Any] | None = None


class WireDelta(_Wire):
    """``choices[i].delta``. ``content`` may be a list of parts (Mistral's thinking/text chunks)."""

    role: str | None = None
    content: str | list[Any] | None = None
    refusal: str | None = None
    reasoning_content: Any = None
    reasoning: Any = None
    tool_calls: list[WireToolCall] | WireToolCall | None = None
    function_call: WireFunction | None = None
    extra_content: dict[str, Any] | None = None


class WireChoice(_Wire):
    """``choices[i]``: the delta and, on one chunk, the finish reason."""

    index: int | None = 0
    delta: WireDelta | None = None
    finish_reason: str | None = None


class WireUsage(_Wire):
    """Token counts; any of them may be missing. Cached prompt tokens come as OpenAI's
    ``prompt_tokens_details.cached_tokens`` or DeepSeek's ``prompt_cache_hit_tokens``."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    prompt_tokens_details: dict[str, Any] | None = None
    prompt_cache_hit_tokens: int | None = None

    def cached_tokens(self) -> int | None:
        """Prompt tokens served from the provider's cache, or None when not reported."""
        details = self.prompt_tokens_details
        if details is not None:
            cached = details.get("cached_tokens")
            if isinstance(cached, int) and not isinstance(cached, bool):
                return cached
        return self.prompt_cache_hit_tokens


class WireGroq(_Wire):
    """Groq's vendor block (2024): usage lived only here, on the last chunk."""

    usage: WireUsage | None = None


class WireChunk(_Wire):
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


class ProviderError(BaseModel):
    """What a provider said went wrong, from any of the error shapes (see ``parse_error_payload``)."""

    model_config = ConfigDict(frozen=True)

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
        for item in payload:
            found = parse_error_payload(item)
            if found is not None:
                return found
        return None
    if not isinstance(payload, dict):
        return None
    inner = payload.get("error")
    if isinstance(inner, str) and inner:
        return ProviderError(message=inner)
    if isinstance(inner, dict) and inner:
        if inner.get("object") == "error" or "message" in inner or "code" in inner:
            return _from_fields(inner)
        return ProviderError(message=json.dumps(inner)[:300])
    if payload.get("object") == "error":
        return _from_fields(payload)
    detail = payload.get("detail")
    if isinstance(detail, str) and detail and "choices" not in payload:
        return ProviderError(message=detail)
    return None


def _from_fields(fields: dict[str, Any]) -> ProviderError:
    message = fields.get("message")
    if not isinstance(message, str) or not message:
        message = json.dumps(fields.get("message") or fields)[:300]
    metadata = fields.get("metadata")
    if isinstance(metadata, dict) and isinstance(metadata.get("raw"), str) and metadata["raw"]:
        message = f"{message} ({metadata['raw']})"  # OpenRouter: the upstream provider's own words
    code = fields.get("code")
    status = fields.get("status")
    numeric: int | None = None
    for candidate in (code, status):
        if isinstance(candidate, int) and not isinstance(candidate, bool) and 100 <= candidate <= 599:
            numeric = candidate
            break
        if isinstance(candidate, str) and candidate.isdigit() and 100 <= int(candidate) <= 599:
            numeric = int(candidate)
            break
    text_code = None
    if isinstance(code, str) and not code.isdigit():
        text_code = code
    elif isinstance(status, str) and not status.isdigit():
        text_code = status  # Google: "RESOURCE_EXHAUSTED"
    kind = fields.get("type")
    return ProviderError(message=message, code=text_code, type=kind if isinstance(kind, str) else None,
                         status=numeric, retry_delay_s=_retry_info(fields.get("details")))


def _retry_info(details: Any) -> float | None:
    if not isinstance(details, list):
        return None
    for item in details:
        if isinstance(item, dict) and str(item.get("@type", "")).endswith("google.rpc.RetryInfo"):
            delay = item.get("retryDelay")
            if isinstance(delay, str) and delay.endswith("s"):
                try:
                    return float(delay[:-1])
                except ValueError:
                    return None
            if isinstance(delay, dict):  # protobuf JSON as an object: {"seconds": 34, "nanos": ...}
                return float(delay.get("seconds", 0)) + float(delay.get("nanos", 0)) / 1e9
    return None
