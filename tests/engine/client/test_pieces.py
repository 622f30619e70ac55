"""The client's small parts: finish reasons, argument parsing/repair, <think> splitting, retry policy, messages."""

from __future__ import annotations

import email.utils
import json

import pytest

from engine.client.arguments import parse_arguments, split_concatenated, unwrap_parallel
from engine.client.assembly import StreamAssembler
from engine.client.errors import public_url, redact, sentence
from engine.client.failure import classify
from engine.client.final_calls import new_tool_call_id
from engine.client.finish import normalise_finish_reason
from engine.client.response import AssembledResponse, ToolCall
from engine.client.retry import RetryPolicy, server_delay
from engine.client.sse import SSEEvent
from engine.client.text_stream import fix_surrogates
from engine.client.think import ThinkSplitter

# -- finish reasons ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "tools", "want"),
    [
        ("stop", False, "stop"),
        ("stop", True, "tool_calls"),
        ("eos", False, "stop"),
        ("eos_token", True, "tool_calls"),
        ("end_turn", False, "stop"),
        ("tool_calls", True, "tool_calls"),
        ("tool_calls", False, "stop"),
        ("function_call", True, "tool_calls"),
        ("tool_use", True, "tool_calls"),
        ("length", True, "length"),
        ("MAX_TOKENS", False, "length"),
        ("content_filter", False, "content_filter"),
        ("SAFETY", False, "content_filter"),
        ("sensitive", False, "content_filter"),
        ("error", False, "error"),
        ("MALFORMED_FUNCTION_CALL", True, "error"),
        ("insufficient_system_resource", False, "error"),
        (None, False, "error"),
        (None, True, "error"),
        ("some_future_value", False, "stop"),
        ("some_future_value", True, "tool_calls"),
    ],
)
def test_finish_reason_normalisation(raw: str | None, tools: bool, want: str) -> None:
    assert normalise_finish_reason(raw, has_tool_calls=tools) == want


# -- arguments -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "arguments", "repaired"),
    [
        ('{"a": 1}', {"a": 1}, False),
        ("", {}, False),
        ("  ", {}, False),
        ('{"a":"x \\u0026 y"}', {"a": "x & y"}, False),
        ('```json\n{"a": 1}\n```', {"a": 1}, True),
        ('{"a": 1} trailing', {"a": 1}, True),
        ("{'a': 1}", {"a": 1}, True),
        ('"{\\"a\\": 1}"', {"a": 1}, True),
        ("{}", {}, False),
        # syntax around complete values: trailing commas, a Python literal, a missing final brace after a closed string
        ('{"a": [1, 2,],}', {"a": [1, 2]}, True),
        ("{'a': True, 'b': None}", {"a": True, "b": None}, True),
        ('{"a": "x"', {"a": "x"}, True),
        ('{"p": [{"id": "x", "t": "done"}', {"p": [{"id": "x", "t": "done"}]}, True),
        ('{"a": {"b": true}', {"a": {"b": True}}, True),
        ('```json\n{"a": "x"}', {"a": "x"}, True),
    ],
)
def test_arguments_parsed_or_repaired(raw: str, arguments: dict, repaired: bool) -> None:
    parsed = parse_arguments(raw)
    assert (parsed.arguments, parsed.repaired, parsed.error) == (arguments, repaired, None)


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        ("please read it", "could not be repaired"),
        ("[1, 2]", "not an array"),
        ('"text"', "not a string"),
        ("42", "not a number"),
        ("null", "not null"),
        ("true", "not a boolean"),
    ],
)
def test_arguments_refused(raw: str, error: str) -> None:
    parsed = parse_arguments(raw)
    assert parsed.arguments is None and error.split("not ")[-1] in (parsed.error or "")


def test_no_repair_when_not_allowed() -> None:
    parsed = parse_arguments("{'text': 'Once'}", allow_repair=False)
    assert parsed.arguments is None and parsed.error == "the arguments are not valid JSON"
    assert parsed.error_code == "INVALID_ARGUMENTS"
    assert parse_arguments('{"a": 1}', allow_repair=False).arguments == {"a": 1}


@pytest.mark.parametrize(
    "raw",
    [
        # cut inside a string: never closed, whatever the finish reason said
        '{"paragraphs":[{"paragraph_id":"p-0712","translated_text":"The rain gathered the sound from far a',
        '{"paragraph_id": "p-0600", "cou',  # cut inside a key: the key would be lost
        '{"paragraph_id": "p-0600", "count"',  # cut after a key: the key would be lost or get an invented value
        '{"paragraph_id": "p-0600", "count":',  # cut after the colon
        '{"paragraph_id": "p-0600",',  # cut after a comma
        '{"a": 1',
        '{"ids": [1, 2',  # a number at the very end may itself be cut ("1" of "12")
        "{'text': 'single quoted and cut",
        '{"a": "escaped quote \\" still open',
        '```json\n{"a": "cut inside a fence',
    ],
)
def test_cut_off_arguments_are_truncated_never_repaired(raw: str) -> None:
    for allow in (True, False):
        parsed = parse_arguments(raw, allow_repair=allow)
        assert parsed.arguments is None and parsed.error_code == "ARGUMENTS_TRUNCATED", (raw, parsed)


def test_repair_that_would_change_the_keys_is_refused() -> None:
    # json_repair turns a colon inside an unquoted value into structure: the key count no longer matches.
    parsed = parse_arguments("{a: http://x, b: 2}")
    assert parsed.arguments is None and parsed.error_code == "INVALID_ARGUMENTS"


def test_prose_before_the_object_is_not_repaired() -> None:
    parsed = parse_arguments('Here you go: {"a": "x"}')
    assert parsed.arguments is None and parsed.error_code == "INVALID_ARGUMENTS"


def test_split_concatenated_objects() -> None:
    assert split_concatenated('{"a":1}{"b":2}') == ['{"a":1}', '{"b":2}']
    assert split_concatenated('{"a":1}\n {"b":{"c":[1]}}') == ['{"a":1}', '{"b":{"c":[1]}}']
    assert split_concatenated('{"a":1}') is None
    assert split_concatenated('{"a":1} trailing') is None
    assert split_concatenated('{"a":1}[2]') is None


def test_unwrap_parallel_wrapper() -> None:
    wrapped = {
        "tool_uses": [
            {"recipient_name": "functions.a", "parameters": {"x": 1}},
            {"recipient_name": "b", "parameters": {}},
        ]
    }
    assert unwrap_parallel("multi_tool_use.parallel", wrapped) == [("a", {"x": 1}), ("b", {})]
    assert unwrap_parallel("read_file", wrapped) is None
    assert unwrap_parallel("multi_tool_use.parallel", {"tool_uses": "x"}) is None


def test_generated_ids_are_mistral_shaped_and_distinct() -> None:
    ids = {new_tool_call_id() for _ in range(2000)}
    assert len(ids) == 2000 and all(len(i) == 9 and i.isalnum() and i.isascii() for i in ids)


def test_surrogate_halves_are_joined_and_lone_ones_replaced() -> None:
    assert fix_surrogates("a\ud83d\ude00b") == "a😀b"
    assert fix_surrogates("a\ud83db") == "a\ufffdb"
    assert fix_surrogates("plain") == "plain"


# -- <think> -------------------------------------------------------------------------------------------------------


def test_think_tags_split_at_every_position() -> None:
    text = "<think>a < b</think>Answer <thinking> stays</think> tail"
    for cut in range(len(text) + 1):
        splitter = ThinkSplitter()
        pieces = splitter.feed(text[:cut]) + splitter.feed(text[cut:]) + splitter.flush()
        answer = "".join(p for inside, p in pieces if not inside)
        thought = "".join(p for inside, p in pieces if inside)
        assert (thought, answer) == ("a < b", "Answer <thinking> stays</think> tail"), cut


# -- retry policy --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "headers", "code", "want"),
    [
        (408, {}, None, True),
        (409, {}, None, True),
        (429, {}, None, True),
        (500, {}, None, True),
        (529, {}, None, True),
        (400, {}, None, False),
        (401, {}, None, False),
        (402, {}, None, False),
        (403, {}, None, False),
        (404, {}, None, False),
        (422, {}, None, False),
        (429, {}, "insufficient_quota", False),
        (503, {"x-should-retry": "false"}, None, False),
        (400, {"x-should-retry": "true"}, None, True),
    ],
)
def test_status_retryable(status: int, headers: dict, code: str | None, want: bool) -> None:
    assert classify("", status=status, code=code, headers=headers)[1] is want


@pytest.mark.parametrize(
    ("message", "code", "error_type", "want"),
    [
        ("request (8244 tokens) exceeds the available context size (8192 tokens)", None, None, "context_overflow"),
        ("This model's maximum context length is 8192 tokens", None, "invalid_request_error", "context_overflow"),
        ("too many tokens in the prompt", None, None, "context_overflow"),
        ("anything", "context_length_exceeded", None, "context_overflow"),
        ("You exceeded your current quota", None, None, "quota"),
        ("model runner has unexpectedly stopped", None, None, "server_error"),
        ("upstream closed the connection", None, None, "upstream_closed"),
        ("The engine is overloaded", None, "InternalServerError", "overloaded"),
        ("bad", None, "BadRequestError", "invalid_request"),
        ("slow down", "rate_limit_exceeded", None, "rate_limit"),
    ],
)
def test_in_stream_errors_without_status_are_classified_by_code_and_words(
    message: str, code: str | None, error_type: str | None, want: str
) -> None:
    assert classify(message, code=code, error_type=error_type)[0] == want


def test_server_delay_sources_in_order() -> None:
    assert server_delay({"retry-after-ms": "250", "retry-after": "3"}, 9.0) == 0.25
    assert server_delay({"retry-after": "3"}, 9.0) == 3.0
    assert server_delay({"retry-after": "1.5"}) == 1.5
    assert server_delay({}, 34.4) == 34.4
    assert server_delay({}) is None
    assert server_delay({"retry-after": "soon"}) is None
    when = email.utils.formatdate(1_000_030, usegmt=True)
    assert server_delay({"retry-after": when}, now=lambda: 1_000_000.0) == pytest.approx(30.0)


def test_backoff_and_limits() -> None:
    low, high = RetryPolicy(random=lambda: 1.0), RetryPolicy(random=lambda: 0.0)
    assert [low.backoff(n) for n in range(6)] == [0.375, 0.75, 1.5, 3.0, 6.0, 6.0]
    assert [high.backoff(n) for n in range(6)] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
    assert high.delay(0, 120.0) == 120.0 and high.delay(0, 120.5) is None
    assert high.delay(1, 0.0) == 1.0 and high.delay(1, -4.0) == 1.0  # past dates fall back to backoff


# -- messages ------------------------------------------------------------------------------------------------------


def test_public_url_drops_credentials_query_and_fragment() -> None:
    assert public_url("https://user:sk-x@api.example.com:8443/v1/?key=sk-y#f") == "https://api.example.com:8443/v1"
    assert public_url("http://[::1]:11434/v1") == "http://[::1]:11434/v1"


def test_redact_and_sentence() -> None:
    assert redact("bad key sk-abcdef", "sk-abcdef") == "bad key [redacted]"
    assert redact("text", None) == "text"
    assert sentence("  two\nlines  ") == "two lines."
    assert sentence("x" * 400).endswith("…") and len(sentence("x" * 400)) == 300


def test_assistant_message_shapes() -> None:
    call = ToolCall("c1", "submit", '{"a": 1', {"a": 1}, None, True)
    broken = ToolCall("c2", "submit", "nonsense", None, "the arguments are not valid JSON")
    response = AssembledResponse(
        "", "", (call, broken), "tool_calls", "tool_calls", None, None, 1.0, message_fields={"reasoning_content": "r"}
    )
    message = response.assistant_message()
    assert message["content"] is None and message["reasoning_content"] == "r"
    assert [json.loads(c["function"]["arguments"]) for c in message["tool_calls"]] == [{"a": 1}, {}]
    text_only = AssembledResponse("Hi", "", (), "stop", "stop", None, None, 1.0)
    assert text_only.assistant_message() == {"role": "assistant", "content": "Hi"}
    assert text_only.ok and not broken.executable and call.executable


def test_calls_of_a_filtered_or_failed_response_are_not_executable() -> None:
    for reason, why in (("content_filter", "content filter"), ("length", "token limit"), ("error", "error")):
        assembler = StreamAssembler()
        for payload in (
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {"index": 0, "id": "c", "function": {"name": "submit", "arguments": '{"a": 1}'}}
                            ]
                        },
                    }
                ]
            },
            {"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]},
        ):
            assembler.feed(SSEEvent("message", json.dumps(payload)))
        (call,) = assembler.finish(1.0).tool_calls
        assert call.arguments == {"a": 1} and not call.executable and why in (call.error or "")
