"""ModelClient against the real scripted server: request shape, retries, timeouts, broken streams, error messages."""

from __future__ import annotations

import email.utils
import json
import logging
import time
from dataclasses import dataclass, field

import pytest

from engine.client import (
    Completed,
    ModelClient,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelStreamError,
    ModelTimeoutError,
    RetryPolicy,
    RetryScheduled,
    TextDelta,
)
from engine.client.events import StreamEvent
from tests.support.model_server import (
    DROP,
    SSE_HEADERS,
    ModelServer,
    Scripted,
    chunk,
    closed_port,
    sse,
    text_chunks,
    text_reply,
)

MESSAGES = [{"role": "user", "content": "Translate."}]
TOOLS = [
    {
        "type": "function",
        "function": {"name": "read_file", "description": "Read.", "parameters": {"type": "object", "properties": {}}},
    }
]
CANARY = "sk-canary-7f3e9d2c1b0a"


@dataclass(frozen=True)
class RecordingPolicy(RetryPolicy):
    """The real policy, with the sleeps recorded and scaled down so tests stay fast."""

    slept: list[float] = field(default_factory=list)

    async def sleep(self, delay_s: float) -> None:
        self.slept.append(delay_s)
        await super().sleep(delay_s)


def policy(**kwargs: object) -> RecordingPolicy:
    return RecordingPolicy(time_scale=0.001, **kwargs)  # type: ignore[arg-type]


async def collect(client: ModelClient) -> list[StreamEvent]:
    return [event async for event in client.stream(MESSAGES, TOOLS)]


async def fails(client: ModelClient) -> tuple[ModelError, list[StreamEvent]]:
    events: list[StreamEvent] = []
    with pytest.raises(ModelError) as caught:
        async for event in client.stream(MESSAGES, TOOLS):
            events.append(event)
    return caught.value, events


# -- the request -------------------------------------------------------------------------------------------------


async def test_request_body_and_headers(model_server: ModelServer) -> None:
    model_server.add_text("ok")
    async with ModelClient(
        model_server.base_url + "/",
        "qwen3:8b",
        api_key=CANARY,
        temperature=0.2,
        extra_headers={"X-Title": "proofdesk"},
        extra_body={"top_p": 0.9, "stream_options": None},
    ) as client:
        await collect(client)
    (request,) = model_server.requests
    assert request.method == "POST" and request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {CANARY}"
    assert request.headers["x-title"] == "proofdesk"
    assert "text/event-stream" in request.headers["accept"]
    body = request.json
    assert body["model"] == "qwen3:8b" and body["messages"] == MESSAGES and body["tools"] == TOOLS
    assert body["stream"] is True and body["temperature"] == 0.2 and body["top_p"] == 0.9
    assert "stream_options" not in body  # extra_body None removes a key (servers that reject it)


async def test_default_body_asks_for_usage_and_sends_no_authorization_without_key(model_server: ModelServer) -> None:
    model_server.add_text("ok")
    async with ModelClient(model_server.base_url, "m") as client:
        await collect(client)
    (request,) = model_server.requests
    assert "authorization" not in request.headers
    assert request.json["stream_options"] == {"include_usage": True}
    assert "temperature" not in request.json


async def test_assistant_message_round_trip_keeps_reasoning_and_signatures(model_server: ModelServer) -> None:
    sig = {"google": {"thought_signature": "c2ln"}}
    model_server.add(
        Scripted(
            200,
            SSE_HEADERS,
            sse(
                [
                    chunk({"role": "assistant", "content": None, "reasoning_content": "Need the file."}),
                    chunk(
                        {
                            "tool_calls": [
                                {
                                    "index": 0,
                                    "id": "call_1",
                                    "type": "function",
                                    "extra_content": sig,
                                    "function": {"name": "read_file", "arguments": '{"path": "a"}'},
                                }
                            ]
                        }
                    ),
                    chunk({}, "tool_calls"),
                ]
            ),
        )
    )
    model_server.add_text("Done.")
    async with ModelClient(model_server.base_url, "deepseek-reasoner") as client:
        first = (await collect(client))[-1]
        assert isinstance(first, Completed)
        message = first.response.assistant_message()
        history = [*MESSAGES, message, {"role": "tool", "tool_call_id": "call_1", "content": "text"}]
        await client.stream(history, TOOLS).__anext__()
    assert message == {
        "role": "assistant",
        "content": None,
        "reasoning_content": "Need the file.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "extra_content": sig,
                "function": {"name": "read_file", "arguments": '{"path": "a"}'},
            }
        ],
    }
    assert model_server.requests[1].json["messages"][1] == message


# -- retries -----------------------------------------------------------------------------------------------------


async def test_429_then_503_then_success_honours_server_delays(model_server: ModelServer) -> None:
    model_server.add_error(429, "Rate limit reached", headers={"retry-after-ms": "1500", "retry-after": "9"})
    model_server.add_error(503, "Overloaded", headers={"retry-after": "2"})
    model_server.add_text("Finally.")
    retry = policy()
    async with ModelClient(model_server.base_url, "m", retry_policy=retry) as client:
        events = await collect(client)
    retries = [e for e in events if isinstance(e, RetryScheduled)]
    assert [(r.attempt, r.delay_s) for r in retries] == [(1, 1.5), (2, 2.0)]
    assert "429" in retries[0].reason and "Rate limit reached" in retries[0].reason
    assert "503" in retries[1].reason
    assert retry.slept == [1.5, 2.0]
    final = events[-1]
    assert isinstance(final, Completed) and final.response.content == "Finally." and final.response.attempts == 3
    assert len(model_server.requests) == 3
    assert model_server.requests[0].body == model_server.requests[2].body  # the same request re-sent


async def test_retry_after_http_date_and_google_retry_info(model_server: ModelServer) -> None:
    when = email.utils.formatdate(time.time() + 5, usegmt=True)
    model_server.add_error(429, "Slow down", headers={"retry-after": when})
    google = [
        {
            "error": {
                "code": 429,
                "message": "Quota exceeded for metric",
                "status": "RESOURCE_EXHAUSTED",
                "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "34.4s"}],
            }
        }
    ]
    model_server.add(Scripted(429, {"content-type": "application/json"}, json.dumps(google).encode(), framing="length"))
    model_server.add_text("ok")
    retry = policy()
    async with ModelClient(model_server.base_url, "m", retry_policy=retry) as client:
        events = await collect(client)
    delays = [e.delay_s for e in events if isinstance(e, RetryScheduled)]
    assert 3.0 < delays[0] <= 5.0  # an HTTP date has one-second resolution
    assert delays[1] == pytest.approx(34.4)


async def test_backoff_without_server_hints(model_server: ModelServer) -> None:
    model_server.add_error(500, "boom").add_error(502, "boom").add_text("ok")
    async with ModelClient(model_server.base_url, "m", retry_policy=policy()) as client:
        events = await collect(client)
    delays = [e.delay_s for e in events if isinstance(e, RetryScheduled)]
    assert 0.375 <= delays[0] <= 0.5 and 0.75 <= delays[1] <= 1.0


async def test_server_delay_over_120_s_is_refused(model_server: ModelServer) -> None:
    model_server.add_error(429, "Come back later", headers={"retry-after": "600"})
    async with ModelClient(model_server.base_url, "m", retry_policy=policy()) as client:
        error, events = await fails(client)
    assert isinstance(error, ModelHTTPError) and error.status == 429 and error.retryable
    assert "600 s" in str(error) and not events and len(model_server.requests) == 1


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, None),
        (401, "invalid_api_key"),
        (402, None),
        (403, None),
        (404, "model_not_found"),
        (422, None),
        (429, "insufficient_quota"),
    ],
)
async def test_not_retried(model_server: ModelServer, status: int, code: str | None) -> None:
    model_server.add_error(status, f"Provider says no ({status})", code=code, error_type="invalid_request_error")
    model_server.add_text("never served")
    async with ModelClient(model_server.base_url, "m", retry_policy=policy()) as client:
        error, events = await fails(client)
    assert isinstance(error, ModelHTTPError) and error.status == status and not error.retryable
    assert f"HTTP {status}" in str(error) and f"Provider says no ({status})" in str(error)
    assert model_server.base_url in str(error)
    assert not events and len(model_server.requests) == 1


async def test_x_should_retry_header_overrides_status(model_server: ModelServer) -> None:
    model_server.add_error(503, "down", headers={"x-should-retry": "false"})
    model_server.add_error(400, "flaky", headers={"x-should-retry": "true"}).add_text("ok")
    async with ModelClient(model_server.base_url, "m", retry_policy=policy()) as client:
        error, _ = await fails(client)
        assert error.status == 503 and not error.retryable
        events = await collect(client)
    assert isinstance(events[-1], Completed) and len(model_server.requests) == 3


async def test_retries_exhausted(model_server: ModelServer) -> None:
    for _ in range(4):
        model_server.add_error(503, "Service overloaded")
    async with ModelClient(model_server.base_url, "m", max_retries=2, retry_policy=policy()) as client:
        error, events = await fails(client)
    assert error.retryable and error.status == 503 and "Service overloaded" in str(error)
    assert [e.attempt for e in events if isinstance(e, RetryScheduled)] == [1, 2]
    assert len(model_server.requests) == 3


async def test_connection_refused_is_retried_then_reported() -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    async with ModelClient(url, "m", retry_policy=policy()) as client:
        error, events = await fails(client)
    assert isinstance(error, ModelConnectionError) and error.retryable
    assert str(error).startswith(f"Could not connect to the model server at {url}")
    assert "\n" not in str(error) and "Traceback" not in str(error)
    assert len([e for e in events if isinstance(e, RetryScheduled)]) == 2


# -- timeouts and broken streams -----------------------------------------------------------------------------------


async def test_read_timeout_before_first_byte_is_retried(model_server: ModelServer) -> None:
    model_server.add(Scripted(200, SSE_HEADERS, sse(text_chunks("late")), delay_s=1.0))
    model_server.add_text("on time")
    async with ModelClient(model_server.base_url, "m", read_timeout=0.2, retry_policy=policy()) as client:
        events = await collect(client)
    retries = [e for e in events if isinstance(e, RetryScheduled)]
    assert len(retries) == 1 and "sent nothing for 0.2 s" in retries[0].reason
    assert isinstance(events[-1], Completed) and events[-1].response.content == "on time"


async def test_silence_after_headers_before_output_is_retried(model_server: ModelServer) -> None:
    model_server.add(Scripted(200, SSE_HEADERS, sse(text_chunks("x")), hang_after=0))
    model_server.add_text("second")
    async with ModelClient(model_server.base_url, "m", read_timeout=0.2, retry_policy=policy()) as client:
        events = await collect(client)
    assert isinstance(events[-1], Completed) and events[-1].response.content == "second"


async def test_read_timeout_mid_stream_without_budget_is_an_error_result(model_server: ModelServer) -> None:
    body = sse(text_chunks("Half of it then silence", piece=5))
    model_server.add(Scripted(200, SSE_HEADERS, body, split=40, hang_after=body.index(b"then")))
    model_server.add_text("must not be requested")
    async with ModelClient(model_server.base_url, "m", read_timeout=0.3, retry_policy=policy(max_retries=0)) as client:
        events = await collect(client)
    final = events[-1]
    assert isinstance(final, Completed)
    assert final.response.finish_reason == "error" and "sent nothing for 0.3 s" in (final.response.error or "")
    assert final.response.failure is not None and final.response.failure.type == "timeout"
    assert final.response.content.startswith("Half")
    assert not any(isinstance(e, RetryScheduled) for e in events)
    assert len(model_server.requests) == 1 and model_server.pending == 1


async def test_read_timeout_mid_stream_is_reissued_with_backoff(model_server: ModelServer) -> None:
    body = sse(text_chunks("Half of it then silence", piece=5))
    model_server.add(Scripted(200, SSE_HEADERS, body, split=40, hang_after=body.index(b"then")))
    model_server.add_text("whole answer")
    retry_policy = policy()
    async with ModelClient(model_server.base_url, "m", read_timeout=0.3, retry_policy=retry_policy) as client:
        events = await collect(client)
    retries = [e for e in events if isinstance(e, RetryScheduled)]
    assert len(retries) == 1 and "sent nothing for 0.3 s" in retries[0].reason
    assert len(retry_policy.slept) == 1 and 0.37 <= retry_policy.slept[0] <= 0.5  # backoff, not an instant re-issue
    final = events[-1]
    assert isinstance(final, Completed) and final.response.content == "whole answer"
    assert final.response.attempts == 2 and len(model_server.requests) == 2


async def test_connection_closed_mid_stream_is_an_error_result(model_server: ModelServer) -> None:
    body = sse(text_chunks("Broken stream here", piece=4))
    model_server.add(Scripted(200, SSE_HEADERS, body, split=30, close_after=body.index(b"trea")))
    async with ModelClient(model_server.base_url, "m", retry_policy=policy(max_retries=0)) as client:
        events = await collect(client)
    final = events[-1]
    assert isinstance(final, Completed) and final.response.finish_reason == "error"
    assert "connection broke" in (final.response.error or "")
    assert final.response.failure is not None and final.response.failure.type == "truncated_stream"
    assert [e.text for e in events if isinstance(e, TextDelta)]
    assert len(model_server.requests) == 1


async def test_connection_closed_before_output_is_retried(model_server: ModelServer) -> None:
    body = sse(text_chunks("x"))
    model_server.add(Scripted(200, SSE_HEADERS, body, close_after=10))  # inside the role chunk: no output yet
    model_server.add_text("again")
    async with ModelClient(model_server.base_url, "m", retry_policy=policy()) as client:
        events = await collect(client)
    assert isinstance(events[-1], Completed) and events[-1].response.content == "again"
    assert len(model_server.requests) == 2


async def test_stream_ending_cleanly_without_finish_reason_after_output(model_server: ModelServer) -> None:
    model_server.add(Scripted(200, SSE_HEADERS, sse([chunk({"content": "cut"})], done=False)))
    async with ModelClient(model_server.base_url, "m", retry_policy=policy(max_retries=0)) as client:
        events = await collect(client)
    final = events[-1]
    assert isinstance(final, Completed) and final.response.error == "the stream ended without a finish reason"


async def test_empty_200_stream_is_retried(model_server: ModelServer) -> None:
    model_server.add(Scripted(200, SSE_HEADERS, b": keep-alive\n\n"), Scripted(200, SSE_HEADERS, b"data: [DONE]\n\n"))
    model_server.add_text("third time")
    async with ModelClient(model_server.base_url, "m", retry_policy=policy()) as client:
        events = await collect(client)
    assert isinstance(events[-1], Completed) and events[-1].response.content == "third time"
    assert len(model_server.requests) == 3


async def test_silent_server_after_retries_is_a_timeout_error(model_server: ModelServer) -> None:
    for _ in range(2):
        model_server.add(Scripted(200, SSE_HEADERS, sse(text_chunks("late")), delay_s=1.0))
    async with ModelClient(model_server.base_url, "m", read_timeout=0.2, retry_policy=policy(max_retries=1)) as client:
        error, events = await fails(client)
    assert isinstance(error, ModelTimeoutError) and error.retryable
    assert str(error) == f"The model server at {model_server.base_url} sent nothing for 0.2 s."
    assert len(events) == 1 and len(model_server.requests) == 2


# -- errors inside a 200 stream before any output -------------------------------------------------------------------


async def test_error_as_first_event_is_retried_like_a_5xx(model_server: ModelServer) -> None:
    model_server.add(
        Scripted(
            200,
            SSE_HEADERS,
            sse([{"error": {"message": "The server had an error", "type": "server_error", "code": None}}]),
        )
    )
    model_server.add_text("recovered")
    async with ModelClient(model_server.base_url, "m", retry_policy=policy()) as client:
        events = await collect(client)
    retries = [e for e in events if isinstance(e, RetryScheduled)]
    assert len(retries) == 1 and "The server had an error" in retries[0].reason
    assert isinstance(events[-1], Completed) and events[-1].response.content == "recovered"


@pytest.mark.parametrize(
    "payload",
    [
        {"error": {"message": "Context too long", "type": "invalid_request_error", "code": 400}},
        {"object": "error", "message": "Context too long", "type": "BadRequestError", "code": 400},
        {"error": {"message": "Context too long", "type": "insufficient_quota", "code": "insufficient_quota"}},
    ],
    ids=["openai-400", "vllm-400", "quota"],
)
async def test_non_retryable_error_as_first_event_raises(model_server: ModelServer, payload: dict) -> None:
    model_server.add(Scripted(200, SSE_HEADERS, sse([payload], done=False)))
    model_server.add_text("never")
    async with ModelClient(model_server.base_url, "m", retry_policy=policy()) as client:
        error, events = await fails(client)
    assert isinstance(error, ModelStreamError) and not error.retryable and "Context too long" in str(error)
    assert not events and len(model_server.requests) == 1


# -- error bodies --------------------------------------------------------------------------------------------------

_HTML = (
    b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1>"
    b"</center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n"
)


@pytest.mark.parametrize(
    ("status", "content_type", "body", "said"),
    [
        (502, "text/html", _HTML, "502 Bad Gateway"),
        (
            400,
            "application/json",
            b'{"object":"error","message":"Tool call id was abc but must be a-z, A-Z, 0-9, with '
            b'a length of 9.","type":"invalid_request_message_error","code":3280}',
            "must be a-z, A-Z, 0-9",
        ),
        (
            404,
            "application/json",
            b'{"error":"model \\"llama9\\" not found, try pulling it first"}',
            'model "llama9" not found',
        ),
        (401, "application/json", b'{"detail":"Not authenticated"}', "Not authenticated"),
        (
            400,
            "application/json",
            b'[{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}]',
            "API key not valid.",
        ),
        (403, "text/plain", b"Forbidden by policy\n", "Forbidden by policy"),
        (422, "application/json", b'{"message":"Unprocessable"}', "Unprocessable"),
        (
            400,
            "text/event-stream",
            b'data: {"error":{"message":"Bad tools schema","code":400}}\n\n',
            "Bad tools schema",
        ),
    ],
    ids=["html", "mistral", "ollama", "fastapi", "google-array", "text", "plain-message", "sse-body"],
)
async def test_error_bodies_become_one_sentence(
    model_server: ModelServer, status: int, content_type: str, body: bytes, said: str
) -> None:
    model_server.add(Scripted(status, {"content-type": content_type}, body, framing="length"))
    async with ModelClient(model_server.base_url, "m", retry_policy=policy(max_retries=0)) as client:
        error, _ = await fails(client)
    text = str(error)
    assert text.startswith(f"The model server at {model_server.base_url} answered HTTP {status}")
    assert said in text and text.endswith(".")
    assert "\n" not in text and "<" not in text


# -- secrets -------------------------------------------------------------------------------------------------------


async def test_api_key_never_in_errors_repr_or_logs(
    model_server: ModelServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    for noisy in ("httpx", "httpcore"):  # proofdesk's log file keeps them at WARNING; here, the worst case
        caplog.set_level(logging.DEBUG, logger=noisy)
    model_server.add_error(
        401, f"Incorrect API key provided: {CANARY}. You can find your key at ...", code="invalid_api_key"
    )
    model_server.add(Scripted(200, SSE_HEADERS, sse([{"error": {"message": f"bad key {CANARY}"}}])))
    model_server.add_text("fine", usage=(1, 1))
    texts: list[str] = []
    async with ModelClient(model_server.base_url, "m", api_key=CANARY, retry_policy=policy(max_retries=0)) as client:
        texts.append(repr(client))
        error, _ = await fails(client)
        texts += [str(error), repr(error), error.message]
        error, _ = await fails(client)
        texts += [str(error), repr(error)]
        events = await collect(client)
        texts.append(repr(events))
    async with ModelClient(
        f"http://user:{CANARY}@127.0.0.1:{closed_port()}/v1?key={CANARY}",
        "m",
        api_key=CANARY,
        retry_policy=policy(max_retries=0),
    ) as client:
        texts.append(repr(client))
        error, _ = await fails(client)
        texts += [str(error), repr(error)]
    texts += [record.getMessage() for record in caplog.records] + [repr(record.args) for record in caplog.records]
    assert caplog.records, "httpx/httpcore debug logging was captured"
    for text in texts:
        assert CANARY not in text, text
    assert model_server.requests[0].headers["authorization"] == f"Bearer {CANARY}"


# -- cancellation and keep-alive ------------------------------------------------------------------------------------


async def test_consumer_stopping_mid_stream_closes_cleanly_and_client_stays_usable(model_server: ModelServer) -> None:
    body = sse(text_chunks("a long answer that the caller abandons", piece=3))
    model_server.add(Scripted(200, SSE_HEADERS, body, split=20, hang_after=len(body) // 2))
    model_server.add(text_reply("next"))
    async with ModelClient(model_server.base_url, "m", retry_policy=policy()) as client:
        stream = client.stream(MESSAGES, TOOLS)
        async for event in stream:
            if isinstance(event, TextDelta):
                break
        await stream.aclose()  # what cancelling the run's task does
        events = await collect(client)
    assert isinstance(events[-1], Completed) and events[-1].response.content == "next"


async def test_base_url_query_is_kept_after_the_path(model_server: ModelServer) -> None:
    model_server.add_text("ok")
    async with ModelClient(model_server.base_url + "/?api-version=2024-10-21", "m") as client:
        await collect(client)
    assert model_server.requests[0].path == "/v1/chat/completions?api-version=2024-10-21"


@pytest.mark.slow
async def test_keep_alive_comments_reset_the_inter_chunk_timeout(model_server: ModelServer) -> None:
    comment = b": keep-alive\n\n"
    body = comment * 6 + sse(text_chunks("queued, then answered"))
    # Six comments 0.1 s apart: 0.6 s of waiting in all, never more than 0.1 s of silence.
    model_server.add(Scripted(200, SSE_HEADERS, body, split=(len(comment),) * 6, piece_delay_s=0.1))
    async with ModelClient(model_server.base_url, "m", read_timeout=0.35, retry_policy=policy()) as client:
        events = await collect(client)
    assert not any(isinstance(e, RetryScheduled) for e in events)
    assert isinstance(events[-1], Completed) and events[-1].response.content == "queued, then answered"


async def test_a_web_page_with_status_200_names_the_likely_mistake(model_server: ModelServer) -> None:
    page = b"<!doctype html><html><head><title>Open WebUI</title></head><body>app</body></html>"
    model_server.add(Scripted(200, {"content-type": "text/html; charset=utf-8"}, page, framing="length"))
    async with ModelClient(model_server.base_url, "m", retry_policy=policy()) as client:
        error, _ = await fails(client)
    assert isinstance(error, ModelHTTPError) and not error.retryable
    assert "web page (Open WebUI)" in str(error) and "base URL" in str(error)
    assert len(model_server.requests) == 1


# -- one classification for HTTP and in-stream errors ---------------------------------------------------------------

LLAMA_OVERFLOW = {
    "error": {
        "code": 400,
        "message": "request (8244 tokens) exceeds the available context size (8192 tokens), try increasing it.",
        "type": "exceed_context_size_error",
    }
}
OPENAI_OVERFLOW = {
    "error": {
        "message": "This model's maximum context length is 128000 tokens. However, your messages "
        "resulted in 130512 tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
}


@pytest.mark.parametrize("body", [LLAMA_OVERFLOW, OPENAI_OVERFLOW], ids=["llama.cpp", "openai"])
async def test_context_overflow_is_classified_alike_over_http_and_in_stream(
    model_server: ModelServer, body: dict
) -> None:
    model_server.add(Scripted(400, {"content-type": "application/json"}, json.dumps(body).encode(), framing="length"))
    model_server.add(Scripted(200, SSE_HEADERS, sse([body], done=False)))
    async with ModelClient(model_server.base_url, "m", retry_policy=policy()) as client:
        over_http, _ = await fails(client)
        in_stream, _ = await fails(client)
    for error in (over_http, in_stream):
        assert error.failure.type == "context_overflow" and not error.retryable, error
        assert error.failure.to_json()["type"] == "context_overflow"
    assert isinstance(over_http, ModelHTTPError) and over_http.status == 400
    assert len(model_server.requests) == 2  # neither was retried


@pytest.mark.parametrize(
    ("status", "body", "kind", "retryable"),
    [
        (
            429,
            {
                "error": {
                    "message": "You exceeded your current quota",
                    "type": "insufficient_quota",
                    "code": "insufficient_quota",
                }
            },
            "quota",
            False,
        ),
        (
            401,
            {
                "error": {
                    "message": "Incorrect API key provided",
                    "type": "invalid_request_error",
                    "code": "invalid_api_key",
                }
            },
            "authentication",
            False,
        ),
        (
            404,
            {
                "error": {
                    "message": "The model `gpt-9` does not exist",
                    "type": "invalid_request_error",
                    "code": "model_not_found",
                }
            },
            "unknown_model",
            False,
        ),
        (403, {"error": {"message": "Country not supported", "type": "permission_error"}}, "permission", False),
        (400, {"error": {"message": "Invalid schema", "type": "invalid_request_error"}}, "invalid_request", False),
        (
            429,
            {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}},
            "rate_limit",
            True,
        ),
        (503, {"error": {"message": "The engine is currently overloaded", "type": "server_error"}}, "overloaded", True),
        (502, {"error": {"message": "upstream connect error", "type": "upstream_error"}}, "upstream_closed", True),
        (500, {"error": {"message": "The server had an error", "type": "server_error"}}, "server_error", True),
    ],
    ids=["quota", "auth", "model", "permission", "invalid", "rate", "overload", "upstream", "server"],
)
async def test_http_and_in_stream_errors_share_one_classification(
    model_server: ModelServer, status: int, body: dict, kind: str, retryable: bool
) -> None:
    in_stream = {"error": {**body["error"], "code": body["error"].get("code") or status}}
    model_server.add(
        Scripted(status, {"content-type": "application/json"}, json.dumps(body).encode(), framing="length")
    )
    model_server.add(Scripted(200, SSE_HEADERS, sse([chunk({"role": "assistant", "content": "Half"}), in_stream])))
    async with ModelClient(model_server.base_url, "m", retry_policy=policy(max_retries=0)) as client:
        error, _ = await fails(client)
        events = await collect(client)
    final = events[-1]
    assert isinstance(final, Completed) and final.response.failure is not None
    assert (error.failure.type, error.retryable) == (kind, retryable)
    assert (final.response.failure.type, final.response.failure.retryable) == (kind, retryable)


async def test_insufficient_quota_after_output_is_not_reissued(model_server: ModelServer) -> None:
    quota = {
        "error": {
            "message": "You exceeded your current quota",
            "type": "insufficient_quota",
            "code": "insufficient_quota",
        }
    }
    model_server.add(Scripted(200, SSE_HEADERS, sse([chunk({"role": "assistant", "content": "Half"}), quota])))
    model_server.add_text("must not be requested")
    async with ModelClient(model_server.base_url, "m", retry_policy=policy()) as client:
        events = await collect(client)
    assert not any(isinstance(e, RetryScheduled) for e in events)
    final = events[-1]
    assert isinstance(final, Completed) and final.response.failure is not None
    assert final.response.failure.type == "quota" and len(model_server.requests) == 1


async def test_502_after_output_is_reissued_with_backoff_within_one_budget(model_server: ModelServer) -> None:
    upstream = {"error": {"message": "upstream closed the connection", "code": 502, "type": "upstream_error"}}
    for _ in range(3):
        model_server.add(Scripted(200, SSE_HEADERS, sse([chunk({"role": "assistant", "content": "Half"}), upstream])))
    model_server.add_text("must not be requested")
    retry_policy = policy(max_retries=2)
    async with ModelClient(model_server.base_url, "m", retry_policy=retry_policy) as client:
        events = await collect(client)
    assert [e.attempt for e in events if isinstance(e, RetryScheduled)] == [1, 2]
    assert len(retry_policy.slept) == 2 and retry_policy.slept[1] > retry_policy.slept[0] * 1.1  # growing backoff
    final = events[-1]
    assert isinstance(final, Completed) and final.response.failure is not None
    assert final.response.failure.type == "upstream_closed" and final.response.attempts == 3
    assert len(model_server.requests) == 3 and model_server.pending == 1


async def test_max_tokens_is_sent_on_every_request(model_server: ModelServer) -> None:
    model_server.add_text(
        "a",
    ).add_text("b").add_text("c")
    async with ModelClient(model_server.base_url, "m") as client:
        await collect(client)
    async with ModelClient(
        model_server.base_url, "m", max_tokens=512, max_tokens_field="max_completion_tokens"
    ) as client:
        await collect(client)
    async with ModelClient(model_server.base_url, "m", extra_body={"max_tokens": 77}) as client:
        await collect(client)
    first, second, third = (r.json for r in model_server.requests)
    assert first["max_tokens"] == 8192 and "max_completion_tokens" not in first
    assert second["max_completion_tokens"] == 512 and "max_tokens" not in second
    assert third["max_tokens"] == 77  # the profile's body has the last word


async def test_a_dropped_kept_alive_connection_is_resent_outside_the_budget(model_server: ModelServer) -> None:
    model_server.add_text("first").add(Scripted(DROP)).add_text("second")
    retry_policy = policy(max_retries=0)
    async with ModelClient(model_server.base_url, "m", retry_policy=retry_policy) as client:
        await collect(client)
        events = await collect(client)
    assert not any(isinstance(e, RetryScheduled) for e in events) and retry_policy.slept == []
    assert isinstance(events[-1], Completed) and events[-1].response.content == "second"
    assert len(model_server.requests) == 3


async def test_a_server_that_keeps_dropping_connections_uses_the_budget(model_server: ModelServer) -> None:
    model_server.add(Scripted(DROP), Scripted(DROP), Scripted(DROP))
    async with ModelClient(model_server.base_url, "m", retry_policy=policy(max_retries=1)) as client:
        error, events = await fails(client)
    assert isinstance(error, ModelConnectionError) and error.failure.type == "connection"
    assert len([e for e in events if isinstance(e, RetryScheduled)]) == 1 and len(model_server.requests) == 3
