"""Token usage in every shape real providers send, normalised to one (engine.client.usage), over a real socket.

Normalised: ``completion_tokens`` is every billed output token (reasoning included), ``cached_tokens`` the part of
the prompt the provider's cache served, ``reasoning_tokens`` when reported. Retried requests' tokens count too.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.client import Completed, ModelClient, RetryPolicy
from engine.client.response import Usage
from engine.client.usage import normalise_usage
from engine.client.wire import WireUsage, decode_chunk, validate_chunk
from tests.engine.client.transcript_kit import BASE, DONE, ev, oa
from tests.support.model_server import ModelServer, Scripted

MESSAGES = [{"role": "user", "content": "Go."}]


def _body(*chunks: dict[str, Any]) -> bytes:
    return "".join(
        [ev(oa({"role": "assistant", "content": "ok"})), ev(oa({}, "stop")), *(ev(c) for c in chunks), DONE]
    ).encode()


def _usage_chunk(usage: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {**BASE, "choices": [], "usage": usage, **extra}


SHAPES: dict[str, tuple[bytes, Usage]] = {
    # OpenAI: cached prompt tokens and reasoning tokens in the details blocks; reasoning is inside completion.
    "openai_details": (
        _body(
            _usage_chunk(
                {
                    "prompt_tokens": 2006,
                    "completion_tokens": 300,
                    "total_tokens": 2306,
                    "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
                    "completion_tokens_details": {"reasoning_tokens": 128, "accepted_prediction_tokens": 0},
                }
            )
        ),
        Usage(2006, 300, 2306, 1920, 128),
    ),
    # DeepSeek: prompt_cache_hit_tokens / prompt_cache_miss_tokens beside prompt_tokens.
    "deepseek_cache": (
        _body(
            _usage_chunk(
                {
                    "prompt_tokens": 1500,
                    "completion_tokens": 200,
                    "total_tokens": 1700,
                    "prompt_cache_hit_tokens": 1024,
                    "prompt_cache_miss_tokens": 476,
                    "completion_tokens_details": {"reasoning_tokens": 150},
                }
            )
        ),
        Usage(1500, 200, 1700, 1024, 150),
    ),
    # A DeepSeek-style gateway that leaves prompt_tokens out: hit + miss is the prompt.
    "cache_counts_only": (
        _body(_usage_chunk({"completion_tokens": 10, "prompt_cache_hit_tokens": 64, "prompt_cache_miss_tokens": 36})),
        Usage(100, 10, 110, 64, None),
    ),
    # Gemini's OpenAI endpoint: thinking tokens billed as output, counted in total_tokens only.
    "gemini_thoughts_in_total": (
        _body(_usage_chunk({"prompt_tokens": 21, "completion_tokens": 0, "total_tokens": 81})),
        Usage(21, 60, 81, None, 60),
    ),
    # ... and when it does say how many of them were reasoning.
    "gemini_with_reasoning": (
        _body(
            _usage_chunk(
                {
                    "prompt_tokens": 20,
                    "completion_tokens": 198,
                    "total_tokens": 623,
                    "completion_tokens_details": {"reasoning_tokens": 405},
                    "prompt_tokens_details": {"cached_tokens": 0},
                }
            )
        ),
        Usage(20, 603, 623, 0, 405),
    ),
    # Groq (2024): usage only inside x_groq on the last chunk.
    "groq_x_groq": (
        "".join(
            [
                ev(oa({"role": "assistant", "content": "ok"})),
                ev(
                    oa(
                        {},
                        "stop",
                        x_groq={
                            "id": "req_1",
                            "usage": {
                                "prompt_tokens": 40,
                                "completion_tokens": 5,
                                "total_tokens": 45,
                                "queue_time": 0.01,
                                "prompt_time": 0.002,
                            },
                        },
                    )
                ),
                DONE,
            ]
        ).encode(),
        Usage(40, 5, 45, None, None),
    ),
    # llama.cpp: `timings` beside usage is about speed; never read as tokens.
    "llamacpp_timings": (
        _body(
            _usage_chunk(
                {
                    "prompt_tokens": 33,
                    "completion_tokens": 4,
                    "total_tokens": 37,
                    "prompt_tokens_details": {"cached_tokens": 32},
                },
                timings={"prompt_n": 1, "predicted_n": 4, "cache_n": 32, "prompt_ms": 1.5},
            )
        ),
        Usage(33, 4, 37, 32, None),
    ),
    # xAI: usage one chunk before a final chunk whose usage is null — the real counts stay.
    "xai_null_after": (
        "".join(
            [
                ev(oa({"role": "assistant", "content": "ok"})),
                ev(oa({}, "stop")),
                ev(_usage_chunk({"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11})),
                ev(oa({})),
                DONE,
            ]
        ).encode(),
        Usage(9, 2, 11, None, None),
    ),
    # LocalAI / NIM: cumulative usage on every chunk; the last one holds.
    "usage_on_every_chunk": (
        "".join(
            [
                ev(
                    {
                        **oa({"role": "assistant", "content": "o"}),
                        "usage": {"prompt_tokens": 7, "completion_tokens": 1, "total_tokens": 8},
                    }
                ),
                ev(
                    {
                        **oa({"content": "k"}, "stop"),
                        "usage": {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9},
                    }
                ),
                DONE,
            ]
        ).encode(),
        Usage(7, 2, 9, None, None),
    ),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
async def test_usage_shape_over_the_network(model_server: ModelServer, name: str) -> None:
    body, expected = SHAPES[name]
    model_server.add(Scripted(200, {"content-type": "text/event-stream"}, body, 5))
    async with ModelClient(model_server.base_url, "m", retry_policy=RetryPolicy(max_retries=0)) as client:
        events = [e async for e in client.stream(MESSAGES, [])]
    assert isinstance(events[-1], Completed)
    assert events[-1].response.usage == expected


def test_a_retried_request_bills_both_attempts_tokens() -> None:
    first = Usage(100, 10, 110, 80, None)
    second = Usage(100, 20, 120, 100, 5)
    assert first + second == Usage(200, 30, 230, 180, 5)
    assert (first + second).to_json() == {
        "prompt_tokens": 200,
        "completion_tokens": 30,
        "total_tokens": 230,
        "cached_tokens": 180,
        "reasoning_tokens": 5,
    }
    assert Usage(1, 2, 3).to_json() == {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}


@pytest.mark.parametrize(
    "raw",
    [
        {"prompt_tokens": None, "completion_tokens": None, "total_tokens": None},
        {"prompt_tokens_details": {"cached_tokens": 5}},
        {},
    ],
)
def test_a_usage_block_without_counts_is_no_usage(raw: dict[str, Any]) -> None:
    assert normalise_usage(WireUsage(**raw)) is None


def test_nonsense_detail_counts_are_ignored_and_cached_never_exceeds_prompt() -> None:
    usage = normalise_usage(
        WireUsage(
            prompt_tokens=10,
            completion_tokens=1,
            total_tokens=11,
            prompt_tokens_details={"cached_tokens": 50},
            completion_tokens_details={"reasoning_tokens": True},
        )
    )
    assert usage == Usage(10, 1, 11, 10, None)
    usage = normalise_usage(
        WireUsage(prompt_tokens=10, completion_tokens=1, prompt_tokens_details={"cached_tokens": "seven"})
    )
    assert usage == Usage(10, 1, 11, None, None)
    usage = normalise_usage(  # a whole count written as text counts, here as at the top level
        WireUsage(prompt_tokens=10, completion_tokens=1, prompt_tokens_details={"cached_tokens": "7"})
    )
    assert usage == Usage(10, 1, 11, 7, None)


def test_a_float_count_is_a_whole_count_on_both_paths() -> None:
    raw = {
        "choices": [],
        "usage": {"prompt_tokens": 12.0, "completion_tokens": "3", "total_tokens": 15, "prompt_cache_miss_tokens": 2},
    }
    # Usage is metadata: neither path refuses a chunk for it; the normaliser reads 12.0 and "3" as whole counts.
    for chunk in (decode_chunk(json.dumps(raw)), validate_chunk(raw)):
        assert chunk is not None and chunk.usage is not None and chunk.usage.prompt_cache_miss_tokens == 2
        assert normalise_usage(chunk.usage) == Usage(12, 3, 15, None, None)


async def test_a_retried_stream_s_tokens_are_added_to_the_answer_s(model_server: ModelServer) -> None:
    """The first attempt streams text and its usage, then the server reports an overload inside the stream: the
    client retries, and the answer's usage counts both attempts (the provider billed both)."""
    failed = "".join(
        [
            ev(oa({"role": "assistant", "content": "So"})),
            ev(
                _usage_chunk(
                    {
                        "prompt_tokens": 500,
                        "completion_tokens": 7,
                        "total_tokens": 507,
                        "prompt_tokens_details": {"cached_tokens": 384},
                    }
                )
            ),
            ev({"object": "error", "message": "The engine is overloaded", "type": "InternalServerError", "code": 503}),
        ]
    ).encode()
    body, _ = SHAPES["openai_details"]
    model_server.add(
        Scripted(200, {"content-type": "text/event-stream"}, failed),
        Scripted(200, {"content-type": "text/event-stream"}, body),
    )
    policy = RetryPolicy(max_retries=2, time_scale=0.0)
    async with ModelClient(model_server.base_url, "m", retry_policy=policy) as client:
        events = [e async for e in client.stream(MESSAGES, [])]
    response = events[-1].response
    assert response.content == "ok" and response.attempts == 2
    assert response.usage == Usage(2506, 307, 2813, 2304, 128)
