"""``proofdesk import``: bad input is one sentence and exit 2 with nothing written (issue 25, items 2 and 4).

Each file gets its own encoding; only real text encodings are accepted; arguments and file names that are not
UTF-8, endless inputs, a missing folder, a symbolic link, an unwritable place and a full disk are refused in one
sentence instead of a traceback.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from store.loader import load_chapter
from tests.store.books.epub_builder import build_epub
from tui.cli import main

ROOT = Path(__file__).resolve().parents[3]


def _code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        return int(exc.code or 0)


def _files(root: Path) -> dict[str, bytes | None]:
    return {
        str(p): (p.read_bytes() if p.is_file() and not p.is_symlink() else None)
        for p in sorted(root.rglob("*"))
        if "_home" not in p.parts
    }


def _refused(tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    before = _files(tmp_path)
    capsys.readouterr()
    assert _code(argv) == 2, argv
    err = capsys.readouterr().err
    assert _files(tmp_path) == before, argv  # nothing written, not even a temp or a staging folder
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


def _text(tmp_path: Path, text: str = "一行目\n\n二行目\n", name: str = "a.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# -- item 2: each file its own encoding -------------------------------------------------------------------


def test_the_translation_file_gets_its_own_encoding(tmp_path: Path) -> None:
    src, tr = tmp_path / "s.txt", tmp_path / "t.txt"
    src.write_bytes("「おはよう」と彼女は言った。\n\n二行目です。\n".encode("cp932"))
    tr.write_text("“Morning,” she said; it’s early.\n\nLine two.\n", encoding="utf-8")
    assert main(["import", str(src), "--encoding", "cp932", "--translation", str(tr)]) == 0
    chapter = load_chapter(tmp_path / "s.json")
    assert chapter.paragraphs[0].text == "「おはよう」と彼女は言った。"
    assert chapter.paragraphs[0].selected_text == "“Morning,” she said; it’s early."
    # --translation-encoding names the translation's own encoding, whatever the source's.
    src.write_text("一\n", encoding="utf-8")
    tr.write_bytes("それは本だ\n".encode("euc_jp"))
    out = tmp_path / "x.json"
    assert main(["import", str(src), "--translation", str(tr), "--translation-encoding", "euc_jp", "-o", str(out)]) == 0
    assert load_chapter(tmp_path / "x.json").paragraphs[0].selected_text == "それは本だ"


# -- item 4: one sentence, exit 2, nothing written ---------------------------------------------------------


@pytest.mark.parametrize("name", ["punycode", "unicode_escape", "raw_unicode_escape", "idna", "hex", "rot13", "nope"])
def test_only_text_encodings_are_accepted(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    src = _text(tmp_path, "a\\u0041 b\n")
    for flag in ("--encoding", "--translation-encoding"):
        argv = ["import", str(src), flag, name, "--translation", str(src), "-o", str(tmp_path / "o.json")]
        assert "encoding" in _refused(tmp_path, argv, capsys)


def test_arguments_that_are_not_utf8_are_one_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # What Python makes of a non-UTF-8 byte in argv or a file name: a lone surrogate (surrogateescape).
    src = _text(tmp_path)
    odd = _text(tmp_path, name="bad\udcff.txt")
    out = str(tmp_path / "o.json")
    for argv in (
        ["import", str(odd)],  # the chapter id would come from the file name
        ["import", str(src), "--title", "ti\udcfftle", "-o", out],
        ["import", str(src), "--id", "i\udcffd", "-o", out],
        ["import", str(src), "--source-language", "j\udcffa", "-o", out],
        ["import", str(src), "--encoding", "utf\udcff8", "-o", out],
        ["import", str(src), "--split-chapters", "--chapter-pattern", "第\udcff", "-o", str(tmp_path / "ws")],
    ):
        err = _refused(tmp_path, argv, capsys)
        assert "UTF-8" in err and "\\udcff" in err, err
    # A file name that is not UTF-8 is still a file: with an id given it imports, and is shown escaped.
    assert main(["import", str(odd), "--id", "odd"]) == 0
    assert load_chapter(tmp_path / "bad\udcff.json").id == "odd"
    assert "bad\\udcff.json" in capsys.readouterr().err


def test_an_endless_or_huge_input_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(tmp_path, ["import", "/dev/zero", "-o", str(tmp_path / "z.json")], capsys)
    assert "more than" in err and "MiB" in err
    huge = tmp_path / "huge.txt"
    with open(huge, "wb") as fh:
        fh.truncate(300 * 1024 * 1024)  # sparse: nothing of it is ever read
    assert "more than" in _refused(tmp_path, ["import", str(huge), "-o", str(tmp_path / "h.json")], capsys)
    src = _text(tmp_path)
    argv = ["import", str(src), "--translation", "/dev/zero", "-o", str(tmp_path / "t.json")]
    assert "more than" in _refused(tmp_path, argv, capsys)


def test_import_into_a_folder_that_does_not_exist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _text(tmp_path)
    err = _refused(tmp_path, ["import", str(src), "-o", str(tmp_path / "newdir" / "ch.json")], capsys)
    assert "does not exist" in err and "temp" not in err
    (tmp_path / "file").write_text("x", encoding="utf-8")
    err = _refused(tmp_path, ["import", str(src), "-o", str(tmp_path / "file" / "ch.json")], capsys)
    assert "not a folder" in err or "does not exist" in err


def test_import_never_writes_over_its_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, tr = _text(tmp_path), _text(tmp_path, "one\n\ntwo\n", name="t.txt")
    (tmp_path / "sub").mkdir()
    for out in (src, tr, tmp_path / "sub" / ".." / "t.txt"):
        argv = ["import", str(src), "--translation", str(tr), "-o", str(out), "--force"]
        assert "would replace an input" in _refused(tmp_path, argv, capsys)


def test_import_onto_a_symbolic_link(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _text(tmp_path)
    book = build_epub(tmp_path / "b.epub", [("a.xhtml", "A", "<p>本文</p>")])
    (tmp_path / "real.json").write_text("{}", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    for name, to in (("dangling", "nowhere"), ("file", "real.json"), ("folder", "empty")):
        (tmp_path / name).symlink_to(tmp_path / to)
    for argv in (
        ["import", str(src), "-o", str(tmp_path / "dangling")],
        ["import", str(src), "-o", str(tmp_path / "file"), "--force"],
        ["import", str(book), "-o", str(tmp_path / "dangling")],
        ["import", str(book), "-o", str(tmp_path / "folder")],
        ["import", str(src), "--split-chapters", "-o", str(tmp_path / "folder")],
        ["import", str(src), "--split-chapters", "-o", str(tmp_path / "dangling")],
    ):
        assert "symbolic link" in _refused(tmp_path, argv, capsys), argv


def test_import_where_nothing_can_be_made(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A regular file where a folder should be: no one, root included, can create anything under it.
    src = _text(tmp_path)
    book = build_epub(tmp_path / "b.epub", [("a.xhtml", "A", "<p>本文</p>")])
    (tmp_path / "file").write_text("x", encoding="utf-8")
    for argv in (
        ["import", str(book), "-o", str(tmp_path / "file" / "ws")],
        ["import", str(src), "--split-chapters", "-o", str(tmp_path / "file" / "sub" / "ws")],
    ):
        assert str(tmp_path / "file") in _refused(tmp_path, argv, capsys)


def test_import_force_never_replaces_a_workspace_and_its_help_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Decided (issue 25, item 1): --force replaces a chapter file only. A workspace folder holds translations and
    # reviews a new import cannot merge, so no flag replaces it; the help says so.
    book = build_epub(tmp_path / "b.epub", [("a.xhtml", "A", "<p>本文</p>")])
    ws = tmp_path / "ws"
    assert main(["import", str(book), "-o", str(ws)]) == 0
    err = _refused(tmp_path, ["import", str(book), "-o", str(ws), "--force"], capsys)
    assert "already exists" in err and "never replaces a folder" in err
    assert _code(["import", "--help"]) == 0
    helptext = " ".join(capsys.readouterr().out.split())
    assert "--force replace OUT if it is an existing chapter file (a workspace folder is never replaced)" in helptext


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-rm", "true"], capture_output=True, check=False).returncode == 0


# Inside a user and mount namespace: a read-only tmpfs (EROFS, even for root) and a tiny one that fills up
# (ENOSPC). Each import must end with exit 2, one line, and leave the mount as empty as it was.
NAMESPACE_SCRIPT = """
set -u
mount -t tmpfs -o "$1" proofdesk-test "$2" || exit 99
shift 2
"$@" 2>"$PROOFDESK_ERR"
code=$?
echo "code=$code left=$(ls -A "$MOUNT" | tr '\\n' ' ')"
"""


def _in_namespace(mount: Path, options: str, argv: list[str], err: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PROOFDESK_ERR": str(err), "MOUNT": str(mount)}
    command = ["unshare", "-rm", "sh", "-c", NAMESPACE_SCRIPT, "sh", options, str(mount)]
    done = subprocess.run(
        [*command, sys.executable, "-m", "tui.cli", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    if done.returncode == 99:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()[:200]}")
    return done.stdout.strip()


@pytest.mark.slow  # proofdesk in a child process, in its own mount namespace
@pytest.mark.skipif(not _unshare_works(), reason="unprivileged user+mount namespaces are not available")
def test_import_onto_a_read_only_or_full_file_system(tmp_path: Path) -> None:
    noise = os.urandom(300_000).hex()  # does not compress: the kept source.epub alone fills the tiny tmpfs
    book = build_epub(tmp_path / "b.epub", [("a.xhtml", "A", f"<p>本文</p><p>{noise}</p>")])
    src = _text(tmp_path, "第一章\n本文\n" + noise + "\n第二章\n本文\n")
    mount = tmp_path / "mnt"
    mount.mkdir()
    err = tmp_path / "err.txt"
    for options in ("ro,size=1m", "size=64k"):
        for argv in (
            ["import", str(book), "-o", str(mount / "ws")],
            ["import", str(src), "--split-chapters", "-o", str(mount / "ws")],
            ["import", str(src), "-o", str(mount / "ch.json")],
        ):
            said = _in_namespace(mount, options, argv, err)
            text = err.read_text(encoding="utf-8")
            assert said == "code=2 left=", (options, argv, said, text)
            assert "Traceback" not in text and text.count("\n") == 1, text
