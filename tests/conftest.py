"""Suite-wide fixtures: every test gets its own config, data, state, cache and log folders. Every hypothesis test
is marked ``slow`` (the quick loop, ``pytest -m "not slow"``, leaves fuzzing to the full run)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["tests.support.model_server"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every hypothesis test ``slow``: each runs hundreds of examples (``hypothesis.is_hypothesis_test``)."""
    for item in items:
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point platformdirs (XDG) and PROOFDESK_CONFIG at a per-test folder; drop real model settings."""
    home = tmp_path / "_home"
    for var, sub in (
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
    ):
        (home / sub).mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(var, str(home / sub))
    monkeypatch.setenv("PROOFDESK_CONFIG", str(home / "config" / "proofdesk" / "config.toml"))
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return home
