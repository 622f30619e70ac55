"""Control characters on the way out, and language codes on the way in (issue 25, item 3; design sections 10
and 21).

An EPUB export replaces C0/C1 controls (but newline and tab), U+FFFE, U+FFFF and lone surrogates with U+FFFD and
names the paragraphs; a text export to a file writes the text as it is, to a terminal with visible escapes; a
language code given on import must be a well-formed BCP 47 tag.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from store.loader import load_chapter
from store.model import TranslationVersion
from store.serialize import chapter_bytes
from tests.store.books.epub_builder import build_epub, structural_problems
from tui.cli import main

CONTROLS = "\x1b[31m\x00\x07\x7f\x85\x9b\r\ufffe\uffff"


def _workspace(tmp_path: Path) -> Path:
    book = build_epub(
        tmp_path / "b.epub",
        [("ch1.xhtml", "One", "<h1>一</h1><p>本文</p><p>次</p>"), ("ch2.xhtml", "Two", "<p>二</p>")],
    )
    ws = tmp_path / "WS"
    assert main(["import", str(book), "-o", str(ws), "--target-language", "en"]) == 0
    return ws


def _translate(path: Path, texts: dict[int, str], title: str | None = None) -> list[str]:
    """Select ``texts[n]`` as paragraph n's translation; return the IDs of those paragraphs."""
    chapter = load_chapter(path)
    paras = list(chapter.paragraphs)
    for n, text in texts.items():
        v = TranslationVersion(id=f"v{n}", text=text, origin="translation", created_at="2026-01-01T00:00:00Z")
        paras[n] = paras[n].replace(translations=(v,), selected_translation_id=v.id)
    path.write_bytes(chapter_bytes(chapter.replace(paragraphs=tuple(paras), title_translation=title)))
    return [paras[n].id for n in texts]


@pytest.mark.parametrize("bilingual", [False, True])
def test_an_epub_export_replaces_control_characters_and_names_the_paragraphs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bilingual: bool
) -> None:
    ws = _workspace(tmp_path)
    dirty = _translate(
        ws / "ch001.json", {1: f"Text {CONTROLS} end", 2: "Clean\tline\nbreak"}, title=f"One\x1b{CONTROLS}"
    )
    out = tmp_path / "out.epub"
    capsys.readouterr()
    assert main(["export", str(ws), "--epub", str(out), *(["--bilingual"] if bilingual else [])]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert dirty[0] in err and dirty[1] not in err and "U+FFFD" in err and "ch001" in err
    assert "\x1b" not in err  # the report itself is safe to show
    assert structural_problems(out) == []
    with zipfile.ZipFile(out) as book:
        ch1 = book.read("OEBPS/ch1.xhtml").decode("utf-8")
        nav = book.read("OEBPS/nav.xhtml").decode("utf-8")
    assert "Text \ufffd[31m" + "\ufffd" * 8 + " end" in ch1
    assert "Clean\tline<br/>break" in ch1  # tab and newline are text
    assert "One\ufffd\ufffd[31m" in nav


def test_a_text_export_writes_controls_to_a_file_and_escapes_them_on_a_terminal(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    _translate(ws / "ch001.json", {1: "Red \x1b[31m!"})
    out = tmp_path / "x.txt"
    assert main(["export", str(ws / "ch001.json"), "-o", str(out)]) == 0
    assert "Red \x1b[31m!" in out.read_text(encoding="utf-8")  # a file gets the text as it is
    master, slave = os.openpty()
    try:
        assert main(["export", str(ws / "ch001.json"), "-o", os.ttyname(slave)]) == 0
        shown = os.read(master, 65536).decode("utf-8")
    finally:
        os.close(master)
        os.close(slave)
    assert "\x1b" not in shown and "Red \\x1b[31m!" in shown


@pytest.mark.parametrize(
    "tag", ["en", "zh-Hans", "zh-Hant-TW", "ja-JP", "sr-Latn-RS", "es-419", "de-CH-1996", "en-US-x-twain", "x-klingon"]
)
def test_well_formed_language_tags_are_taken(tmp_path: Path, tag: str) -> None:
    src = tmp_path / "a.txt"
    src.write_text("一\n", encoding="utf-8")
    assert main(["import", str(src), "--source-language", "ja", "--target-language", tag]) == 0
    assert load_chapter(tmp_path / "a.json").target_language == tag


@pytest.mark.parametrize(
    "tag", ["en_US", "e", "englishlanguage", "en-", "-en", "en--US", "en US", "x", "ja-\x1b[31m", "zh-Hans-", "日本"]
)
def test_ill_formed_language_tags_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], tag: str) -> None:
    src = tmp_path / "a.txt"
    src.write_text("一\n", encoding="utf-8")
    book = build_epub(tmp_path / "b.epub", [("a.xhtml", "A", "<p>本文</p>")])
    for argv in (
        ["import", str(src), f"--target-language={tag}"],  # = so that "-en" is not taken for an option
        ["import", str(src), f"--source-language={tag}"],
        ["import", str(book), "-o", str(tmp_path / "ws"), f"--target-language={tag}"],
        ["import", str(src), "--split-chapters", "-o", str(tmp_path / "ws"), f"--target-language={tag}"],
    ):
        capsys.readouterr()
        try:
            code = main(argv)
        except SystemExit as exc:
            code = int(exc.code or 0)
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and "BCP 47" in err, err
        assert "\x1b" not in err
        assert sorted(p.name for p in tmp_path.iterdir()) == ["_home", "a.txt", "b.epub"]
