"""``proofdesk chunks`` and ``proofdesk tool``: output, exit codes 0/1/2, and commits like a run's."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.chunks import build_chunks
from store.loader import load_chapter
from store.workspace import TEMP_PREFIX
from tests.engine.tool_chapters import chapter_of, rashomon_texts, write_chapter
from tui.cli import main

ROOT = Path(__file__).resolve().parents[2]
TEXTS = ["「おはよう」と彼女は言った。", "", "雨が降っていた。", "下人は待っていた。"]
IDS = ["e58ed763", "0b7d33e1", "a1b2c3d4", "deadbeef"]


@pytest.fixture
def chapter_file(tmp_path: Path) -> Path:
    return write_chapter(tmp_path / "ch01.json", chapter_of(TEXTS, ids=IDS))


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def tool_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = cli(capsys, "tool", *argv)
    return code, json.loads(out)


def proofdesk(*argv: str, stdin: str | None = None, limit_file_size: int | None = None) -> subprocess.CompletedProcess:
    """The real command in a child process (``python -m tui.cli``)."""

    def limits() -> None:
        if limit_file_size is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_file_size, limit_file_size))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "tui.cli", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        preexec_fn=limits,
        check=False,
    )


# -- chunks -------------------------------------------------------------------------------------------------


def test_chunks_prints_headings_and_exact_texts(capsys: pytest.CaptureFixture[str], chapter_file: Path) -> None:
    code, out, _ = cli(capsys, "chunks", str(chapter_file), "--task", "translate")
    assert code == 0
    assert out == (
        "── chunk 1/1 · 3 paragraphs · [1]–[4] ──\n"
        "[1] [ID: e58ed763] 「おはよう」と彼女は言った。\n\n[3] [ID: a1b2c3d4] 雨が降っていた。\n\n"
        "[4] [ID: deadbeef] 下人は待っていた。\n"
    )


def test_chunks_json_matches_what_a_run_builds(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write_chapter(tmp_path / "r.json", chapter_of(rashomon_texts()))
    code, out, _ = cli(capsys, "chunks", str(path), "--task", "translate", "--chunk-chars", "900", "--json")
    assert code == 0
    listed = json.loads(out)
    built = build_chunks(load_chapter(path), "translate", chunk_chars=900)
    # index, paragraph_ids and text exactly as a run builds them; beside them the context lines (section 17)
    assert [{k: c[k] for k in ("index", "paragraph_ids", "text")} for c in listed] == [c.to_json() for c in built]
    assert all(list(c)[3:] == ["context_before", "context_after"] for c in listed)
    assert [c["index"] for c in listed] == list(range(1, len(built) + 1)) and len(built) > 3


def test_chunks_default_budget_comes_from_the_config_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write_chapter(tmp_path / "r.json", chapter_of(rashomon_texts()))
    config = Path(os.environ["PROOFDESK_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[run]\nchunk_chars = 700\n", encoding="utf-8")
    _, out, _ = cli(capsys, "chunks", str(path), "--task", "translate", "--json")
    assert len(json.loads(out)) == len(build_chunks(load_chapter(path), "translate", chunk_chars=700))


def test_chunks_polish_and_empty_work_set(capsys: pytest.CaptureFixture[str], chapter_file: Path) -> None:
    code, out, err = cli(capsys, "chunks", str(chapter_file), "--task", "polish")
    assert (code, out) == (0, "") and "no paragraphs to polish" in err
    code, out, _ = cli(capsys, "chunks", str(chapter_file), "--task", "polish", "--json")
    assert (code, json.loads(out)) == (0, [])


def test_chunks_bad_input_exits_2(capsys: pytest.CaptureFixture[str], chapter_file: Path, tmp_path: Path) -> None:
    for argv in (["--task", "translate", "--chunk-chars", "199"], ["--task", "summarise"], []):
        with pytest.raises(SystemExit) as info:
            main(["chunks", str(chapter_file), *argv])
        assert info.value.code == 2
    capsys.readouterr()
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "proofdesk.chapter/1", "id": "x", "paragraphs": [1]}', encoding="utf-8")
    code, out, err = cli(capsys, "chunks", str(broken), "--task", "translate")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "broken.json" in err and "Traceback" not in err


# -- tool ---------------------------------------------------------------------------------------------------


def test_tool_prints_the_json_result(capsys: pytest.CaptureFixture[str], chapter_file: Path) -> None:
    code, result = tool_json(
        capsys, str(chapter_file), "get_next_paragraphs", '{"paragraph_id": "e58ed763", "count": 2}'
    )
    assert code == 0
    assert [p["paragraph_id"] for p in result["paragraphs"]] == ["a1b2c3d4", "deadbeef"]


def test_tool_errors_exit_1(capsys: pytest.CaptureFixture[str], chapter_file: Path) -> None:
    code, result = tool_json(capsys, str(chapter_file), "no_such_tool")
    assert (code, result["error_code"]) == (1, "UNKNOWN_TOOL")
    code, result = tool_json(capsys, str(chapter_file), "get_paragraph_info", "{not json")
    assert (code, result["error_code"]) == (1, "INVALID_ARGUMENTS")
    code, result = tool_json(capsys, str(chapter_file), "get_paragraph_info", '{"paragraph_id": "zz"}')
    assert (code, result["error_code"]) == (1, "PARAGRAPH_NOT_FOUND")


def test_tool_with_chunk_applies_its_boundaries(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write_chapter(tmp_path / "r.json", chapter_of(rashomon_texts()))
    chunks = build_chunks(load_chapter(path), "translate", chunk_chars=600)
    second = chunks[1]
    last = second.paragraph_ids[-1]
    code, result = tool_json(
        capsys,
        str(path),
        "get_next_paragraphs",
        json.dumps({"paragraph_id": last}),
        "--chunk",
        "2",
        "--task",
        "translate",
        "--chunk-chars",
        "600",
    )
    assert (code, result["error_code"]) == (1, "CHUNK_BOUNDARY")
    assert result["chunk_range"] == {"first_paragraph_id": second.paragraph_ids[0], "last_paragraph_id": last}
    # The same call without --chunk is unrestricted.
    code, result = tool_json(capsys, str(path), "get_next_paragraphs", json.dumps({"paragraph_id": last}))
    assert code == 0 and result["paragraphs"][0]["paragraph_id"] == chunks[2].paragraph_ids[0]


def test_tool_chunk_out_of_range_or_without_task_exits_2(
    capsys: pytest.CaptureFixture[str], chapter_file: Path
) -> None:
    code, out, err = cli(
        capsys,
        "tool",
        str(chapter_file),
        "get_paragraph_info",
        '{"paragraph_id": "e58ed763"}',
        "--chunk",
        "2",
        "--task",
        "translate",
    )
    assert (code, out) == (2, "") and "--chunk 2 is out of range" in err and "has 1 chunk" in err
    code, _, err = cli(capsys, "tool", str(chapter_file), "get_paragraph_info", "{}", "--chunk", "1")
    assert code == 2 and "--task" in err
    with pytest.raises(SystemExit) as info:
        main(["tool", str(chapter_file), "get_paragraph_info", "{}", "--chunk", "0", "--task", "translate"])
    assert info.value.code == 2


def test_tool_on_a_chapter_that_cannot_be_loaded_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = cli(capsys, "tool", str(tmp_path / "missing.json"), "get_paragraph_info", "{}")
    assert code == 2 and out == "" and "missing.json" in err


def test_tool_batch_commits_like_a_run(capsys: pytest.CaptureFixture[str], chapter_file: Path) -> None:
    items = {"paragraphs": [{"paragraph_id": "a1b2c3d4", "translated_text": "It was raining."}]}
    code, result = tool_json(capsys, str(chapter_file), "add_translation_batch", json.dumps(items))
    assert code == 0 and result == {"success": True, "accepted": ["a1b2c3d4"], "unchanged": []}
    version = load_chapter(chapter_file).paragraph("a1b2c3d4").selected
    assert (version.text, version.origin, version.model) == ("It was raining.", "manual", None)
    items = {"paragraphs": [{"paragraph_id": "deadbeef", "translated_text": "The servant waited."}]}
    code, result = tool_json(
        capsys,
        str(chapter_file),
        "add_translation_batch",
        json.dumps(items),
        "--chunk",
        "1",
        "--task",
        "translate",
        "--origin",
        "translation",
    )
    assert code == 0 and result["remaining"] == ["e58ed763"]  # a1b2c3d4 is translated: no longer in the work set
    assert load_chapter(chapter_file).paragraph("deadbeef").selected.origin == "translation"


def test_tool_batch_rejected_leaves_the_file_byte_identical(
    capsys: pytest.CaptureFixture[str], chapter_file: Path
) -> None:
    before = chapter_file.read_bytes()
    code, result = tool_json(
        capsys, str(chapter_file), "add_translation_batch", '{"paragraphs": [{"index": 3, "translated_text": "x"}]}'
    )
    assert (code, result["error_code"]) == (1, "INDEX_NOT_ACCEPTED")
    assert chapter_file.read_bytes() == before


@pytest.mark.slow  # proofdesk in a fresh process
def test_real_process_reads_args_from_stdin(chapter_file: Path) -> None:
    done = proofdesk(
        "tool",
        str(chapter_file),
        "add_translation_batch",
        "-",
        stdin='{"paragraphs": [{"paragraph_id": "e58ed763", "translated_text": "Morning."}]}',
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["accepted"] == ["e58ed763"]
    assert load_chapter(chapter_file).paragraph("e58ed763").selected_text == "Morning."


@pytest.mark.slow  # proofdesk in a fresh process
def test_real_process_commit_failure_is_commit_failed(chapter_file: Path) -> None:
    # The file may not grow: writing the new version fails with EFBIG, a real I/O error on the write path.
    before = chapter_file.read_bytes()
    done = proofdesk(
        "tool",
        str(chapter_file),
        "add_translation_batch",
        '{"paragraphs": [{"paragraph_id": "e58ed763", "translated_text": "Morning."}]}',
        limit_file_size=len(before),
    )
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["error_code"] == "COMMIT_FAILED"
    assert chapter_file.read_bytes() == before
    assert "could not be saved" in result["error"]
    assert not [p for p in chapter_file.parent.iterdir() if p.name.startswith(TEMP_PREFIX)]  # no temp left
