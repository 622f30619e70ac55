"""``proofdesk check-model`` ends with what to set for each problem it knows (design section 19), in-process against
the scripted server: a call written as JSON in the content, no call, ``<think>`` blocks, a context too small, an
answer cut by ``max_tokens``, a slow first byte."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.support.model_server import ModelServer, Scripted, error_reply, text_reply, tool_reply
from tui.cli import main

CALL = {"name": "get_paragraph_info", "arguments": {"paragraph_id": "e58ed763"}}
PROBE_SIZE = (1900, 25)  # prompt and completion tokens of a real server answering the probe


def check(capsys: pytest.CaptureFixture[str], base_url: str, *extra: str) -> tuple[int, dict[str, Any]]:
    code = main(["check-model", "--base-url", base_url, "--model", "m", "--json", *extra])
    return code, json.loads(capsys.readouterr().out)


def check_text(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["check-model", *args])
    return code, capsys.readouterr().out


def codes(report: dict[str, Any]) -> list[str]:
    return [advice["code"] for advice in report["advice"]]


def write_config(text: str) -> None:
    Path(os.environ["PROOFDESK_CONFIG"]).parent.mkdir(parents=True, exist_ok=True)
    Path(os.environ["PROOFDESK_CONFIG"]).write_text(text, encoding="utf-8")


def test_a_well_formed_call_gets_no_advice(capsys: pytest.CaptureFixture[str], model_server: ModelServer) -> None:
    model_server.add(tool_reply([("get_paragraph_info", CALL["arguments"])], usage=PROBE_SIZE))
    code, report = check(capsys, model_server.base_url)
    assert code == 0 and report["advice"] == [] and "calls_in_content" not in report


@pytest.mark.parametrize(
    "content",
    [
        json.dumps(CALL),
        f"Here is the call:\n```json\n{json.dumps(CALL, indent=2)}\n```\nDone.",
        f"<tool_call>\n{json.dumps(CALL)}\n</tool_call>",
    ],
    ids=["bare", "fenced-with-text-around", "tagged"],
)
def test_a_call_written_in_the_content_is_a_well_formed_call_with_advice(
    capsys: pytest.CaptureFixture[str], model_server: ModelServer, content: str
) -> None:
    model_server.add(text_reply(content, usage=PROBE_SIZE))
    code, report = check(capsys, model_server.base_url)
    assert code == 0 and report["tool_calls"] == [] and codes(report) == ["calls_in_content"]
    (call,) = report["calls_in_content"]
    assert (call["name"], call["arguments"], call["executable"]) == ("get_paragraph_info", CALL["arguments"], True)
    assert "did not parse it" in report["advice"][0]["problem"]


def test_the_text_output_names_a_call_in_the_content_and_needs_no_setting(
    capsys: pytest.CaptureFixture[str], model_server: ModelServer
) -> None:
    model_server.add(text_reply(json.dumps(CALL), usage=PROBE_SIZE))
    code, out = check_text(capsys, "--base-url", model_server.base_url, "--model", "m")
    assert code == 0 and "in content:    get_paragraph_info" in out
    assert "result:        a well-formed tool call, written as JSON in the content" in out
    assert "advice:        The model wrote its tool call as JSON in its text" in out
    assert "set in config.toml" not in out  # a run takes such calls: nothing to set


def test_a_call_of_a_tool_not_offered_is_no_call(capsys: pytest.CaptureFixture[str], model_server: ModelServer) -> None:
    model_server.add(text_reply(json.dumps({"name": "delete_chapter", "arguments": {}}), usage=PROBE_SIZE))
    code, report = check(capsys, model_server.base_url)
    assert code == 1 and "calls_in_content" not in report and codes(report) == ["no_tool_call"]


def test_no_call_at_all_advises_small_chunks_for_text_answers(
    capsys: pytest.CaptureFixture[str], model_server: ModelServer
) -> None:
    model_server.add(text_reply("The paragraph e58ed763 is about a servant.", usage=PROBE_SIZE))
    code, out = check_text(capsys, "--base-url", model_server.base_url, "--model", "m")
    assert code == 1 and "result:        NO well-formed tool call" in out
    assert "advice:        The model answered without a tool call" in out and "[ID: xxxxxxxx]" in out
    assert out.endswith(
        "set in config.toml (proofdesk's config folder, or PROOFDESK_CONFIG):\n  [run]\n"
        "  chunk_chars = 1000\n  max_batch = 5\n"
    )


def test_think_blocks_advise_turning_thinking_off_in_the_profiles_body(
    capsys: pytest.CaptureFixture[str], model_server: ModelServer
) -> None:
    write_config(
        'default_profile = "box"\n[profiles.box]\n'
        f'base_url = "{model_server.base_url}"\nmodel = "qwen3"\nbody = {{ temperature = 0 }}\n'
    )
    model_server.add(text_reply(f"<think>The user wants one call.</think>{json.dumps(CALL)}", usage=PROBE_SIZE))
    code, out = check_text(capsys)
    assert code == 0 and "reasoning:     The user wants one call." in out
    assert "advice:        The model thinks in <think> blocks" in out
    assert out.endswith(
        "  [profiles.box]\n  body = { temperature = 0, chat_template_kwargs = { enable_thinking = false } }\n"
    )


def test_reasoning_in_a_field_is_not_think_blocks(
    capsys: pytest.CaptureFixture[str], model_server: ModelServer
) -> None:
    model_server.add(text_reply(json.dumps(CALL), reasoning="One call.", usage=PROBE_SIZE))
    code, report = check(capsys, model_server.base_url)
    assert code == 0 and report["reasoning_content"] == "One call." and codes(report) == ["calls_in_content"]


@pytest.mark.parametrize(
    "reply",
    [
        error_reply(400, "the request exceeds the available context size, try increasing it"),
        text_reply("I will call get_paragraph_info", finish="length", usage=(1900, 120)),  # before max_tokens
    ],
    ids=["refused", "answer-stopped-early"],
)
def test_a_context_too_small_advises_less_per_request(
    capsys: pytest.CaptureFixture[str], model_server: ModelServer, reply: Scripted
) -> None:
    model_server.add(reply)
    code, report = check(capsys, model_server.base_url)
    assert code == 1 and codes(report)[0] == "context_too_small", report["advice"]
    assert "-c 16384" in report["advice"][0]["problem"]
    assert (report["advice"][0]["profile"], report["advice"][0]["run"]) == (
        ["max_tokens = 2048"],
        ["chunk_chars = 1000"],
    )


def test_an_answer_cut_by_max_tokens_advises_more(
    capsys: pytest.CaptureFixture[str], model_server: ModelServer
) -> None:
    model_server.add(text_reply("the rain " * 30, finish="length", usage=(1900, 64)))
    code, report = check(capsys, model_server.base_url, "--max-tokens", "64")
    assert code == 1 and codes(report) == ["output_limit"]
    assert report["advice"][0]["profile"] == ["max_tokens = 4096"]


def test_a_slow_first_byte_advises_a_longer_read_timeout(
    capsys: pytest.CaptureFixture[str], model_server: ModelServer
) -> None:
    write_config(f'[profiles.cpu]\nbase_url = "{model_server.base_url}"\nmodel = "m"\nread_timeout = 2\n')
    reply = tool_reply([("get_paragraph_info", CALL["arguments"])], usage=PROBE_SIZE)
    model_server.add(Scripted(reply.status, reply.headers, reply.body, delay_s=0.6))  # 0.6 s >= a quarter of 2 s
    code, out = check_text(capsys, "--profile", "cpu")
    assert code == 0 and "advice:        The first byte came after 1 s (read_timeout 2 s)" in out
    assert out.endswith("  [profiles.cpu]\n  read_timeout = 600\n")


def test_without_a_profile_the_lines_to_paste_make_one(
    capsys: pytest.CaptureFixture[str], model_server: ModelServer
) -> None:
    model_server.add(text_reply("<think>Hm.</think>No.", usage=PROBE_SIZE))
    code, out = check_text(capsys, "--base-url", model_server.base_url, "--model", "small")
    paste = out[out.index("set in config.toml") :].splitlines()[1:]
    assert code == 1 and paste == [
        "  [profiles.local]",
        f'  base_url = "{model_server.base_url}"',
        '  model = "small"',
        "  body = { chat_template_kwargs = { enable_thinking = false } }",
        "  [run]",
        "  chunk_chars = 1000",
        "  max_batch = 5",
    ]
