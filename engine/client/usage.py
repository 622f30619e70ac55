"""One shape for the token counts every provider reports its own way.

- OpenAI (and llama.cpp, Ollama, vLLM, Groq's ``x_groq.usage``): ``prompt_tokens``, ``completion_tokens``,
  ``total_tokens``, with ``prompt_tokens_details.cached_tokens`` and ``completion_tokens_details.reasoning_tokens``;
  reasoning is part of ``completion_tokens``.
- DeepSeek: ``prompt_cache_hit_tokens`` and ``prompt_cache_miss_tokens`` beside ``prompt_tokens`` (their sum).
- Gemini's OpenAI endpoint (and gateways in front of it): thinking tokens are billed as output but may be left out
  of ``completion_tokens`` while ``total_tokens`` counts them; the gap is output, so ``completion_tokens`` becomes
  ``total - prompt`` and the gap is reported as reasoning when no reasoning count came.
- llama.cpp's ``timings`` block is about speed, not billing: never read.

Normalised, ``completion_tokens`` is every billed output token (reasoning included) and ``cached_tokens`` is the
part of ``prompt_tokens`` served from the provider's prompt cache.
"""

from __future__ import annotations

import logging
from typing import Any

from engine.client.response import Usage
from engine.client.wire import WireUsage

log = logging.getLogger(__name__)

# More tokens than any request has ever held: a larger count is a broken or hostile server's, not a bill.
MAX_TOKEN_COUNT = 10**12


def _count(value: Any) -> int | None:
    """A token count, or None for anything that is not a whole number from 0 to ``MAX_TOKEN_COUNT`` (noted in the
    log: usage is metadata, never a reason to fail a response). A whole number written as ``12.0`` or ``"12"`` (as
    some servers do) counts."""
    number = _whole(value)
    if number is not None and 0 <= number <= MAX_TOKEN_COUNT:
        return number
    if value is not None:
        log.warning("usage: %.60r is not a token count from 0 to %d; ignored", value, MAX_TOKEN_COUNT)
    return None


def _whole(value: Any) -> int | None:
    reader = _WHOLE.get(type(value))  # by exact type: a bool is never a count
    return reader(value) if reader is not None else None


def _whole_float(value: float) -> int | None:
    return int(value) if value.is_integer() and abs(value) <= MAX_TOKEN_COUNT else None


def _whole_text(value: str) -> int | None:
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 13 else None


_WHOLE: dict[type, Any] = {int: lambda value: value, float: _whole_float, str: _whole_text}


def _detail(details: Any, key: str) -> int | None:
    return _count(details.get(key)) if isinstance(details, dict) else None


def normalise_usage(wire: WireUsage) -> Usage | None:
    """The provider's counts as :class:`Usage`, or None when the block carries no count at all (a ``null`` usage on
    every chunk, or one of xAI's empty trailing chunks: an earlier real count must not be overwritten)."""
    hit = _count(wire.prompt_cache_hit_tokens)
    prompt = _prompt_tokens(wire, hit)
    completion = _count(wire.completion_tokens)
    total = _count(wire.total_tokens)
    if (prompt, completion, total) == (None, None, None):
        return None
    prompt = prompt or 0
    reasoning = _detail(wire.completion_tokens_details, "reasoning_tokens")
    completion, total, reasoning = _with_uncounted_output(prompt, completion or 0, total, reasoning)
    return Usage(prompt, completion, total, _cached(wire, hit, prompt), reasoning)


def _prompt_tokens(wire: WireUsage, hit: int | None) -> int | None:
    """``prompt_tokens``, or DeepSeek's cache hits plus misses when it is missing."""
    prompt = _count(wire.prompt_tokens)
    miss = _count(wire.prompt_cache_miss_tokens)
    if prompt is None and hit is not None and miss is not None:
        return hit + miss
    return prompt


def _with_uncounted_output(
    prompt: int, completion: int, total: int | None, reasoning: int | None
) -> tuple[int, int, int | None]:
    """Completion, total and reasoning counts, output left out of ``completion_tokens`` added back (Gemini)."""
    if total is None:
        return completion, prompt + completion, reasoning
    gap = total - prompt - completion  # output the provider billed but left out of completion_tokens
    if gap <= 0:
        return completion, total, reasoning
    return completion + gap, total, gap if reasoning is None else reasoning


def _cached(wire: WireUsage, hit: int | None, prompt: int) -> int | None:
    """Prompt tokens served from the cache (OpenAI's details, else DeepSeek's hits), never more than the prompt."""
    cached = _detail(wire.prompt_tokens_details, "cached_tokens")
    if cached is None:
        cached = hit
    return None if cached is None else min(cached, prompt)
