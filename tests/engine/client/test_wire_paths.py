"""The two ways a chunk is decoded (engine/client/wire.py): msgspec's strict fast path and the lax slow path.

Whatever the fast path accepts, the slow path (``json`` + pydantic's lax mode, the behaviour before msgspec) must
read the same; what it refuses must reach the slow path, which keeps accepting the looser shapes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.client.assembly import StreamAssembler
from engine.client.sse import SSEDecoder, SSEEvent
from engine.client.usage import normalise_usage
from engine.client.wire import MalformedChunk, WireChunk, WireToolCall, decode_chunk, validate_chunk
from tests.engine.client.test_transcripts import ALL

ROOT = Path(__file__).resolve().parents[3]


def _datas() -> list[str]:
    found = []
    for transcript in ALL:
        decoder = SSEDecoder()
        events = decoder.feed(transcript.body) + decoder.close()
        found += [event.data for event in events if event.data[:1] == "{"]
    return found


def _same(data: str) -> WireChunk | None:
    """The fast path's chunk, checked against the slow path's; None when the fast path refused it."""
    fast = decode_chunk(data)
    if fast is None:
        return None
    try:
        payload = json.loads(data)
    except ValueError:
        pytest.fail(f"msgspec read what json cannot: {data!r}")
    assert validate_chunk(payload) == fast, data
    return fast


def test_every_transcript_chunk_reads_the_same_on_both_paths() -> None:
    datas = _datas()
    accepted = [data for data in datas if _same(data) is not None]
    assert len(accepted) > 0.9 * len(datas)  # the fast path is the common one


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ('{"choices":[{"index":"0","delta":{"content":"a"}}]}', "index as a numeric string"),
        ('{"choices":[{"index":true,"delta":{"content":"a"}}]}', "index as a boolean"),
        ('{"choices":[{"index":0.0,"delta":{"content":"a"}}]}', "index as a float"),
        ('{"choices":[{"delta":{"content":"\\ud83d"}}]}', "a lone surrogate escape"),
        ('{"usage":{"prompt_tokens":NaN}}', "NaN"),
        ('["not", "an", "object"]', "not an object"),
        ('{"choices":[{"delta":{"content":"a"}}]} trailing', "text after the object"),
    ],
)
def test_odd_shapes_take_the_slow_path(data: str, why: str) -> None:
    assert decode_chunk(data) is None, why


def test_the_slow_path_accepts_the_looser_types() -> None:
    chunk = validate_chunk(
        {
            "choices": [
                {"index": "0", "delta": {"tool_calls": {"index": True, "id": 7, "function": {"arguments": {"a": 1}}}}}
            ],
            "usage": {"prompt_tokens": 10.0, "completion_tokens": "5"},
        }
    )
    assert chunk.choices is not None and chunk.choices[0].index == 0
    call = chunk.choices[0].delta.tool_calls  # type: ignore[union-attr]
    assert isinstance(call, WireToolCall) and (call.index, call.id, call.function.arguments) == (1, 7, {"a": 1})
    # Usage stays as sent (metadata, never a reason to refuse a chunk); the normaliser reads 10.0 and "5" as counts.
    usage = normalise_usage(chunk.usage) if chunk.usage is not None else None
    assert usage is not None and (usage.prompt_tokens, usage.completion_tokens) == (10, 5)


def test_a_malformed_chunk_names_the_place() -> None:
    with pytest.raises(MalformedChunk) as caught:
        validate_chunk({"choices": [{"delta": {"content": 5}}]})
    assert caught.value.where.startswith("choices.0.delta.content")
    assembler = StreamAssembler()
    assembler.feed(SSEEvent("message", '{"choices":[{"delta":{"content":5}}]}'))
    response = assembler.finish(0.0)
    assert response.error is not None and "malformed chunk (choices.0.delta.content" in response.error


def test_a_lone_surrogate_still_joins_its_partner_through_the_slow_path() -> None:
    assembler = StreamAssembler()
    for part in ("\\ud83d", "\\ude00!"):
        assembler.feed(SSEEvent("message", '{"choices":[{"delta":{"content":"' + part + '"}}]}'))
    assembler.feed(SSEEvent("message", '{"choices":[{"delta":{},"finish_reason":"stop"}]}'))
    assert assembler.finish(0.0).content == "😀!"


@pytest.mark.slow  # a fresh interpreter
def test_the_lax_models_are_built_only_when_a_chunk_needs_them() -> None:
    code = """
import sys
from engine.client.assembly import StreamAssembler
from engine.client.usage import normalise_usage
from engine.client.sse import SSEEvent
from engine.client.wire import _lax_chunk_model
assembler = StreamAssembler()
assembler.feed(SSEEvent("message", '{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}'))
print(_lax_chunk_model.cache_info().currsize)
assembler.feed(SSEEvent("message", '{"choices":[{"index":"0","delta":{"content":"b"}}]}'))
print(_lax_chunk_model.cache_info().currsize)
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["0", "1"]


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.integers(2**62, 2**66),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "0", "1", " 1", "a", "1.0"]),
    st.text(max_size=4),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["text", "type", "x"]), inner, max_size=2)
    ),
    max_leaves=6,
)


def _fields(names: list[str], nested: dict[str, st.SearchStrategy[Any]] | None = None) -> st.SearchStrategy[Any]:
    values = {name: (nested or {}).get(name, _VALUES) for name in names}
    return st.fixed_dictionaries({}, optional=values)


_FUNCTION = _fields(["name", "arguments"])
_CALL = _fields(["index", "id", "type", "function", "extra_content"], {"function": st.one_of(_FUNCTION, _VALUES)})
_DELTA = _fields(
    ["role", "content", "refusal", "reasoning_content", "reasoning", "tool_calls", "function_call"],
    {"tool_calls": st.one_of(st.lists(_CALL, max_size=2), _CALL, _VALUES)},
)
_CHOICE = _fields(["index", "delta", "finish_reason"], {"delta": st.one_of(_DELTA, _VALUES)})
_USAGE = _fields(["prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details"])
_CHUNK = _fields(
    ["object", "choices", "usage", "error", "detail"],
    {"choices": st.one_of(st.lists(_CHOICE, max_size=2), _VALUES), "usage": st.one_of(_USAGE, _VALUES)},
)


@settings(max_examples=400, deadline=None)
@given(_CHUNK)
def test_whatever_the_fast_path_accepts_the_slow_path_reads_the_same(payload: dict[str, Any]) -> None:
    _same(json.dumps(payload, ensure_ascii=False))
