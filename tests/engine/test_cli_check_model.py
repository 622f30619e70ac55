"""``proofdesk check-model --json`` as a script reads it: every field of the contract, for every way a model answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.engine.test_cli_run import run_cli
from tests.support.model_server import (
    SSE_HEADERS,
    ModelServer,
    Scripted,
    chunk,
    closed_port,
    error_reply,
    sse,
    text_reply,
    tool_reply,
)

pytestmark = pytest.mark.slow  # each test starts the CLI in a fresh interpreter

KEYS = {
    "content",
    "reasoning_content",
    "tool_calls",
    "finish_reason",
    "finish_reason_raw",
    "usage",
    "error",
    "retries",
    "first_byte_ms",
    "latency_ms",
}


def check_model(tmp_path: Path, base_url: str, *extra: str) -> tuple[int, dict[str, Any], str]:
    done = run_cli("check-model", "--base-url", base_url, "--model", "m", "--json", *extra, cwd=tmp_path)
    assert "Traceback" not in done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


def test_a_well_formed_call(tmp_path: Path, model_server: ModelServer) -> None:
    model_server.add(tool_reply([("get_paragraph_info", {"paragraph_id": "e58ed763"})]))
    code, report, _ = check_model(tmp_path, model_server.base_url)
    assert code == 0 and set(report) >= KEYS and "expanded_tool_calls" not in report
    (call,) = report["tool_calls"]
    assert call == {
        "id": "call_0",
        "name": "get_paragraph_info",
        "arguments": {"paragraph_id": "e58ed763"},
        "raw_arguments": '{"paragraph_id": "e58ed763"}',
        "executable": True,
    }
    assert report["finish_reason"] == report["finish_reason_raw"] == "tool_calls"
    assert report["content"] == "" and report["error"] is None and report["retries"] == []
    assert report["usage"] == {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    assert 0 < report["first_byte_ms"] <= report["latency_ms"]
    assert model_server.requests[0].json["max_tokens"] == 8192


def test_a_failed_request_reports_error_finish_and_a_structured_error(
    tmp_path: Path, model_server: ModelServer
) -> None:
    model_server.add(
        error_reply(401, "Incorrect API key provided", code="invalid_api_key", error_type="invalid_request_error")
    )
    code, report, _ = check_model(tmp_path, model_server.base_url)
    assert code == 1 and report["finish_reason"] == "error" and report["content"] == ""
    assert report["tool_calls"] == [] and report["first_byte_ms"] is None
    error = report["error"]
    assert set(error) >= {"message", "type", "code", "retryable", "retry_after_s"}
    assert (error["type"], error["code"], error["retryable"]) == ("authentication", "invalid_api_key", False)
    assert "HTTP 401" in error["message"]


def test_unreachable_server_after_retries(tmp_path: Path) -> None:
    code, report, _ = check_model(tmp_path, f"http://127.0.0.1:{closed_port()}/v1")
    assert code == 1 and report["finish_reason"] == "error"
    assert report["error"]["type"] == "connection" and report["error"]["retryable"] is True
    assert [r["attempt"] for r in report["retries"]] == [1, 2]


def test_arguments_sent_as_an_object_are_compact(tmp_path: Path, model_server: ModelServer) -> None:
    body = sse(
        [
            chunk({"role": "assistant", "content": None}),
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "get_paragraph_info", "arguments": {"paragraph_id": "e58ed763"}},
                        }
                    ]
                }
            ),
            chunk({}, "tool_calls"),
        ]
    )
    model_server.add(Scripted(200, SSE_HEADERS, body))
    code, report, _ = check_model(tmp_path, model_server.base_url)
    assert code == 0 and report["tool_calls"][0]["raw_arguments"] == '{"paragraph_id":"e58ed763"}'


def test_repaired_arguments_are_not_reported_as_parsed(tmp_path: Path, model_server: ModelServer) -> None:
    model_server.add(tool_reply([("get_paragraph_info", "{'paragraph_id': 'e58ed763',}")]))
    code, report, _ = check_model(tmp_path, model_server.base_url)
    (call,) = report["tool_calls"]
    assert code == 1 and call["arguments"] is None and call["arguments_repaired"] == {"paragraph_id": "e58ed763"}
    assert call["executable"] is True  # the loop would run it, with a warning; a script sees it was not strict


def test_cut_off_arguments_are_neither_parsed_nor_repaired(tmp_path: Path, model_server: ModelServer) -> None:
    model_server.add(tool_reply([("get_paragraph_info", '{"paragraph_id": "e58e')]))
    code, report, _ = check_model(tmp_path, model_server.base_url)
    (call,) = report["tool_calls"]
    assert code == 1 and call["arguments"] is None and "arguments_repaired" not in call
    assert call["executable"] is False and call["error_code"] == "ARGUMENTS_TRUNCATED"


def test_expanded_parallel_wrapper_gets_fresh_ids(tmp_path: Path, model_server: ModelServer) -> None:
    wrapper = {
        "tool_uses": [
            {"recipient_name": "functions.get_paragraph_info", "parameters": {"paragraph_id": "e58ed763"}},
            {"recipient_name": "functions.get_next_paragraphs", "parameters": {"paragraph_id": "e58ed763", "count": 2}},
        ]
    }
    model_server.add(tool_reply([("multi_tool_use.parallel", wrapper)], ids=["call_wrap"]))
    code, report, _ = check_model(tmp_path, model_server.base_url)
    assert code == 0
    assert [(c["id"], c["name"]) for c in report["tool_calls"]] == [("call_wrap", "multi_tool_use.parallel")]
    inner = report["expanded_tool_calls"]
    assert [c["name"] for c in inner] == ["get_paragraph_info", "get_next_paragraphs"]
    assert len({c["id"] for c in inner} | {"call_wrap"}) == 3  # every inner call has an id of its own
    assert inner[1]["arguments"] == {"paragraph_id": "e58ed763", "count": 2}


def test_text_cut_by_the_output_limit(tmp_path: Path, model_server: ModelServer) -> None:
    model_server.add(text_reply("the rain " * 30, finish="length"))
    code, report, _ = check_model(tmp_path, model_server.base_url, "--max-tokens", "64")
    assert code == 1 and report["finish_reason"] == "length" and report["error"] is None
    assert model_server.requests[0].json["max_tokens"] == 64


def test_bad_max_tokens_flag_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = run_cli("check-model", "--model", "m", "--max-tokens", "lots", cwd=tmp_path)
    assert done.returncode == 2 and "--max-tokens: must be a whole number from 1 to 1000000, not 'lots'" in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2 and "Traceback" not in done.stderr


def test_human_output_names_time_to_first_byte(tmp_path: Path, model_server: ModelServer) -> None:
    model_server.add(tool_reply([("get_paragraph_info", {"paragraph_id": "e58ed763"})]))
    done = run_cli("check-model", "--base-url", model_server.base_url, "--model", "m", cwd=tmp_path)
    assert done.returncode == 0 and "first byte" in done.stdout and "a well-formed tool call" in done.stdout
