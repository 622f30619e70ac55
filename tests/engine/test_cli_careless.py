"""Careless flags and tampered workspaces through the command line (issue 17, items 4, 5, 11, 15 and 16).

In-process through ``tui.cli.main`` with the offline demo model; the tests that start ``proofdesk`` in a fresh
process are marked slow.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from store.lock import RunLock
from store.model import Chapter, Paragraph, TranslationVersion
from store.serialize import chapter_bytes
from store.workspace import Workspace
from tests.engine.loop_support import IDS, write_chapter
from tui.cli import main

ROOT = Path(__file__).resolve().parents[2]
DEMO = ("--model", "demo")


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_sentence(err: str, *needles: str) -> None:
    """Every needle on one and the same line of ``err``, and no traceback."""
    assert "Traceback" not in err
    assert any(all(needle in line for needle in needles) for line in err.splitlines()), (needles, err)


def run_started_lines(path: Path) -> int:
    return sum(json.loads(line)["kind"] == "run_started" for line in path.read_text(encoding="utf-8").splitlines())


@pytest.fixture
def chapter(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return write_chapter(folder)


# -- item 15: two runs on one chapter ------------------------------------------------------------------------


def test_a_second_run_is_refused_in_one_sentence_and_force_runs_anyway(
    chapter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = chapter.read_bytes()
    holder = RunLock(Workspace.for_chapter(chapter), chapter)
    holder.acquire("polish")
    try:
        code, _, err = cli(capsys, "run", str(chapter), "--task", "translate", *DEMO)
        assert code == 1  # not bad input: the same command succeeds once the other run is done
        one_sentence(
            err,
            f"another run is polishing ch01.json (pid {os.getpid()}, started ",
            "wait for it or pass --force to run anyway",
        )
        assert chapter.read_bytes() == before
        assert not (chapter.parent / ".proofdesk" / "traces").exists()  # refused before anything was written
        code, _, err = cli(capsys, "run", str(chapter), "--task", "translate", "--force", *DEMO)
        assert code == 0, err
        assert chapter.read_bytes() != before
    finally:
        holder.release()
    again = RunLock(Workspace.for_chapter(chapter), chapter)
    assert again.acquire("translate")  # the forced run did not take it, the finished run left it free
    again.release()


def test_a_finished_run_leaves_the_run_lock_free(chapter: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "run", str(chapter), "--task", "translate", *DEMO)
    assert code == 0, err
    code, _, err = cli(capsys, "run", str(chapter), "--task", "polish", *DEMO)
    assert code == 0, err


@pytest.mark.slow  # proofdesk in a fresh process
def test_a_run_in_another_process_is_refused(chapter: Path) -> None:
    holder = RunLock(Workspace.for_chapter(chapter), chapter)
    holder.acquire("proofread")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tui.cli", "run", chapter.name, "--task", "translate", *DEMO],
            cwd=chapter.parent,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdin=subprocess.DEVNULL,
        )
    finally:
        holder.release()
    assert done.returncode == 1
    one_sentence(done.stderr, f"another run is proofreading ch01.json (pid {os.getpid()}, started ")


# -- item 5: read-only chapters ------------------------------------------------------------------------------


def test_run_and_tool_refuse_a_read_only_chapter_unless_forced(
    chapter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.chmod(chapter, 0o444)
    before = chapter.read_bytes()
    code, _, err = cli(capsys, "run", str(chapter), "--task", "translate", *DEMO)
    assert code == 2
    one_sentence(err, "ch01.json is read-only (mode 0444)", "--force")
    args = json.dumps({"paragraphs": [{"paragraph_id": IDS[0], "translated_text": "by hand"}]})
    code, out, _ = cli(capsys, "tool", str(chapter), "add_translation_batch", args)
    result = json.loads(out)
    assert code == 1 and result["error_code"] == "COMMIT_FAILED"
    assert "ch01.json is read-only (mode 0444)" in result["error"]
    assert chapter.read_bytes() == before
    code, out, _ = cli(capsys, "tool", str(chapter), "add_translation_batch", args, "--force")
    assert code == 0, out
    code, _, err = cli(capsys, "run", str(chapter), "--task", "translate", "--force", *DEMO)
    assert code == 0, err
    assert stat.S_IMODE(chapter.stat().st_mode) == 0o444  # written as asked, and still read-only


# -- item 4: a planted lock link, through the command the issue used ---------------------------------------


def test_a_tool_commit_never_creates_a_planted_lock_links_target(
    chapter: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locks = chapter.parent / ".proofdesk" / "locks"
    locks.mkdir(parents=True)
    victim = tmp_path / "elsewhere-file"
    (locks / "ch01.json.lock").symlink_to(victim)
    args = json.dumps({"paragraphs": [{"paragraph_id": IDS[0], "translated_text": "by hand"}]})
    code, out, _ = cli(capsys, "tool", str(chapter), "add_translation_batch", args)
    assert code == 1 and "symbolic link" in json.loads(out)["error"]
    assert not victim.exists()


@pytest.mark.parametrize("planted", ["traces", "traces/ch01"])
def test_a_run_never_writes_its_trace_through_a_planted_link(
    chapter: Path, tmp_path: Path, planted: str, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = chapter.parent / ".proofdesk" / planted
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(elsewhere, target_is_directory=True)
    before = chapter.read_bytes()
    code, _, err = cli(capsys, "run", str(chapter), "--task", "translate", *DEMO)
    assert code == 2
    one_sentence(err, str(link), "symbolic link")
    assert list(elsewhere.iterdir()) == [] and chapter.read_bytes() == before


# -- item 11: --trace over a chapter or another file ----------------------------------------------------------


def test_trace_over_a_chapter_or_any_other_file_is_refused(chapter: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = write_chapter(chapter.parent, "ch02.json")
    notes = chapter.parent / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    saved = {p: p.read_bytes() for p in (chapter, other, notes)}
    for target, needle in (
        (chapter, "names the chapter being run"),
        (other, "not a proofdesk trace"),
        (notes, "not a proofdesk trace"),
        (chapter.parent, "it is a folder"),
    ):
        code, _, err = cli(capsys, "run", str(chapter), "--task", "translate", "--trace", str(target), *DEMO)
        assert code == 2, target
        one_sentence(err, str(target), needle)
    assert {p: p.read_bytes() for p in saved} == saved


def test_trace_to_a_new_file_an_earlier_trace_or_dev_null_is_taken(
    chapter: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = chapter.parent / "run.jsonl"
    code, _, err = cli(capsys, "run", str(chapter), "--task", "translate", "--trace", str(trace), *DEMO)
    assert code == 0, err
    code, _, err = cli(capsys, "run", str(chapter), "--task", "polish", "--trace", str(trace), *DEMO)
    assert code == 0, err
    assert run_started_lines(trace) == 2  # appended to the earlier trace
    code, _, err = cli(capsys, "run", str(chapter), "--task", "proofread", "--trace", os.devnull, *DEMO)
    assert code == 0, err


# -- item 16: export keeps line n = paragraph n ----------------------------------------------------------------

BREAKS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


def breaking_chapter(path: Path) -> Path:
    """One paragraph per line-breaking character, in the source; every other one translated with it too."""
    paragraphs = []
    for n, brk in enumerate(BREAKS):
        translations: tuple[TranslationVersion, ...] = ()
        if n % 2:
            translations = (
                TranslationVersion(
                    id=f"v{n}", text=f"EN{n}{brk}more", origin="translation", created_at="2026-01-01T00:00:00Z"
                ),
            )
        paragraphs.append(
            Paragraph(
                id=f"p{n:07d}",
                text=f"SRC{n}{brk}more",
                translations=translations,
                selected_translation_id=translations[0].id if translations else None,
            )
        )
    paragraphs.insert(3, Paragraph(id="empty000", text="\u3000"))
    path.write_bytes(chapter_bytes(Chapter(id="c", paragraphs=tuple(paragraphs))))
    return path


@pytest.mark.parametrize("missing", ["source", "mark", "blank"])
def test_export_line_n_is_paragraph_n_for_every_line_break(
    tmp_path: Path, missing: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = breaking_chapter(tmp_path / "c.json")
    out_file = tmp_path / "out.txt"
    assert main(["export", str(path), "--missing", missing, "-o", str(out_file)]) == 0
    text = out_file.read_bytes().decode("utf-8")
    lines = text.splitlines()  # Python's idea of lines: the widest there is
    assert len(lines) == len(BREAKS) + 1 and text.endswith("\n") and text.count("\n") == len(lines)
    assert lines[3] == ""
    rows = lines[:3] + lines[4:]
    for n, line in enumerate(rows):
        if n % 2:
            assert line == f"EN{n} more"
        else:
            expected = {"source": f"SRC{n} more", "mark": f"[untranslated p{n:07d}] SRC{n} more", "blank": ""}
            assert line == expected[missing]


def test_export_to_dev_null_is_allowed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = breaking_chapter(tmp_path / "c.json")
    code, _, err = cli(capsys, "export", str(path), "-o", os.devnull)
    assert code == 0, err
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)  # still the device, not a file renamed over it
