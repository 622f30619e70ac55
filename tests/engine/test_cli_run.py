"""``proofdesk run`` / ``check-model`` / ``import`` / ``export`` as a user runs them: the installed binary."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest

from store.loader import load_chapter
from tests.engine.loop_support import IDS, selected_texts, write_chapter
from tests.support.model_server import ModelServer, Scripted, closed_port, error_reply, text_reply, tool_reply

pytestmark = pytest.mark.slow  # every test starts the installed binary (a fresh interpreter) as a user would

A1, A2, A3, A4, A5, A6, A7, A8 = IDS
CANARY = "sk-canary-7f3a9d2e41b8c6"


def proofdesk_cmd() -> list[str]:
    binary = Path(sys.executable).with_name("proofdesk")
    return [str(binary)] if binary.exists() else [sys.executable, "-m", "tui.cli"]


def run_cli(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*proofdesk_cmd(), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


def batch(*pairs: tuple[str, str]) -> dict:
    return {"paragraphs": [{"paragraph_id": pid, "translated_text": text} for pid, text in pairs]}


def poll_until(condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
    """Poll ``condition`` until it holds; fail after ``timeout`` seconds (a deadline for a hang, not a timing)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


class Output:
    """A child's stdout and stderr, read line by line as it writes them, so a test can wait for a line."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None and proc.stderr is not None
        self.out: list[str] = []
        self.err: list[str] = []
        self._changed = threading.Condition()
        self._open = 2
        self._readers = [
            threading.Thread(target=self._read, args=(stream, lines), daemon=True)
            for stream, lines in ((proc.stdout, self.out), (proc.stderr, self.err))
        ]
        for reader in self._readers:
            reader.start()

    def _read(self, stream: IO[str], lines: list[str]) -> None:
        for line in stream:
            with self._changed:
                lines.append(line)
                self._changed.notify_all()
        with self._changed:
            self._open -= 1
            self._changed.notify_all()

    def wait_for(self, condition: Callable[[list[str]], bool], what: str, timeout: float = 60) -> None:
        """Wait until ``condition(stdout lines)`` holds; fail with what the child wrote if it exits first, or after
        ``timeout`` seconds."""
        with self._changed:
            self._changed.wait_for(lambda: condition(self.out) or not self._open, timeout)
            if not condition(self.out):
                raise AssertionError(f"no {what}; stdout: {''.join(self.out)!r}, stderr: {''.join(self.err)!r}")

    def close(self) -> tuple[str, str]:
        """Everything written, once the child has closed its ends of the pipes."""
        for reader in self._readers:
            reader.join(60)
        return "".join(self.out), "".join(self.err)


def test_demo_run_completes_the_bundled_sample(tmp_path: Path) -> None:
    sample = Path(__file__).parents[2] / "tui" / "samples" / "rashomon.json"
    tmp_path = tmp_path / "workspace"
    tmp_path.mkdir()
    chapter = tmp_path / "rashomon.json"
    shutil.copy(sample, chapter)
    done = run_cli("run", "rashomon.json", "--task", "translate", "--model", "demo", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "complete" in done.stderr and "Traceback" not in done.stderr
    loaded = load_chapter(chapter)
    assert all(p.selected_text for p in loaded.paragraphs if not p.is_empty)
    assert all(p.selected_text is None for p in loaded.paragraphs if p.is_empty)
    traces = list((tmp_path / ".proofdesk" / "traces" / "rashomon").glob("*-translate.jsonl"))
    assert len(traces) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [".proofdesk", "rashomon.json"]
    polish = run_cli("run", "rashomon.json", "--task", "polish", "--model", "demo", "--json", cwd=tmp_path)
    assert polish.returncode == 0, polish.stderr
    events = [json.loads(line) for line in polish.stdout.splitlines()]
    assert events[0]["kind"] == "run_started" and events[-1]["kind"] == "run_finished"
    assert any(e["kind"] == "batch_committed" for e in events)


def test_lazy_model_exits_1_and_names_missing_paragraphs(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    model_server.add(*[text_reply("Done, I think.") for _ in range(6)])
    done = run_cli(
        "run",
        path.name,
        "--task",
        "translate",
        "--base-url",
        model_server.base_url,
        "--model",
        "m",
        "--chunk-chars",
        "300",
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stderr
    assert "incomplete" in done.stderr and A1 in done.stderr and A8 in done.stderr


def test_misbehaving_model_through_the_cli(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    model_server.add(
        tool_reply([("get_next_paragraphs", {"paragraph_id": A4, "count": 5})]),
        tool_reply([("add_translation_batch", {"paragraphs": [{"index": 1, "translated_text": "x"}]})]),
        tool_reply([("add_translation_batch", batch((A1, "One"), (A3, "Three"), (A4, "Four"), (A6, "Six")))]),
        tool_reply([("add_translation_batch", batch((A7, "Seven"), (A8, "Eight")))]),
    )
    done = run_cli(
        "run",
        path.name,
        "--task",
        "translate",
        "--base-url",
        model_server.base_url,
        "--model",
        "m",
        "--chunk-chars",
        "300",
        "--json",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    codes = [e["error_code"] for e in map(json.loads, done.stdout.splitlines()) if e["kind"] == "tool_result"]
    assert codes == ["CHUNK_BOUNDARY", "INDEX_NOT_ACCEPTED", None, None]
    assert "CHUNK_BOUNDARY ×1" in done.stderr and "INDEX_NOT_ACCEPTED ×1" in done.stderr
    assert selected_texts(path)[A6] == "Six"


def test_canary_api_key_appears_nowhere(tmp_path: Path, model_server: ModelServer, isolated_dirs: Path) -> None:
    path = write_chapter(tmp_path)
    model_server.add(
        tool_reply([("add_translation_batch", batch((A1, "One"), (A3, "Three"), (A4, "Four"), (A6, "Six")))]),
        error_reply(500, "internal error"),
        error_reply(
            401, f"Incorrect API key provided: {CANARY}", code="invalid_api_key", error_type="invalid_request_error"
        ),
    )
    done = run_cli(
        "run",
        path.name,
        "--task",
        "translate",
        "--base-url",
        model_server.base_url,
        "--model",
        "m",
        "--chunk-chars",
        "300",
        "--json",
        cwd=tmp_path,
        env={"OPENAI_API_KEY": CANARY},
    )
    assert done.returncode == 2, done.stderr  # a rejected key is a configuration problem
    assert "401" in done.stderr and "Incorrect API key provided" in done.stderr
    assert model_server.requests[0].headers["authorization"] == f"Bearer {CANARY}"  # it was really used
    assert CANARY not in done.stdout and CANARY not in done.stderr
    for folder in (tmp_path, isolated_dirs):
        for file in folder.rglob("*"):
            if file.is_file():
                assert CANARY.encode() not in file.read_bytes(), file


def test_unreachable_model_is_one_clear_sentence(tmp_path: Path) -> None:
    path = write_chapter(tmp_path)
    before = path.read_bytes()
    done = run_cli(
        "run",
        path.name,
        "--task",
        "translate",
        "--base-url",
        f"http://127.0.0.1:{closed_port()}/v1",
        "--model",
        "m",
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "127.0.0.1" in done.stderr
    assert path.read_bytes() == before


def test_sigint_cancels_within_a_second_and_exits_130(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    hanging = tool_reply([("add_translation_batch", batch((A7, "Seven"), (A8, "Eight")))])
    model_server.add(
        tool_reply([("add_translation_batch", batch((A1, "One"), (A3, "Three"), (A4, "Four"), (A6, "Six")))]),
        Scripted(hanging.status, hanging.headers, hanging.body, hang_after=len(hanging.body) // 2),
    )
    proc = subprocess.Popen(
        [
            *proofdesk_cmd(),
            "run",
            path.name,
            "--task",
            "translate",
            "--base-url",
            model_server.base_url,
            "--model",
            "m",
            "--chunk-chars",
            "300",
            "--json",
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    output = Output(proc)
    try:
        # The run's own events: chunk 1 committed and reported, chunk 2 asked the model (so the CLI is consuming
        # events, its Ctrl+C handler in place) ...
        output.wait_for(
            lambda lines: any(e["kind"] == "model_request" and e["chunk"] == 2 for e in map(json.loads, lines)),
            "chunk 2's model request on stdout",
        )
        # ... and the server's own record: half of chunk 2's answer sent, the stream now held open.
        poll_until(lambda: model_server.hanging == 1, "the server to hold chunk 2's stream open")
        committed = path.read_bytes()
        proc.send_signal(signal.SIGINT)
        # The stream never ends on its own: only a run that stops on Ctrl+C exits. (How fast: not asserted here.)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    out, err = output.close()
    assert proc.returncode == 130, err
    # --json consumers still learn how the run ended, with the chunk in progress and its tokens
    last = json.loads(out.splitlines()[-1])
    assert last["kind"] == "run_finished" and last["status"] == "cancelled"
    assert last["summary"]["chunks"][-1]["status"] == "cancelled" and last["summary"]["usage"]["total_tokens"] > 0
    assert "Traceback" not in err and "cancelled" in err
    assert path.read_bytes() == committed and selected_texts(path)[A6] == "Six"
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["run", "broken.json", "--task", "translate", "--model", "demo"], "broken.json:1:"),
        (
            ["run", "ch01.json", "--task", "translate", "--chunk-chars", "10"],
            "argument --chunk-chars: must be a whole number from 200 to 50000, not 10",
        ),
        (["run", "ch01.json", "--task", "summarise"], "invalid choice: 'summarise'"),
        (
            ["run", "ch01.json", "--task", "translate", "--api-key-env", "PROOFDESK_NO_SUCH_VAR"],
            "--api-key-env PROOFDESK_NO_SUCH_VAR: that environment variable is not set",
        ),
        (["run", "missing.json", "--task", "translate", "--model", "demo"], "missing.json: no such file"),
        (["run", "ch01.json", "--task", "polish", "--suggest", "--apply"], "not allowed with argument"),
        (["export", "broken.json"], "broken.json:1:"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path: Path, args: list[str], expected: str) -> None:
    write_chapter(tmp_path)
    (tmp_path / "broken.json").write_text('{"id": "x", "paragraphs": [', encoding="utf-8")
    before = (tmp_path / "broken.json").read_bytes()
    done = run_cli(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert expected in done.stderr and "Traceback" not in done.stderr
    assert (tmp_path / "broken.json").read_bytes() == before


def test_jobs_run_chapters_concurrently(tmp_path: Path) -> None:
    sample = Path(__file__).parents[2] / "tui" / "samples" / "rashomon.json"
    for name in ("a.json", "b.json", "c.json"):
        shutil.copy(sample, tmp_path / name)
    done = run_cli(
        "run", "a.json", "b.json", "c.json", "--task", "translate", "--model", "demo", "--jobs", "2", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    for name in ("a.json", "b.json", "c.json"):
        assert all(p.selected_text for p in load_chapter(tmp_path / name).paragraphs if not p.is_empty)


def test_check_model_shows_the_assembled_tool_call(tmp_path: Path, model_server: ModelServer) -> None:
    model_server.add(tool_reply([("get_paragraph_info", {"paragraph_id": "e58ed763"})]), text_reply("hello"))
    done = run_cli("check-model", "--base-url", model_server.base_url, "--model", "m", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["tool_calls"][0]["name"] == "get_paragraph_info"
    assert report["tool_calls"][0]["arguments"] == {"paragraph_id": "e58ed763"}
    assert report["finish_reason"] == "tool_calls" and report["usage"]["total_tokens"] == 15
    sent = model_server.requests[0].json
    assert sent["stream"] is True and {t["function"]["name"] for t in sent["tools"]} >= {"add_translation_batch"}
    done = run_cli("check-model", "--base-url", model_server.base_url, "--model", "m", cwd=tmp_path)
    assert done.returncode == 1 and "NO well-formed tool call" in done.stdout


def test_import_then_export_round_trip(tmp_path: Path) -> None:
    text = "第一段\n\n\u3000第二段\u2028まだ第二段\r\n最後\n"
    (tmp_path / "ch.txt").write_text(text, encoding="utf-8")
    done = run_cli("import", "ch.txt", "--source-language", "ja", "--target-language", "en", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    chapter = load_chapter(tmp_path / "ch.json")
    assert [p.text for p in chapter.paragraphs] == ["第一段", "", "\u3000第二段\u2028まだ第二段", "最後"]
    assert len({p.id for p in chapter.paragraphs}) == 4
    assert all(len(p.id) == 8 and int(p.id, 16) >= 0 for p in chapter.paragraphs)
    again = run_cli("import", "ch.txt", cwd=tmp_path)
    assert again.returncode == 2 and "already exists; use --force" in again.stderr
    assert load_chapter(tmp_path / "ch.json") == chapter
    exported = run_cli("export", "ch.json", "--missing", "mark", cwd=tmp_path)
    assert exported.returncode == 0
    lines = exported.stdout.split("\n")
    assert lines[1] == "" and lines[0].startswith("[untranslated ") and len(lines) == 5
    source = run_cli("export", "ch.json", "--missing", "source", "-o", "out.txt", cwd=tmp_path)
    assert source.returncode == 0
    # A line break inside a paragraph (here U+2028) becomes a space: line n of the export is paragraph n.
    assert (tmp_path / "out.txt").read_text(encoding="utf-8") == "第一段\n\n\u3000第二段 まだ第二段\n最後\n"


def test_unwritable_state_folder_is_one_sentence_and_exit_2(tmp_path: Path) -> None:
    path = write_chapter(tmp_path)
    (tmp_path / ".proofdesk").write_text("not a folder", encoding="utf-8")  # where locks and traces must go
    before = path.read_bytes()
    done = run_cli("run", path.name, "--task", "translate", "--model", "demo", cwd=tmp_path)
    assert done.returncode == 2
    assert "cannot create" in done.stderr and ".proofdesk" in done.stderr and "Traceback" not in done.stderr
    assert path.read_bytes() == before


def test_a_closed_output_pipe_stops_the_run_without_a_traceback(tmp_path: Path) -> None:
    shutil.copy(Path(__file__).parents[2] / "tui" / "samples" / "rashomon.json", tmp_path / "ch.json")
    proc = subprocess.Popen(
        [
            *proofdesk_cmd(),
            "run",
            "ch.json",
            "--task",
            "translate",
            "--model",
            "demo",
            "--json",
            "--chunk-chars",
            "200",
        ],  # well over a pipe buffer of events
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert '"run_started"' in proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 1
    assert "Traceback" not in err and "proofdesk: stopped: the output pipe was closed" in err
