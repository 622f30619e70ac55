"""``proofdesk check``: files and folders, one line per warning or --json, --codes, --all, --dismiss; exit 0/1/2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.checks import dismissed_codes
from store.loader import load_chapter
from store.model import Chapter, Paragraph, TranslationVersion
from store.serialize import chapter_bytes
from tests.engine.checks.fiction import rashomon
from tui.cli import main

ROOT = Path(__file__).resolve().parents[2]
LAST = rashomon(40)
ONE = [
    ("p1", rashomon(24), "You wretch, where are you going? やむ"),  # KANA_LEFT, QUOTES_LOST
    ("p2", "", None),
    ("p3", LAST, "Nobody knows where the servant went."),
    ("p4", rashomon(5), None),
]
TWO = [("q1", LAST, "The servant's whereabouts, nobody knows."), ("q2", rashomon(35), "“Is that so?”")]


def write(path: Path, chapter_id: str, rows: list[tuple[str, str, str | None]]) -> Path:
    paragraphs = []
    for pid, source, translation in rows:
        if translation is None:
            paragraphs.append(Paragraph(id=pid, text=source))
            continue
        version = TranslationVersion(id="v1", text=translation, origin="translation", created_at="2026-01-01T00:00:00Z")
        paragraphs.append(Paragraph(id=pid, text=source, translations=(version,), selected_translation_id="v1"))
    chapter = Chapter(id=chapter_id, source_language="ja", target_language="en", paragraphs=tuple(paragraphs))
    path.write_bytes(chapter_bytes(chapter))
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "book"
    folder.mkdir()
    write(folder / "ch01.json", "ch01", ONE)
    write(folder / "ch02.json", "ch02", TWO)
    (folder / "glossary.json").write_text('{"format": "proofdesk.glossary/1", "entries": []}\n', encoding="utf-8")
    return folder


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_chapter_one_line_per_warning(capsys: pytest.CaptureFixture[str], workspace: Path) -> None:
    path = str(workspace / "ch01.json")
    code, out, err = cli(capsys, path)
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        f"{path}:[1] p1 KANA_LEFT Japanese kana left in the translation: “やむ”",
        f"{path}:[1] p1 QUOTES_LOST the source has dialogue in quotes but the translation has no quote marks",
    ]


def test_a_workspace_compares_its_chapters(capsys: pytest.CaptureFixture[str], workspace: Path) -> None:
    code, out, _ = cli(capsys, str(workspace), "--codes", "INCONSISTENT")
    one, two = workspace / "ch01.json", workspace / "ch02.json"
    assert code == 1
    assert out.splitlines() == [
        f"{one}:[3] p3 INCONSISTENT the same source is translated differently in [1] q1 ({two})",
        f"{two}:[1] q1 INCONSISTENT the same source is translated differently in [3] p3 ({one})",
    ]


def test_json_lists_warnings_with_their_file(capsys: pytest.CaptureFixture[str], workspace: Path) -> None:
    code, out, _ = cli(capsys, str(workspace / "ch01.json"), "--json", "--codes", "kana_left")
    assert code == 1
    assert json.loads(out) == [
        {
            "file": str(workspace / "ch01.json"),
            "code": "KANA_LEFT",
            "paragraph_id": "p1",
            "paragraph_index": 1,
            "message": "Japanese kana left in the translation: “やむ”",
            "severity": "error",
            "span": [33, 35],
        }
    ]


def test_no_warning_exits_0(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path / "ok.json", "ok", [("p1", LAST, "Nobody knows where the servant went.")])
    assert cli(capsys, str(path)) == (0, "", "")
    code, out, _ = cli(capsys, str(path), "--json")
    assert (code, json.loads(out)) == (0, [])


def test_dismiss_then_only_all_shows_it(capsys: pytest.CaptureFixture[str], workspace: Path) -> None:
    path = workspace / "ch01.json"
    code, out, err = cli(capsys, str(path), "--dismiss", "p1", "KANA_LEFT")
    assert (code, out, err) == (0, f"{path}:[1] p1 KANA_LEFT dismissed\n", "")
    assert dismissed_codes(load_chapter(path).paragraphs[0]) == {"KANA_LEFT"}
    code, out, _ = cli(capsys, str(path))
    assert code == 1 and "KANA_LEFT" not in out and "QUOTES_LOST" in out
    code, out, _ = cli(capsys, str(path), "--all")
    assert f"{path}:[1] p1 KANA_LEFT Japanese kana left in the translation: “やむ” (dismissed)" in out.splitlines()
    code, out, _ = cli(capsys, str(path), "--all", "--json", "--codes", "KANA_LEFT")
    assert code == 0 and [(w["code"], w["dismissed"]) for w in json.loads(out)] == [("KANA_LEFT", True)]
    again = cli(capsys, str(path), "--dismiss", "p1", "KANA_LEFT")
    assert again == (0, f"{path}:[1] p1 KANA_LEFT was already dismissed\n", "")


def test_dismissing_a_code_that_does_not_fire_says_so(capsys: pytest.CaptureFixture[str], workspace: Path) -> None:
    path = workspace / "ch01.json"
    code, out, err = cli(capsys, str(path), "--dismiss", "p3", "REPETITION")
    assert code == 0 and out.endswith("p3 REPETITION dismissed\n")
    assert err == "proofdesk: note: REPETITION does not fire on paragraph p3 as it is now\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["missing.json"], "missing.json: no such file"),
        (["ch01.json", "--codes", "NOPE"], "unknown check code 'NOPE'; the codes are SAME_AS_SOURCE, KANA_LEFT"),
        (["ch01.json", "--codes", ","], "--codes names no code"),
        (["empty"], "empty: no chapter files in this folder"),
        (["ch01.json", "--dismiss", "p9", "KANA_LEFT"], "ch01.json: no paragraph has the id 'p9'"),
        (["ch01.json", "--dismiss", "p4", "KANA_LEFT"], "paragraph p4 has no translation, so no warning to dismiss"),
        (["ch01.json", "--dismiss", "p1", "KANA"], "unknown check code 'KANA'"),
        (["ch01.json", "ch02.json", "--dismiss", "p1", "KANA_LEFT"], "--dismiss takes one chapter file"),
        (["notes.json"], "notes.json: expected a JSON object"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], workspace: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str], message: str
) -> None:
    (workspace / "empty").mkdir()
    (workspace / "notes.json").write_text("[1, 2]\n", encoding="utf-8")
    monkeypatch.chdir(workspace)
    before = (workspace / "ch01.json").read_bytes()
    code, out, err = cli(capsys, *argv)
    assert (code, out) == (2, "") and message in err and len(err.strip().splitlines()) == 1
    assert (workspace / "ch01.json").read_bytes() == before


def test_control_characters_from_the_file_are_shown_escaped(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path / "ch.json", "ch", [("p1", "彼は三日待った。", "He waited three days." + "\x1b[2J" * 8)])
    code, out, _ = cli(capsys, str(path), "--codes", "REPETITION")
    assert code == 1 and "\x1b" not in out and "“\\x1b[2J” repeated 8 times in a row" in out
    name = tmp_path / "bad\x1b[2Jname.json"
    write(name, "ch", [("p1", "彼は3日待った。", "He waited days.")])
    code, out, _ = cli(capsys, str(name))
    assert code == 1 and "\x1b" not in out and "bad\\x1b[2Jname.json:[1] p1 NUMBERS_DIFFER" in out


@pytest.mark.slow  # proofdesk in a fresh process
def test_the_installed_command_exits_with_the_codes(workspace: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "tui.cli", "check", *argv],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
            cwd=workspace,
            check=False,
        )

    found = run(".")
    assert found.returncode == 1 and "ch01.json:[1] p1 KANA_LEFT" in found.stdout and found.stderr == ""
    bad = run("nope.json")
    assert bad.returncode == 2 and bad.stdout == "" and "Traceback" not in bad.stderr
    assert bad.stderr == "proofdesk: nope.json: no such file\n"
    dismissed = run("ch01.json", "--dismiss", "p1", "KANA_LEFT")
    assert dismissed.returncode == 0 and run("ch01.json", "--codes", "KANA_LEFT").returncode == 0
