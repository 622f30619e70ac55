"""Model and server input built to break things: one bad response must never end a run or the app.

Lone surrogates and absurd nesting in tool arguments or in a streamed chunk, and random chunk shapes (hypothesis).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.client.arguments import parse_arguments
from engine.client.assembly import StreamAssembler
from engine.client.sse import SSEEvent
from engine.json_depth import too_deep
from engine.run_request import RunRequest
from tests.engine.loop_support import IDS, collect, kinds, selected_texts, settings_for, write_chapter
from tests.engine.test_cli_run import run_cli
from tests.support.model_server import SSE_HEADERS, ModelServer, Scripted, chunk, sse, text_reply, tool_reply

A1, A3 = IDS[0], IDS[2]


def _batch(text: str) -> str:
    return '{"paragraphs": [{"paragraph_id": "' + A1 + '", "translated_text": "' + text + '"}]}'


async def test_a_lone_surrogate_in_arguments_is_refused_and_the_run_goes_on(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    model_server.add(
        tool_reply([("add_translation_batch", _batch("a\\ud800b"))]),  # half of a surrogate pair
        tool_reply([("get_paragraph_info", '{"paragraph_id": "a\\udc00"}')]),
        tool_reply([("add_translation_batch", _batch("One"))]),
        text_reply("Done."),
    )
    events = await collect(RunRequest(path, "translate", settings_for(model_server.base_url), max_turns=4))
    results = kinds(events, "tool_result")
    assert [r.error_code for r in results[:2]] == ["INVALID_ARGUMENTS", "INVALID_ARGUMENTS"]
    assert (
        "broken character" in results[0].result["error"]
        and "paragraphs.0.translated_text" in results[0].result["error"]
    )
    assert results[2].success and selected_texts(path)[A1] == "One"
    assert events[-1].kind == "run_finished" and events[-1].status != "failed"
    trace = Path(events[-1].summary.trace)
    assert all(json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines())  # every line readable


async def test_thousand_deep_arguments_are_refused_not_a_recursion_error(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    deep = '{"paragraph_id": ' + "[" * 1000 + "]" * 1000 + "}"
    model_server.add(tool_reply([("get_paragraph_info", deep)]), text_reply("Done."))
    events = await collect(RunRequest(path, "translate", settings_for(model_server.base_url), max_turns=2))
    (result,) = kinds(events, "tool_result")
    assert result.error_code == "INVALID_ARGUMENTS" and "nest more than 64 levels" in result.result["error"]
    assert events[-1].kind == "run_finished" and not kinds(events, "error")


@pytest.mark.slow
async def test_a_deeply_nested_unknown_field_in_a_chunk_fails_the_response_not_the_run(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    bomb = chunk({"content": "x"}, junk=json.loads("[" * 60 + "]" * 60)) | {}
    body = (
        sse([chunk({"role": "assistant", "content": ""}), bomb])
        .replace(b"[[[[", b"[[[[" * 300, 1)
        .replace(b"]]]]", b"]]]]" * 300, 1)
    )
    for _ in range(3):  # a server error: retried twice, then the chunk fails
        model_server.add(Scripted(200, dict(SSE_HEADERS), body))
    model_server.add(tool_reply([("add_translation_batch", json.loads(_batch("One")))]), text_reply("Done."))
    events = await collect(RunRequest(path, "translate", settings_for(model_server.base_url), chunk_chars=300))
    errors = [e for e in kinds(events, "error") if e.code != "REVERTED_ON_DISK"]
    assert errors and all("nested more than 64 levels" in e.message for e in errors)
    assert events[-1].kind == "run_finished" and "INTERNAL_ERROR" not in {e.code for e in errors}


@pytest.mark.parametrize(
    ("text", "deep"),
    [
        ("[" * 65 + "]" * 65, True),
        ("[" * 64 + "]" * 64, False),
        ('{"a": "' + "[" * 500 + '"}', False),  # brackets inside a string do not nest
        ('{"a": "\\"' + "{" * 100 + '"}', False),  # nor after an escaped quote
        ("[]" * 10_000, False),  # many, but flat
    ],
)
def test_depth_is_counted_outside_strings(text: str, deep: bool) -> None:
    assert too_deep(text) is deep
    if not deep and text.startswith("{"):
        assert parse_arguments(text).arguments is not None


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)
_FIELDS = [
    "choices",
    "delta",
    "content",
    "tool_calls",
    "function",
    "arguments",
    "index",
    "id",
    "usage",
    "finish_reason",
    "error",
    "x_groq",
    "object",
    "reasoning_content",
    "prompt_tokens_details",
]


def _plant(value: Any, keys: list[str], payload: Any) -> Any:
    """``payload`` planted at a path of well-known field names, so the fuzz reaches the assembler's branches."""
    for key in reversed(keys):
        payload = {key: payload} if key not in ("choices", "tool_calls") else [{key: payload}]
    return payload if value is None else {"choices": [{"delta": payload}], "junk": value}


@pytest.mark.slow  # hypothesis
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_json, st.lists(st.sampled_from(_FIELDS), max_size=4), _json), min_size=1, max_size=6))
def test_random_chunk_shapes_never_raise(chunks: list[tuple[Any, list[str], Any]]) -> None:
    assembler = StreamAssembler()
    for value, keys, payload in chunks:
        data = json.dumps(_plant(value, keys, payload))
        assembler.feed(SSEEvent("message", data, None, None))
    response = assembler.finish(1.0)
    assert response.finish_reason in {"stop", "tool_calls", "length", "content_filter", "error"}


@pytest.mark.slow  # the installed binary
def test_check_model_on_deep_json_is_one_clear_answer(tmp_path: Path, model_server: ModelServer) -> None:
    deep_args = '{"paragraph_id": ' + "[" * 3000 + "]" * 3000 + "}"
    model_server.add(tool_reply([("get_paragraph_info", deep_args)]))
    done = run_cli("check-model", "--base-url", model_server.base_url, "--model", "m", "--json", cwd=tmp_path)
    assert "Traceback" not in done.stderr and done.returncode == 1, done.stderr
    (call,) = json.loads(done.stdout)["tool_calls"]
    assert call["arguments"] is None and call["executable"] is False
