"""Text imports: encodings, chapter splitting, line-aligned translations (design section 13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.books.text_split import is_heading, split_chapters
from store.loader import load_chapter
from tui.cli import main

NOVEL = "前書き\n\n第一章　出会い\n「おはよう」\n「第一章を読んだ？」と彼は聞いた。\n\n第二章\n本文\n"


@pytest.mark.parametrize("encoding", ["shift_jis", "gb18030", "utf-16", "utf-8-sig", "utf-8"])
def test_every_encoding_is_detected(tmp_path: Path, encoding: str) -> None:
    chinese = "「早上好，你今天怎么样？我们一起去吃饭吧。」"
    text = NOVEL if encoding != "gb18030" else NOVEL.replace("「おはよう」", chinese)
    src = tmp_path / "n.txt"
    src.write_bytes(text.encode(encoding))
    assert main(["import", str(src), "--split-chapters", "-o", str(tmp_path / "ws")]) == 0
    chapters = [load_chapter(p) for p in sorted((tmp_path / "ws").glob("ch*.json"))]
    assert [c.title for c in chapters] == ["前書き", "第一章　出会い", "第二章"]
    joined = "\n".join(p.text for c in chapters for p in c.paragraphs) + "\n"
    assert joined == text


@pytest.mark.parametrize(
    "line",
    [
        "第1章",
        "第１２章 旅立ち",
        "第十二話",
        "第三回：再会",
        "序章",
        "終章",
        "プロローグ",
        "エピローグ",
        "番外編　夏",
        "Chapter 3",
        "Chapter IV: Home",
        "Prologue",
        "Epilogue",
        "　第百二十三章　",
        "第〇話",
    ],
)
def test_heading_forms(line: str) -> None:
    assert is_heading(line)


@pytest.mark.parametrize(
    "line",
    [
        "「第一章…」",
        "「第一章を読んだ？」と彼は聞いた。",
        "第一章を読んだ",
        "Chapters of life",
        "序章から読む。" * 10,
        "",
    ],
)
def test_not_headings(line: str) -> None:
    assert not is_heading(line)


def test_no_heading_is_one_chapter_and_custom_pattern() -> None:
    assert split_chapters("a\nb\n") == [["a", "b"]]
    import re

    assert split_chapters("x\n## A\ny\n## B\n", re.compile("## ")) == [["x"], ["## A", "y"], ["## B"]]


def test_undecodable_names_the_offset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "bad.txt"
    src.write_bytes(b"abc" + b"\xff\xfe\xfd\x80" * 3)
    assert main(["import", str(src), "--encoding", "utf-8"]) == 2
    assert "byte 0xff at offset 3" in capsys.readouterr().err
    assert not (tmp_path / "bad.json").exists()


def test_translation_pairs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, tr = tmp_path / "s.txt", tmp_path / "t.txt"
    src.write_text("一\n\n二\n", encoding="utf-8")
    tr.write_text("one\n\ntwo\n", encoding="utf-8")
    assert main(["import", str(src), "--translation", str(tr)]) == 0
    ch = load_chapter(tmp_path / "s.json")
    assert [p.selected_text for p in ch.paragraphs] == ["one", None, "two"]
    assert ch.paragraphs[0].translations[0].origin == "import"
    tr.write_text("one\ntwo\n\n", encoding="utf-8")
    assert main(["import", str(src), "--translation", str(tr), "-o", str(tmp_path / "x.json")]) == 2
    assert "line 2 is blank in the source" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()
