"""A headless run imports only what it needs: pydantic never (it explains bad input on the careful paths only), nor
the glossary's automaton without glossary terms. The figure this holds: ``tests/bench/bench_jobs.py``'s memory."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from store.loader import load_chapter
from tests.support.model_server import ModelServer, tool_reply

pytestmark = pytest.mark.slow  # a fresh interpreter per run: this test process has imported everything already

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tui" / "samples" / "rashomon.json"
# The command as the console script runs it, then which of the watched modules the process imported.
RUN = """
import sys
from tui.cli import main
code = main(sys.argv[1:])
print(code, *sorted(m for m in ("pydantic", "ahocorasick_rs") if m in sys.modules))
"""


def run(folder: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", RUN, "run", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    )
    return done.stdout.strip()


def test_demo_runs_of_every_task_and_several_chapters(tmp_path: Path) -> None:
    for name in ("a.json", "b.json"):
        shutil.copy(SAMPLE, tmp_path / name)
    assert run(tmp_path, "a.json", "b.json", "--task", "translate", "--model", "demo", "--jobs", "2") == "0"
    assert run(tmp_path, "a.json", "--task", "polish", "--model", "demo") == "0"
    assert run(tmp_path, "b.json", "--task", "proofread", "--model", "demo") == "0"


def test_a_remote_model_and_a_glossary_with_terms(tmp_path: Path, model_server: ModelServer) -> None:
    shutil.copy(SAMPLE, tmp_path / "ch.json")
    entry = {"id": "g1", "source": "下人", "target": "the servant", "status": "approved"}
    (tmp_path / "glossary.json").write_text(
        json.dumps({"format": "proofdesk.glossary/1", "entries": [entry]}), encoding="utf-8"
    )
    chapter = load_chapter(tmp_path / "ch.json")
    first = next(p for p in chapter.paragraphs if not p.is_empty)
    batch = {"paragraphs": [{"paragraph_id": first.id, "translated_text": "The servant waited."}]}
    model_server.add(tool_reply([("add_translation_batch", batch)]))
    args = ("ch.json", "--task", "translate", "--base-url", model_server.base_url, "--model", "m", "--max-turns", "1")
    # The run itself ends incomplete (one paragraph of many): what matters is what it imported to get there.
    assert run(tmp_path, *args) == "1 ahocorasick_rs"
    assert load_chapter(tmp_path / "ch.json").paragraph(first.id).selected_text == "The servant waited."  # type: ignore[union-attr]
