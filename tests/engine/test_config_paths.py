"""The configuration file on its two paths (engine/config.py, engine/config_careful.py).

A file the fast path (msgspec) takes must read the same on the careful path (pydantic's lax mode, the behaviour
before msgspec); what the fast path cannot take goes to the careful path, which accepts it or names the key.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config import Config, Profile, RunDefaults, load_config
from engine.field_steps import fast_convert
from tests.support.fast_paths import assert_same_on_both_paths

ROOT = Path(__file__).resolve().parents[2]

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([0, 1, 2, 3, 20, 64, 65, 201, 8192, 2**70, 0.5, 0.75, 2.5, 600.0, 601.0, 1e6, 1e7]),
    st.sampled_from([float("nan"), float("inf"), -1, "", "m", "USD", "usd", "EURO", "USD\n", "3", "true"]),
    st.sampled_from(["max_tokens", "max_completion_tokens", {"a": "b"}, {"a": 1}, ["a"]]),
)


def _table(struct: type[msgspec.Struct], extra: str) -> st.SearchStrategy[dict[str, Any]]:
    names = [f.name for f in msgspec.structs.fields(struct)] + [extra]
    return st.fixed_dictionaries({}, optional={name: _SCALARS for name in names})


_PROFILE = st.builds(lambda d, m: {**d, "model": m}, _table(Profile, "modle"), st.sampled_from(["m", "demo"]))
_CONFIG = st.fixed_dictionaries(
    {},
    optional={
        "profiles": st.dictionaries(st.sampled_from(["a", "b"]), st.one_of(_PROFILE, _SCALARS), max_size=2),
        "run": _table(RunDefaults, "job"),
        "default_profile": _SCALARS,
        "keymap": _SCALARS,
        "theme": _SCALARS,
    },
)


@settings(max_examples=500, deadline=None)
@given(_CONFIG)
def test_whatever_the_fast_path_accepts_the_careful_path_reads_the_same(data: dict[str, Any]) -> None:
    assert_same_on_both_paths(Config, data)


@pytest.mark.parametrize(
    "profile",
    [
        {"currency": "USD\n"},  # Python's $ matches before a final newline; pydantic's does not
        {"price_input": float("nan"), "price_output": 1},
        {"price_input": float("inf"), "price_output": 1},
        {"price_input": True, "price_output": 1},
        {"price_input": 1},
        {"temperature": "0.5"},
        {"max_tokens": 5.0},
        {"read_timeout": True},
    ],
)
def test_edges_read_the_same_on_both_paths(profile: dict[str, Any]) -> None:
    assert_same_on_both_paths(Config, {"profiles": {"p": {"model": "m", **profile}}})


def test_a_usual_file_takes_the_fast_path() -> None:
    data = {
        "default_profile": "local",
        "profiles": {
            "local": {"base_url": "http://127.0.0.1:8080/v1", "model": "qwen", "temperature": 0, "read_timeout": 600},
            "paid": {"model": "gpt", "api_key_env": "KEY", "price_input": 1, "price_output": 2.5, "currency": "eur"},
        },
        "run": {"chunk_chars": 3000, "jobs": 4, "memory_threshold": 1, "proofread_apply": True},
        "keymap": {"quit": "ctrl+q"},
    }
    config = fast_convert(Config, data)
    assert config is not None
    assert config.profiles["local"].read_timeout == 600.0
    assert config.profiles["paid"].prices is not None


@pytest.mark.slow  # a fresh interpreter
def test_a_valid_file_never_loads_the_careful_path(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('default_profile = "p"\n[profiles.p]\nmodel = "m"\nprice_input = 1\nprice_output = 2\n')
    bad = tmp_path / "bad.toml"
    bad.write_text("[run]\njobs = 0\n")
    code = f"""
import sys
from pathlib import Path
from engine.config import ConfigError, load_config
load_config(Path({str(path)!r}))
print("engine.config_careful" in sys.modules, "engine.struct_twin" in sys.modules)
try:
    load_config(Path({str(bad)!r}))
except ConfigError as exc:
    said = str(exc).endswith("run.jobs: must be a whole number from 1 to 64, not 0")
    print("engine.config_careful" in sys.modules, said)
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False", "True", "True"]
    assert load_config(path).profiles["p"].prices is not None
