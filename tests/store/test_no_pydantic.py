"""The store's everyday work never imports pydantic (a headless run must not pay for it): loading and committing
a chapter, a stale batch's conflict record, a workspace glossary read and extended. Only a file the fast path
declines (the careful path, for its one-line error) brings it in."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a subprocess: the test process has pydantic imported already

ROOT = Path(__file__).resolve().parents[2]

EVERYDAY = """
import shutil, sys
from pathlib import Path
from store.commit import ChapterStore, StaleParagraphError
from store.conflicts import list_conflicts, read_rejected
from store.glossary_read import entry_from
from store.glossary_commit import GlossaryStore, add_entry
from store.merge import BatchItem
from store.workspace import Workspace

folder = Path(sys.argv[1])
shutil.copy(sys.argv[2], folder / "ch.json")
store = ChapterStore(folder / "ch.json")
chapter = store.load()
para = chapter.paragraphs[0]
store.commit_batch([BatchItem.based_on(para, "The first.")], origin="translation", model="m")
try:
    store.commit_batch([BatchItem(para.id, "x", "another source", None)], origin="translation", model="m")
except StaleParagraphError as exc:
    assert read_rejected(exc.conflict_path)
assert list_conflicts(Workspace(folder), folder / "ch.json")
glossary = GlossaryStore(Workspace(folder))
glossary.change(add_entry(entry_from({"id": "e1", "source": "下人", "target": "the servant", "x-mine": [1]})))
GlossaryStore(Workspace(folder)).load()
print("pydantic" in sys.modules)
"""


def run(tmp_path: Path, script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path), *args],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_loading_committing_conflicts_and_the_glossary_never_import_pydantic(tmp_path: Path) -> None:
    assert run(tmp_path, EVERYDAY, str(ROOT / "tui" / "samples" / "rashomon.json")) == "False"


def test_only_a_file_the_fast_path_declines_imports_it(tmp_path: Path) -> None:
    script = """
import sys
from store.errors import ChapterLoadError
from store.loader import parse_chapter
try:
    parse_chapter(b'{"id": "c", "paragraphs": [{"id": "p", "text": 1}]}', "ch.json")
except ChapterLoadError as exc:
    print(exc.line, "pydantic" in sys.modules)
"""
    assert run(tmp_path, script) == "ch.json: paragraphs[0].text: expected a string, got 1 True"
