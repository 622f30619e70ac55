"""proofdesk against a REAL OpenAI-compatible server running a REAL small model (opt-in, not part of ``.ci/run``).

Start a server in one shell (``python -m tests.real_model.serve`` prints its base URL), then run
``PROOFDESK_REAL_BASE_URL=<that URL> .venv/bin/python -m pytest tests/real_model -q``. ``PROOFDESK_REAL_MODEL``
names the model (default: the first one the server lists at ``/models``).

The model is tiny and its answers are whatever they are; these tests assert what proofdesk must do with any
answer: exit 0 or 1 (never 2, never a traceback), machine-readable output that parses, a complete trace, and
nothing committed to the chapter that the model did not send whole in an accepted ``add_translation_batch`` call.
Each test drives the installed ``proofdesk`` console script in a subprocess with its own config, data, state, cache
and log folders.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.real_model.models import DEFAULT_MODEL, MODELS

BASE_URL = os.environ.get("PROOFDESK_REAL_BASE_URL", "").strip()
MODEL_ENV = os.environ.get("PROOFDESK_REAL_MODEL", "").strip()
# The profile's extra request body: the served model's (tests/real_model/models.py; serve.py already makes it the
# server's defaults: greedy sampling, and for Gemma a stop after a tool call). It is sent anyway so that any
# llama.cpp server with the same template behaves the same; an unknown model gets greedy sampling.
UNKNOWN_MODEL_BODY = "{ temperature = 0 }"
# proofdesk sends max_tokens (8192 by default), which overrides the server's own limit: keep CPU turns short.
PROFILE_MAX_TOKENS = 1024
PROFILE_READ_TIMEOUT_S = 600  # a 2-core CPU can be silent for a while on a long prompt
SAMPLE = Path(__file__).resolve().parents[2] / "tui" / "samples" / "rashomon.json"
FINISH_REASONS = {"stop", "tool_calls", "length", "content_filter", "error"}
RUN_TIMEOUT_S = 1500  # 2 chunks x 6 turns on a 2-core CPU, each turn at most the server's token limit

pytestmark = pytest.mark.skipif(
    not BASE_URL,
    reason="PROOFDESK_REAL_BASE_URL is not set; start `python -m tests.real_model.serve` and set it to the URL it "
    "prints to run these opt-in real-model tests",
)


def _proofdesk() -> str:
    """The installed console script of the interpreter running the tests (else the one on PATH)."""
    beside = Path(sys.executable).with_name("proofdesk")
    if beside.is_file():
        return str(beside)
    found = shutil.which("proofdesk")
    if found is None:
        pytest.fail("no proofdesk console script beside the interpreter or on PATH; pip install -e . first")
    return found


def _served_models() -> list[str]:
    """The model IDs the server lists at ``/models``; the test fails when the server does not answer."""
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never through a proxy
    try:
        with direct.open(BASE_URL.rstrip("/") + "/models", timeout=10) as response:
            listed = json.load(response).get("data") or []
    except (OSError, ValueError, AttributeError) as exc:
        pytest.fail(
            f"PROOFDESK_REAL_BASE_URL={BASE_URL}: the server does not answer GET /models ({exc}); is "
            f"`python -m tests.real_model.serve` running?"
        )
    return [str(item["id"]) for item in listed if isinstance(item, dict) and "id" in item]


@pytest.fixture(scope="module")
def model_name() -> str:
    """``PROOFDESK_REAL_MODEL``, else the first model the server lists, else the harness's model name."""
    served = _served_models()
    return MODEL_ENV or (served[0] if served else DEFAULT_MODEL)


def profile_body(model_name: str) -> str:
    """The served model's request body as a TOML inline table."""
    model = MODELS.get(model_name)
    if model is None:
        return UNKNOWN_MODEL_BODY
    return "{ " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in model.profile_body.items()) + " }"


@pytest.fixture
def proofdesk_env(tmp_path: Path, model_name: str) -> dict[str, str]:
    """The environment for a proofdesk subprocess: a config with the ``real`` profile, folders under tmp_path."""
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    for var, sub in (
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
    ):
        (home / sub).mkdir(parents=True, exist_ok=True)
        env[var] = str(home / sub)
    config = home / "config" / "proofdesk" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        'default_profile = "real"\n\n'
        "[profiles.real]\n"
        f"base_url = {json.dumps(BASE_URL)}\n"
        f"model = {json.dumps(model_name)}\n"
        f"max_tokens = {PROFILE_MAX_TOKENS}\n"
        f"read_timeout = {PROFILE_READ_TIMEOUT_S}\n"
        f"body = {profile_body(model_name)}\n",
        encoding="utf-8",
    )
    env["PROOFDESK_CONFIG"] = str(config)
    env["NO_COLOR"] = "1"
    return env


def _run(args: list[str], env: dict[str, str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_proofdesk(), *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        check=False,
    )


def _no_traceback(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"


# -- check-model ------------------------------------------------------------------------------------------------------


def _check_report_shape(report: Any) -> bool:
    """Assert the ``check-model --json`` shape; return whether it holds a well-formed tool call."""
    assert isinstance(report, dict), report
    assert isinstance(report["content"], str)
    assert "reasoning_content" in report
    assert report["reasoning_content"] is None or isinstance(report["reasoning_content"], str)
    assert isinstance(report["tool_calls"], list)
    for call in report["tool_calls"]:
        assert {"id", "name", "arguments", "raw_arguments", "executable"} <= call.keys(), call
        assert isinstance(call["executable"], bool), call
        assert call["arguments"] is None or isinstance(call["arguments"], dict), call
        if "arguments_repaired" in call:
            assert call["arguments"] is None, call
            assert isinstance(call["arguments_repaired"], dict), call
    if "expanded_tool_calls" in report:
        assert isinstance(report["expanded_tool_calls"], list)
    assert report["finish_reason"] in FINISH_REASONS, report["finish_reason"]
    assert "finish_reason_raw" in report
    usage = report["usage"]
    if usage is not None:
        for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
            assert isinstance(usage[key], int), usage
        if "cached_tokens" in usage:
            assert usage["cached_tokens"] is None or isinstance(usage["cached_tokens"], int), usage
    error = report["error"]
    if error is not None:
        assert isinstance(error, dict), error
        assert {"message", "type", "code", "retryable", "retry_after_s"} <= error.keys(), error
        assert isinstance(error["message"], str) and error["message"], error
        assert isinstance(error["retryable"], bool), error
    assert "retries" in report
    for key in ("first_byte_ms", "latency_ms"):
        assert report[key] is None or isinstance(report[key], int | float), (key, report[key])
    for advice in report["advice"]:
        assert {"code", "problem", "profile", "run"} <= advice.keys(), advice
    # A call written as JSON in the content counts: a run takes it as a call (design section 19).
    calls = report["tool_calls"] + report.get("calls_in_content", [])
    return any(call["name"] and isinstance(call["arguments"], dict) and call["executable"] for call in calls)


def test_check_model_json(tmp_path: Path, proofdesk_env: dict[str, str]) -> None:
    done = _run(["check-model", "--json"], proofdesk_env, tmp_path, timeout=170)
    _no_traceback(done)
    report = json.loads(done.stdout)  # the whole of stdout is one JSON object
    well_formed = _check_report_shape(report)
    assert (done.returncode == 0) == well_formed, (done.returncode, report)


def test_check_model_text(tmp_path: Path, proofdesk_env: dict[str, str]) -> None:
    done = _run(["check-model"], proofdesk_env, tmp_path, timeout=170)
    _no_traceback(done)
    assert done.stdout.strip(), done.stderr


# -- a translate run --------------------------------------------------------------------------------------------------


def _chapter(tmp_path: Path, paragraphs: int = 6) -> Path:
    """The bundled sample chapter cut to its first ``paragraphs`` paragraphs, target language English."""
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    assert data["format"] == "proofdesk.chapter/1"
    data["paragraphs"] = data["paragraphs"][:paragraphs]
    data["target_language"] = "en"
    path = tmp_path / "chapter.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def _json_lines(text: str, what: str) -> list[dict[str, Any]]:
    events = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            events.append(json.loads(line))
        except ValueError as exc:
            pytest.fail(f"{what} line {number} is not JSON ({exc}): {line[:300]}")
    return events


def _accepted_items(trace: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """(paragraph_id, translated_text) of every item of every add_translation_batch call that succeeded."""
    calls: dict[tuple[Any, str], Any] = {}
    accepted: set[tuple[str, str]] = set()
    for event in trace:
        key = (event.get("chunk"), event.get("call_id"))
        if event["kind"] == "tool_called" and event["name"] == "add_translation_batch":
            calls[key] = event["arguments"]
        elif event["kind"] == "tool_result" and event["name"] == "add_translation_batch" and event["success"]:
            arguments = calls.get(key)
            assert isinstance(arguments, dict), f"a successful batch with no tool_called event: {event}"
            for item in arguments.get("paragraphs") or []:
                accepted.add((item["paragraph_id"], item["translated_text"]))
    return accepted


@pytest.mark.timeout(RUN_TIMEOUT_S + 60)
def test_translate_run(tmp_path: Path, proofdesk_env: dict[str, str]) -> None:
    chapter = _chapter(tmp_path)
    trace_path = tmp_path / "T.jsonl"
    # --max-batch 1: the schema's maxItems becomes 1, so llama.cpp's tool-call grammar closes the array after one
    # item; the 270M base model otherwise keeps inventing items until the token limit.
    done = _run(
        [
            "run",
            str(chapter),
            "--task",
            "translate",
            "--profile",
            "real",
            "--json",
            "--trace",
            str(trace_path),
            "--max-turns",
            "6",
            "--chunk-chars",
            "400",
            "--max-batch",
            "1",
        ],
        proofdesk_env,
        tmp_path,
        timeout=RUN_TIMEOUT_S,
    )
    _no_traceback(done)

    events = _json_lines(done.stdout, "stdout")
    trace = _json_lines(trace_path.read_text(encoding="utf-8"), "trace")
    assert trace, "the trace is empty"
    assert trace[0]["kind"] == "run_started", trace[0]
    assert trace[-1]["kind"] == "run_finished", trace[-1]
    assert (done.returncode == 0) == (trace[-1]["status"] == "complete"), (done.returncode, trace[-1]["status"])

    for event in events + trace:
        if event.get("kind") == "error":
            assert isinstance(event.get("code"), str) and event["code"], event

    accepted = _accepted_items(trace)
    saved = json.loads(chapter.read_text(encoding="utf-8"))
    for paragraph in saved["paragraphs"]:
        for version in paragraph["translations"]:
            assert (paragraph["id"], version["text"]) in accepted, (
                f"paragraph {paragraph['id']} has a version no accepted add_translation_batch item sent: "
                f"{version['text'][:200]!r}"
            )
