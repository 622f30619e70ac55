"""A damaged ``.proofdesk/book.json`` or source reference is one sentence, exit 2, nothing written (issue 25,
item 4); the book file never leads an export to a file outside the workspace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from store.loader import load_chapter
from store.serialize import chapter_bytes
from tests.store.books.epub_builder import build_epub
from tui.cli import main


def _workspace(tmp_path: Path) -> Path:
    book = build_epub(
        tmp_path / "b.epub", [("ch1.xhtml", "One", "<h1>一</h1><p>本文</p>"), ("ch2.xhtml", "Two", "<p>二</p>")]
    )
    ws = tmp_path / "WS"
    assert main(["import", str(book), "-o", str(ws)]) == 0
    return ws


def _refused_export(tmp_path: Path, ws: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert main(["export", str(ws), "--epub", str(tmp_path / "out.epub")]) == 2
    err = capsys.readouterr().err
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    "content",
    [
        "{",
        "[]",
        '{"chapters": 5}',
        '{"chapters": [5]}',
        '{"chapters": [{"file": "ch001.json"}]}',
        '{"chapters": [{"href": "ch1.xhtml"}]}',
        '{"chapters": [{"file": 5, "href": "ch1.xhtml"}]}',
        '{"chapters": [{"file": "ch001.json", "href": ["ch1.xhtml"]}]}',
        '{"chapters": [{"file": "ch001.json", "href": "ch1.xhtml"}], "x": NaN}',
        "\udcff",
    ],
)
def test_a_malformed_book_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str) -> None:
    ws = _workspace(tmp_path)
    (ws / ".proofdesk" / "book.json").write_bytes(content.encode("utf-8", "surrogateescape"))
    assert "book.json" in _refused_export(tmp_path, ws, capsys)


@pytest.mark.parametrize(
    "name", ["../outside.json", "/etc/passwd", "sub/ch001.json", "link.json", "..", ".proofdesk/x.json", ""]
)
def test_book_file_entries_never_name_a_file_outside_the_workspace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    ws = _workspace(tmp_path)
    (tmp_path / "outside.json").write_bytes((ws / "ch001.json").read_bytes())
    (ws / "sub").mkdir()
    (ws / "sub" / "ch001.json").write_bytes((ws / "ch001.json").read_bytes())
    (ws / ".proofdesk" / "x.json").write_bytes((ws / "ch001.json").read_bytes())
    (ws / "link.json").symlink_to(tmp_path / "outside.json")
    meta_path = ws / ".proofdesk" / "book.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta["chapters"][0]["file"] = name
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    err = _refused_export(tmp_path, ws, capsys)
    assert "book.json" in err and "chapter 1" in err


def test_book_file_hrefs_are_spine_documents(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = _workspace(tmp_path)
    meta_path = ws / ".proofdesk" / "book.json"
    for href in ("../META-INF/container.xml", "content.opf", "nope.xhtml", "../../x.xhtml"):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        meta["chapters"][0]["href"] = href
        meta_path.write_text(json.dumps(meta), encoding="utf-8")
        assert "spine" in _refused_export(tmp_path, ws, capsys)


@pytest.mark.parametrize(
    "path",
    [
        "/html/body/p[[[",
        'document("/etc/passwd")',
        "//*",
        "/*",
        "/*/*[2]",  # the body itself
        "count(//p)",
        "/*/*[2]/..",
        "/*/*[2]/*[1]/text()",
        "",
        5,
    ],
)
def test_an_invalid_source_reference(tmp_path: Path, capsys: pytest.CaptureFixture[str], path: object) -> None:
    ws = _workspace(tmp_path)
    chapter = load_chapter(ws / "ch001.json")
    para = chapter.paragraphs[1]
    broken = para.replace(source_ref={"href": "ch1.xhtml", "path": path})
    (ws / "ch001.json").write_bytes(chapter_bytes(chapter.replace(paragraphs=(chapter.paragraphs[0], broken))))
    err = _refused_export(tmp_path, ws, capsys)
    assert "ch001" in err and para.id in err
