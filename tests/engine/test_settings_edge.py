"""Every run setting, every bad value, from the config file and from the flags: exit 2, one sentence naming the key
or the flag in the same words, and no request sent to the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import settings
from engine.config import ConfigError, config_path, load_config
from tests.engine.loop_support import write_chapter
from tests.engine.test_cli_run import run_cli
from tests.support.model_server import ModelServer

BAD_WHOLE = ["abc", "1.5"]
RUN_SETTINGS = [settings.CHUNK_CHARS, settings.MAX_BATCH, settings.MAX_TURNS, settings.JOBS]


def out_of_range(setting: settings.Setting) -> list[int]:
    return [int(setting.minimum) - 1, int(setting.maximum) + 1]


def cli_cases() -> list[tuple[str, str]]:
    cases = [(s.flag, bad) for s in [*RUN_SETTINGS, settings.MAX_TOKENS] for bad in BAD_WHOLE]
    cases += [(s.flag, str(bad)) for s in [*RUN_SETTINGS, settings.MAX_TOKENS] for bad in out_of_range(s)]
    return [(flag, bad) for flag, bad in cases if flag]


@pytest.mark.slow  # a CLI process per case
@pytest.mark.parametrize(("flag", "bad"), cli_cases())
def test_bad_flag_value_is_one_sentence_exit_2_and_no_request(
    tmp_path: Path, model_server: ModelServer, flag: str, bad: str
) -> None:
    write_chapter(tmp_path)
    done = run_cli(
        "run",
        "ch01.json",
        "--task",
        "translate",
        "--base-url",
        model_server.base_url,
        "--model",
        "m",
        f"{flag}={bad}",
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("proofdesk run: error: argument ") and f"{flag}: must be a whole number" in lines[-1]
    assert f"not {bad!r}" in lines[-1] or f"not {int(bad)}" in lines[-1]
    assert "Traceback" not in done.stderr and model_server.requests == []


CONFIG_CASES = [
    *[
        (f"[run]\n{s.key} = {value}\n", f"run.{s.key}")
        for s in [*RUN_SETTINGS, settings.KEEP_VERSIONS]
        for value in ['"abc"', "1.5", "true", *map(str, out_of_range(s))]
    ],
    ("[run]\nkeep_versions = 1\n", "run.keep_versions"),
    *[
        (f"[profiles.p]\nmodel = 'm'\n{key} = {value}\n", f"profiles.p.{key}")
        for key in ("max_tokens",)
        for value in ['"many"', "0", "1000001", "2.5"]
    ],
    *[
        (f"[profiles.p]\nmodel = 'm'\n{key} = {value}\n", f"profiles.p.{key}")
        for key in ("connect_timeout", "read_timeout")
        for value in ['"soon"', "0", "-3", "100000", "true"]
    ],
]


@pytest.mark.parametrize(("text", "key"), CONFIG_CASES)
def test_bad_config_value_names_the_key_with_the_settings_sentence(text: str, key: str) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config()
    message = str(info.value)
    assert message.startswith(f"{path}: {key}: must be a ") and "\n" not in message


@pytest.mark.slow
@pytest.mark.parametrize(
    "text", ["[run]\nkeep_versions = 1\n", "[run]\nmax_batch = 0\n", "[profiles.p]\nmodel = 'm'\nmax_tokens = 0\n"]
)
def test_bad_config_stops_a_run_before_any_request(tmp_path: Path, model_server: ModelServer, text: str) -> None:
    write_chapter(tmp_path)
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    done = run_cli(
        "run", "ch01.json", "--task", "translate", "--base-url", model_server.base_url, "--model", "m", cwd=tmp_path
    )
    assert done.returncode == 2 and str(path) in done.stderr and "must be a whole number" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and model_server.requests == []


@pytest.mark.slow
def test_the_same_sentence_from_the_file_and_the_flag(tmp_path: Path) -> None:
    write_chapter(tmp_path)
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[run]\nchunk_chars = 10\n", encoding="utf-8")
    from_file = run_cli("chunks", "ch01.json", "--task", "translate", cwd=tmp_path).stderr
    path.unlink()
    from_flag = run_cli("chunks", "ch01.json", "--task", "translate", "--chunk-chars", "10", cwd=tmp_path).stderr
    sentence = "must be a whole number from 200 to 50000, not 10"
    assert f"run.chunk_chars: {sentence}" in from_file and f"argument --chunk-chars: {sentence}" in from_flag


def test_keep_versions_zero_means_no_cap() -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[run]\nkeep_versions = 0\n", encoding="utf-8")
    assert load_config().run.keep_versions == 0
