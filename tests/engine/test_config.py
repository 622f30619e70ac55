"""Configuration: profiles, resolution order, and errors that name the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import ConfigError, config_path, load_config, resolve_model


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_missing_file_is_empty_config_and_demo_is_the_default_model() -> None:
    settings = resolve_model(load_config(), environ={})
    assert settings.is_demo and settings.api_key is None


def test_profile_env_and_flags_resolve_strongest_first(tmp_path: Path) -> None:
    cfg = write(
        config_path(),
        """
default_profile = "deep"
[profiles.deep]
base_url = "https://api.deepseek.com/v1/"
model = "deepseek-chat"
api_key_env = "DEEPSEEK_KEY"
temperature = 0.3
headers = { "X-Title" = "proofdesk" }
""",
    )
    config = load_config(cfg)
    env = {"DEEPSEEK_KEY": "sk-canary-123"}
    s = resolve_model(config, environ=env)
    assert (s.model, s.base_url, s.temperature) == ("deepseek-chat", "https://api.deepseek.com/v1", 0.3)
    assert s.api_key is not None and s.api_key.reveal() == "sk-canary-123"
    assert "sk-canary-123" not in repr(s) and "sk-canary-123" not in str(s.api_key)
    s = resolve_model(config, environ={**env, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert s.base_url == "http://127.0.0.1:9/v1"
    s = resolve_model(config, base_url="http://x/v1", model="m2", environ={**env, "OPENAI_BASE_URL": "http://y"})
    assert (s.base_url, s.model) == ("http://x/v1", "m2")


def test_no_key_means_no_key() -> None:
    s = resolve_model(load_config(), model="llama", base_url="http://127.0.0.1:8080/v1", environ={})
    assert s.api_key is None and s.api_key_env is None


def test_api_key_env_flag_must_name_a_set_variable() -> None:
    with pytest.raises(ConfigError, match="--api-key-env NOPE: that environment variable is not set"):
        resolve_model(load_config(), api_key_env="NOPE", environ={})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[profiles.a]\nmodel = 3\n", "profiles.a.model: Input should be a valid string"),
        (
            "[profiles.a]\nmodel = 'x'\ncolour = 'red'\n",
            "profiles.a.colour: not a key proofdesk knows (the keys here are api_key_env, base_url, body, ",
        ),
        (
            "[profiles.a]\nmodel = 'x'\nextra_body = { temperature = 0 }\n",
            "profiles.a.extra_body: not a key proofdesk knows (did you mean body?)",
        ),
        ("[run]\nchunk_char = 3000\n", "run.chunk_char: not a key proofdesk knows (did you mean chunk_chars?)"),
        ("defualt_profile = 'a'\n", "defualt_profile: not a key proofdesk knows (did you mean default_profile?)"),
        ("default_profile = 'zz'\n", "default_profile: no profile named 'zz'"),
        ("[run]\nchunk_chars = 10\n", "run.chunk_chars: must be a whole number from 200 to 50000, not 10"),
        ("x = = 1\n", "invalid TOML"),
        (
            "[profiles.a]\nmodel = 'x'\nmax_tokens = 0\n",
            "profiles.a.max_tokens: must be a whole number from 1 to 1000000, not 0",
        ),
        ("[profiles.a]\nmodel = 'x'\nmax_tokens_field = 'tokens'\n", "profiles.a.max_tokens_field: Input should be"),
        (
            "[profiles.a]\nmodel = 'x'\nread_timeout = -1\n",
            "profiles.a.read_timeout: must be a number of seconds above 0, at most 3600, not -1",
        ),
        (
            "[profiles.a]\nmodel = 'x'\nconnect_timeout = 'soon'\n",
            "profiles.a.connect_timeout: must be a number of seconds above 0, at most 600, not 'soon'",
        ),
    ],
)
def test_bad_config_names_file_and_key(text: str, expected: str) -> None:
    path = write(config_path(), text)
    with pytest.raises(ConfigError) as info:
        load_config()
    assert str(info.value).startswith(f"{path}: ")
    assert expected in str(info.value)


def test_output_limit_and_timeouts_from_profile_and_flag() -> None:
    write(
        config_path(),
        "[profiles.cpu]\nmodel = 'gemma'\nbase_url = 'http://127.0.0.1:8080/v1'\nmax_tokens = 512\n"
        "max_tokens_field = 'max_completion_tokens'\nread_timeout = 900\n",
    )
    s = resolve_model(load_config(), profile="cpu", environ={})
    assert (s.max_tokens, s.max_tokens_field, s.read_timeout, s.connect_timeout) == (
        512,
        "max_completion_tokens",
        900,
        10,
    )
    assert resolve_model(load_config(), profile="cpu", max_tokens=64, environ={}).max_tokens == 64
    assert resolve_model(load_config(), model="m", environ={}).max_tokens == 8192  # bounded without a profile too
