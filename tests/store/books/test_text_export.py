"""``proofdesk export --format`` for a chapter and a workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.loader import load_chapter
from tui.cli import main


def _ws(tmp_path: Path) -> Path:
    src, tr = tmp_path / "s.txt", tmp_path / "t.txt"
    src.write_text("第一章\n\n# 本文\n", encoding="utf-8")
    tr.write_text("Chapter one\n\n# text\n", encoding="utf-8")
    ws = tmp_path / "ws"
    ws.mkdir()
    assert main(["import", str(src), "--translation", str(tr), "-o", str(ws / "ch002.json")]) == 0
    src.write_text("序章\n", encoding="utf-8")
    assert main(["import", str(src), "-o", str(ws / "ch001.json")]) == 0
    return ws


def test_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = _ws(tmp_path)
    capsys.readouterr()
    assert main(["export", str(ws / "ch002.json"), "--format", "bilingual"]) == 0
    assert capsys.readouterr().out == "第一章\nChapter one\n\n\n# 本文\n# text\n\n"
    assert main(["export", str(ws / "ch002.json"), "--format", "markdown"]) == 0
    assert capsys.readouterr().out == "# 第一章\n\nChapter one\n\n\\# text\n"
    # A workspace: every chapter in file-name order; untranslated with --missing source.
    assert main(["export", str(ws), "--missing", "source"]) == 0
    assert capsys.readouterr().out == "序章\nChapter one\n\n# text\n"
    out = tmp_path / "out"
    assert main(["export", str(ws), "--format", "text", "-o", f"{out}/"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["ch001.txt", "ch002.txt"]
    assert (out / "ch002.txt").read_text(encoding="utf-8") == "Chapter one\n\n# text\n"
    # The plain export of one chapter is unchanged.
    assert main(["export", str(ws / "ch002.json")]) == 0
    assert capsys.readouterr().out == "Chapter one\n\n# text\n"
    assert load_chapter(ws / "ch002.json").paragraphs[0].translations[0].origin == "import"
