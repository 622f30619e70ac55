"""Assembling tool-call arguments reads each fragment once, whatever a hostile stream repeats (issue 17 item 9).

A stream that repeats the function name on every fragment and starts every fragment with ``{`` makes the
assembler ask, fragment after fragment, whether the arguments so far already form an object (then the fragment
would open a new call). That question must not re-join and re-parse everything each time.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.client import assembly
from engine.client.assembly import StreamAssembler
from engine.client.call_in_progress import BracketScan
from engine.client.sse import SSEEvent


def _event(fragment: str, name: str | None = "get_paragraph_info") -> SSEEvent:
    function: dict[str, Any] = {"arguments": fragment}
    if name:
        function["name"] = name
    payload = {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": function}]}}]}
    return SSEEvent("message", json.dumps(payload))


def _parses(monkeypatch: pytest.MonkeyPatch, fragments: list[str]) -> tuple[int, Any]:
    calls = {"n": 0}
    real = json.loads

    def counting(text: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(text, str) and len(text) > 1000:  # the arguments, not the small SSE chunks
            calls["n"] += 1
        return real(text, *args, **kwargs)

    monkeypatch.setattr(assembly.json, "loads", counting)
    assembler = StreamAssembler()
    for fragment in fragments:
        assembler.feed(_event(fragment))
    monkeypatch.setattr(assembly.json, "loads", real)
    return calls["n"], assembler.finish(1.0)


@pytest.mark.parametrize("count", [1_000, 8_000])
def test_a_named_brace_on_every_fragment_is_not_reparsed(monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    # inside a string: never balanced, so never parsed while streaming
    fragments = ['{"paragraph_id": "'] + ["{abcdefghi" * 10] * count + ['"}']
    parses, response = _parses(monkeypatch, fragments)
    assert parses <= 2  # once at the end (the call itself), not once per fragment
    (call,) = response.tool_calls
    assert len(call.arguments["paragraph_id"]) == 100 * count


def test_a_balanced_broken_prefix_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # balanced but not JSON after the first kilobytes: one full parse says so, and growing cannot repair it
    fragments = ['{"a": "' + "x" * 2000 + '", oops}'] + ["{1}"] * 5_000
    parses, response = _parses(monkeypatch, fragments)
    assert parses <= 3
    assert response.tool_calls[0].error_code == "INVALID_ARGUMENTS"


_texts = st.lists(
    st.sampled_from(["{", "}", "[", "]", '"', "\\", "a", ":", ",", " ", '\\"', "\\\\", '{"k":"v"}']), max_size=40
).map("".join)


@pytest.mark.slow  # hypothesis
@given(_texts, st.lists(st.integers(min_value=0, max_value=40), max_size=5))
def test_the_scan_does_not_depend_on_where_the_stream_was_cut(text: str, cuts: list[int]) -> None:
    points = sorted({min(c, len(text)) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    whole, cut = BracketScan(), BracketScan()
    assert whole.feed([text]) == cut.feed(pieces)
    growing = BracketScan()
    result = growing.feed([])
    for n in range(1, len(pieces) + 1):  # fed as they arrive, each read once: the same answer at the end
        result = growing.feed(pieces[:n])
    assert result == BracketScan().feed([text])


@pytest.mark.slow  # hypothesis
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=6),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    ).filter(lambda v: isinstance(v, dict)),
    st.integers(min_value=1, max_value=9),
)
def test_a_whole_object_in_any_pieces_is_balanced(value: dict[str, Any], size: int) -> None:
    text = json.dumps(value)
    scan = BracketScan()
    assert scan.feed([text[i : i + size] for i in range(0, len(text), size)])
