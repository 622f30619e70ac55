"""Arrows point one way: tui -> engine -> store. engine/ and store/ never import textual, rich or tui."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import engine
import store

ROOT = Path(__file__).resolve().parents[1]


def _modules(package: object) -> list[str]:
    return [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]  # type: ignore[attr-defined]


def test_engine_and_store_never_import_the_ui() -> None:
    names = _modules(engine) + _modules(store)
    assert len(names) > 30 and "engine.run" in names and "store.watcher" in names
    probe = (
        "import importlib, json, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout))
    assert not loaded & {"textual", "rich", "tui"}, sorted(loaded & {"textual", "rich", "tui"})
