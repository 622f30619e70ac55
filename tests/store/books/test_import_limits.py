"""Imports that would never finish, or finish as something nobody can open (issue 25, item 5; design section 21).

A ``--chapter-pattern`` is evaluated under a time limit, in a process of its own that is stopped when the limit
passes; a text over the paragraph caps (50,000 in one chapter or EPUB document, 200,000 in a book) is refused in one
sentence that suggests ``--split-chapters``, unless ``--max-paragraphs`` raises the cap.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from store.books.heading_scan import PatternTooSlow, heading_lines
from store.loader import load_chapter
from tests.store.books.epub_builder import build_epub
from tui.cli import main


def _tree(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if "_home" not in p.parts)  # _home: the CLI's own log


def _refused(tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    before = _tree(tmp_path)
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert _tree(tmp_path) == before  # nothing written, not even a staging folder
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


@pytest.mark.slow  # waits out the pattern's time limit (2 s) in a forked process
@pytest.mark.timeout(90)  # before the time limit this pattern never finished: the test hung until this timeout
def test_a_catastrophic_chapter_pattern_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "novel.txt"
    src.write_text("第一章\n" + "あ" * 40 + "x\n本文\n", encoding="utf-8")
    argv = ["import", str(src), "--split-chapters", "--chapter-pattern", r"^(\S+\s?)+章$", "-o", str(tmp_path / "ws")]
    err = _refused(tmp_path, argv, capsys)
    assert "--chapter-pattern" in err and "seconds" in err


def test_the_time_limit_stops_a_slow_pattern_and_passes_a_good_one() -> None:
    lines = ["序", "第一章", "あ" * 3000 + "x", "本文", "第二章"]
    # Polynomial rather than exponential, and no nested repeat to spot: only a time limit catches it.
    with pytest.raises(PatternTooSlow):
        heading_lines(lines, re.compile(r"\S*\S*\S*\S*章$"), seconds=0.3)
    assert heading_lines(lines, re.compile(r"第.章"), seconds=30) == [1, 4]


def test_a_custom_pattern_still_splits(tmp_path: Path) -> None:
    src = tmp_path / "novel.txt"
    src.write_text("前書き\n## 一\n本文\n## 二\n本文\n", encoding="utf-8")
    argv = ["import", str(src), "--split-chapters", "--chapter-pattern", "## ", "-o", str(tmp_path / "ws")]
    assert main(argv) == 0
    assert [load_chapter(p).title for p in sorted((tmp_path / "ws").glob("*.json"))] == ["前書き", "## 一", "## 二"]


def test_a_text_over_the_chapter_cap_is_refused_and_split_is_suggested(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "long.txt"
    src.write_text("本文\n" * 50_001, encoding="utf-8")
    err = _refused(tmp_path, ["import", str(src), "-o", str(tmp_path / "long.json")], capsys)
    assert "50,001 paragraphs" in err and "--split-chapters" in err and "--max-paragraphs" in err
    # Split, it is still one chapter (no heading in it): the same cap holds.
    err = _refused(tmp_path, ["import", str(src), "--split-chapters", "-o", str(tmp_path / "ws")], capsys)
    assert "50,001 paragraphs" in err
    assert main(["import", str(src), "-o", str(tmp_path / "long.json"), "--max-paragraphs", "60000"]) == 0
    assert len(load_chapter(tmp_path / "long.json").paragraphs) == 50_001


def test_a_book_over_the_book_cap_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "novel.txt"
    src.write_text("".join(f"第{n}章\n" + "本文\n" * 999 for n in range(1, 202)), encoding="utf-8")
    err = _refused(tmp_path, ["import", str(src), "--split-chapters", "-o", str(tmp_path / "ws")], capsys)
    assert "201,000 paragraphs" in err and "200,000" in err and "--max-paragraphs" in err
    small = tmp_path / "small.txt"
    small.write_text("第1章\n本文\n第2章\n本文\n本文\n", encoding="utf-8")
    argv = ["import", str(small), "--split-chapters", "--max-paragraphs", "4", "-o", str(tmp_path / "ws")]
    assert "5 paragraphs" in _refused(tmp_path, argv, capsys)
    assert main([*argv[:3], "--max-paragraphs", "5", "-o", str(tmp_path / "ws")]) == 0


def test_an_epub_over_the_caps_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book = build_epub(
        tmp_path / "b.epub", [("a.xhtml", "A", "<p>一</p><p>二</p><p>三</p>"), ("b.xhtml", "B", "<p>四</p>")]
    )
    argv = ["import", str(book), "-o", str(tmp_path / "ws"), "--max-paragraphs", "2"]
    err = _refused(tmp_path, argv, capsys)
    assert "a.xhtml" in err and "3 blocks" in err and "--max-paragraphs" in err
    assert main([*argv[:-1], "3"]) == 2  # each document fits now, the book's 4 paragraphs do not
    assert main([*argv[:-1], "4"]) == 0
