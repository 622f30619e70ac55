"""Exports never write over a person's files (issue 25, item 1).

No export (text, bilingual, markdown, one file per chapter, EPUB, glossary) writes onto a chapter file, a
glossary or anything under ``.proofdesk/``, whatever the path's spelling (``..``, a symbolic link, another
case); each is refused in one sentence, exit 2, nothing written. An existing ordinary file is replaced only with
``--force``, and stderr says so.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.store.books.epub_builder import build_epub
from tui.cli import main


def _code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        return int(exc.code or 0)


def _workspace(tmp_path: Path) -> Path:
    """An imported book (ch001.json, ch002.json, .proofdesk/source.epub and book.json) with a glossary."""
    book = build_epub(
        tmp_path / "b.epub", [("ch1.xhtml", "One", "<h1>一</h1><p>本文</p>"), ("ch2.xhtml", "Two", "<p>二</p>")]
    )
    ws = tmp_path / "WS"
    assert main(["import", str(book), "-o", str(ws), "--target-language", "en"]) == 0
    assert main(["glossary", str(ws), "add", "本文", "text"]) == 0
    assert sorted(p.name for p in ws.iterdir()) == [".proofdesk", "ch001.json", "ch002.json", "glossary.json"]
    return ws


def _files(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and "_home" not in p.parts}


def _refused(tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    before = _files(tmp_path)
    capsys.readouterr()
    assert _code(argv) == 2
    err = capsys.readouterr().err
    assert _files(tmp_path) == before  # nothing written, nothing replaced, no temp left
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


PROTECTED = [
    "WS/ch001.json",
    "WS/.proofdesk/source.epub",
    "WS/.proofdesk/book.json",
    "WS/glossary.json",
    "WS/.proofdesk/../ch002.json",
    "WS/.PROOFDESK/book.json",
    "WS/GLOSSARY.JSON",
    "WS/CH001.JSON",
    "WS/notes.json",  # a new .json file in a workspace would be listed as a chapter
    "elsewhere/link.epub",  # a symbolic link to WS/ch001.json
    "elsewhere/state/book.json",  # elsewhere/state is a symbolic link to WS/.proofdesk
]


def _spell(tmp_path: Path, where: str) -> Path:
    (tmp_path / "elsewhere").mkdir(exist_ok=True)
    link = tmp_path / "elsewhere" / "link.epub"
    if not link.is_symlink():
        link.symlink_to(tmp_path / "WS" / "ch001.json")
        (tmp_path / "elsewhere" / "state").symlink_to(tmp_path / "WS" / ".proofdesk")
    return tmp_path / where


def test_an_epub_export_never_writes_over_the_workspace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = _workspace(tmp_path)
    for where in PROTECTED:
        for force in ([], ["--force"]):
            argv = ["export", str(ws), "--epub", str(_spell(tmp_path, where)), *force]
            assert "refusing to export" in _refused(tmp_path, argv, capsys), argv


def test_a_text_export_never_writes_over_the_workspace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = _workspace(tmp_path)
    for where in PROTECTED:
        for form in ("text", "bilingual", "markdown"):
            for source in (ws / "ch001.json", ws):
                argv = ["export", str(source), "--format", form, "-o", str(_spell(tmp_path, where)), "--force"]
                assert "refusing to export" in _refused(tmp_path, argv, capsys), argv


def test_a_chapter_export_onto_itself_or_another_chapter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = _workspace(tmp_path)
    (ws / "sub").mkdir()
    monkeypatch.chdir(ws)
    for argv in (
        ["export", "ch001.json", "-o", "ch002.json"],
        ["export", "ch001.json", "-o", "ch001.json"],
        ["export", "ch001.json", "-o", "./sub/../ch001.json"],
    ):
        err = _refused(tmp_path, argv, capsys)
        assert "chapter" in err or "is the file being exported" in err


def test_a_glossary_export_never_writes_over_the_workspace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = _workspace(tmp_path)
    for where in PROTECTED:
        for form in ("tsv", "csv", "json"):
            argv = ["glossary", str(ws), "export", "--format", form, "-o", str(_spell(tmp_path, where)), "--force"]
            assert "refusing to export" in _refused(tmp_path, argv, capsys), argv


def test_an_existing_file_is_replaced_only_with_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = _workspace(tmp_path)
    outs = tmp_path / "outs"
    outs.mkdir()
    earlier = b'{"format": "proofdesk.glossary/1", "entries": []}\n'  # an earlier glossary export
    for argv, out, kept in (
        (["export", str(ws / "ch001.json"), "-o"], outs / "a.txt", b"someone's notes\n"),
        (["export", str(ws), "--format", "markdown", "-o"], outs / "b.md", b"someone's notes\n"),
        (["export", str(ws), "--epub"], outs / "c.epub", b"someone's notes\n"),
        (["glossary", str(ws), "export", "-o"], outs / "d.tsv", b"someone's notes\n"),
        (["glossary", str(ws), "export", "--format", "json", "-o"], outs / "e.json", earlier),
    ):
        out.write_bytes(kept)
        err = _refused(tmp_path, [*argv, str(out)], capsys)
        assert "already exists" in err and "--force" in err
        assert main([*argv, str(out), "--force"]) == 0
        assert out.read_bytes() != kept
        assert f"replaced {out}" in capsys.readouterr().err
    # Any other .json file may be a chapter: never replaced, even with --force.
    (outs / "e.json").write_bytes(b'{"paragraphs": []}\n')
    argv = ["glossary", str(ws), "export", "--format", "json", "-o", str(outs / "e.json"), "--force"]
    assert "chapter" in _refused(tmp_path, argv, capsys)


def test_one_file_per_chapter_checks_every_file_before_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _workspace(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "ch002.txt").write_text("kept\n", encoding="utf-8")
    err = _refused(tmp_path, ["export", str(ws), "-o", f"{out}/"], capsys)
    assert "ch002.txt" in err and "--force" in err
    assert not (out / "ch001.txt").exists()
    assert main(["export", str(ws), "-o", f"{out}/", "--force"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["ch001.txt", "ch002.txt"]
    assert f"replaced {out / 'ch002.txt'}" in capsys.readouterr().err
    for inside in (ws / ".proofdesk", ws / ".proofdesk" / "new"):
        assert "refusing to export" in _refused(tmp_path, ["export", str(ws), "-o", f"{inside}/"], capsys)


def test_export_into_a_folder_that_does_not_exist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = _workspace(tmp_path)
    err = _refused(tmp_path, ["export", str(ws / "ch001.json"), "-o", str(tmp_path / "nope" / "x.txt")], capsys)
    assert "does not exist" in err


def test_a_full_device_is_one_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # /dev/full fails every write with ENOSPC: the real error of a full disk, through the real write path.
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    ws = _workspace(tmp_path)
    for argv in (
        ["export", str(ws / "ch001.json"), "-o", "/dev/full"],
        ["export", str(ws), "--epub", "/dev/full"],
        ["glossary", str(ws), "export", "-o", "/dev/full"],
    ):
        err = _refused(tmp_path, argv, capsys)
        assert "/dev/full" in err and "No space left on device" in err, err
