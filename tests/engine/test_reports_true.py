"""Every report true, nothing written by accident (issue 25): the demo model only when asked for, usage as metadata,
control characters flagged. In-process through ``tui.cli.main`` and the engine, against real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engine.loop_support import write_chapter
from tui.cli import main


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def chapter(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return write_chapter(folder)


# -- item 3: a run with no model configured ---------------------------------------------------------------------


@pytest.mark.parametrize("environ", [{}, {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}], ids=["nothing", "url only"])
def test_a_run_with_no_model_named_refuses_in_one_sentence_and_writes_nothing(
    chapter: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, environ: dict[str, str]
) -> None:
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    before = chapter.read_bytes()
    code, out, err = cli(capsys, "run", str(chapter), "--task", "translate")
    assert code == 2 and out == ""
    (line,) = err.splitlines()
    assert "no model is configured" in line and "--model NAME" in line and "--model demo" in line
    assert chapter.read_bytes() == before
    assert not (chapter.parent / ".proofdesk" / "traces").exists()


def test_a_headless_demo_run_says_it_is_the_demo(chapter: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "run", str(chapter), "--task", "translate", "--model", "demo")
    assert code == 0
    assert "the demo model writes marked pseudo-translations" in err.splitlines()[0]
