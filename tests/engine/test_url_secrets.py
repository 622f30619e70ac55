"""Credentials that ride in a base URL or in a profile's headers never reach a trace, --json, a message or the log.

A URL like ``http://user:pass@host/v1?key=…`` is shown as ``http://host/v1`` everywhere; with an API key set as
well it is refused (httpx would turn user:pass into a Basic header that silently replaces the key's Bearer one).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from engine.config import Config, ConfigError, Profile, resolve_model
from tests.engine.loop_support import write_chapter
from tests.engine.test_cli_run import run_cli
from tests.support.model_server import ModelServer, error_reply, text_reply

PASSWORD = "pw-7c1e9a40d2"
QUERY_KEY = "qk-55b0c3e81f"
HEADER_KEY = "hk-9d2f41a7e3"


def test_url_credentials_and_an_api_key_together_are_refused() -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_model(
            Config(),
            base_url=f"https://me:{PASSWORD}@proxy.example/v1",
            model="m",
            environ={"OPENAI_API_KEY": "sk-real-key-1234"},
        )
    said = str(caught.value)
    assert "carries a user name and password" in said and "OPENAI_API_KEY" in said and PASSWORD not in said
    assert "https://proxy.example/v1" in said


def test_the_secrets_of_a_model_setting() -> None:
    config = Config(profiles={"p": Profile(model="m", headers={"x-api-key": HEADER_KEY, "X-Title": "app"})})
    settings = resolve_model(config, profile="p", base_url=f"http://u:{PASSWORD}@h/v1?key={QUERY_KEY}&v=1", environ={})
    assert set(settings.secrets()) == {HEADER_KEY, PASSWORD, QUERY_KEY}  # short values like "app", "1" are not


@pytest.mark.slow  # the installed binary
def test_no_url_or_header_secret_reaches_trace_json_stderr_or_log(
    tmp_path: Path, model_server: ModelServer, isolated_dirs: Path
) -> None:
    config = isolated_dirs / "config" / "proofdesk" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    port = model_server.base_url.split(":")[2].split("/")[0]
    url = f"http://user:{PASSWORD}@127.0.0.1:{port}/v1?key={QUERY_KEY}"
    config.write_text(f'[profiles.p]\nmodel = "m"\nbase_url = "{url}"\nheaders = {{ "x-api-key" = "{HEADER_KEY}" }}\n')
    path = write_chapter(tmp_path)
    # A careless proxy echoes what it got in its error; then the model answers.
    echo = f"bad gateway for {url} with x-api-key {HEADER_KEY}"
    model_server.add(
        error_reply(502, echo),
        text_reply("Done."),
        text_reply("Done."),
        text_reply("Done."),
        text_reply("Done."),
        text_reply("Done."),
        text_reply("Done."),
    )
    done = run_cli(
        "run", path.name, "--task", "translate", "--profile", "p", "--json", "--max-turns", "2", cwd=tmp_path
    )
    assert done.returncode in (0, 1), done.stderr
    started = json.loads(done.stdout.splitlines()[0])
    assert started["kind"] == "run_started" and started["base_url"] == f"http://127.0.0.1:{port}/v1"
    traces = list((tmp_path / ".proofdesk" / "traces").rglob("*.jsonl"))
    assert traces and stat.S_IMODE(os.stat(traces[0]).st_mode) == 0o600
    texts = {"stdout": done.stdout, "stderr": done.stderr, "trace": traces[0].read_text(encoding="utf-8")}
    log = isolated_dirs / "state" / "proofdesk" / "log" / "proofdesk.log"
    if log.exists():
        texts["log"] = log.read_text(encoding="utf-8")
        assert stat.S_IMODE(os.stat(log).st_mode) == 0o600
    for where, text in texts.items():
        for secret in (PASSWORD, QUERY_KEY, HEADER_KEY):
            assert secret not in text, (where, secret)
    assert model_server.requests[0].headers.get("x-api-key") == HEADER_KEY  # sent, never shown
