"""How a ``proofdesk`` process ends: headless commands skip the interpreter's teardown once their output is flushed.

(Kept beside the client tests: the quick exit is part of the speed work on the run path, issue 11.)
"""

from __future__ import annotations

import gc
import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.engine.loop_support import write_chapter
from tests.support.model_server import ModelServer, text_reply, tool_reply
from tui import cli

ROOT = Path(__file__).resolve().parents[3]
# An atexit handler stands for the teardown: it runs on a normal exit and not after the quick one.
AS_ENTRY_POINT = """
import atexit, sys
atexit.register(lambda: print("teardown ran", file=sys.stderr))
from tui.cli import main
sys.argv = ["proofdesk", *sys.argv[1:]]
sys.exit(main())
"""


def entry(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", AS_ENTRY_POINT, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.slow  # proofdesk in a fresh process
def test_a_headless_run_ends_without_teardown_and_with_all_its_output(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    model_server.responder = lambda request: (
        text_reply("Done.")
        if any(m["role"] == "tool" for m in request.json["messages"])
        else tool_reply([("add_translation_batch", {"paragraphs": []})])
    )
    done = entry(
        "run",
        path.name,
        "--task",
        "translate",
        "--base-url",
        model_server.base_url,
        "--model",
        "m",
        "--json",
        cwd=tmp_path,
    )
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events and events[0]["kind"] == "run_started" and events[-1]["kind"] == "run_finished"
    assert done.returncode == 1  # the model submitted nothing: incomplete, and the code says so
    assert "incomplete" in done.stderr
    assert "teardown ran" not in done.stderr


@pytest.mark.slow  # proofdesk in a fresh process
def test_export_to_a_pipe_is_complete_and_keeps_its_exit_code(tmp_path: Path) -> None:
    path = write_chapter(tmp_path)
    done = entry("export", path.name, "--missing", "source", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) >= 8 and "teardown ran" not in done.stderr
    bad = entry("export", "missing.json", cwd=tmp_path)
    assert bad.returncode == 2 and "missing.json" in bad.stderr and "teardown ran" not in bad.stderr


@pytest.mark.slow  # proofdesk in a fresh process
def test_a_textual_command_still_exits_the_usual_way(tmp_path: Path) -> None:
    done = entry("trace", str(tmp_path / "none.jsonl"), cwd=tmp_path)
    assert done.returncode == 2 and "teardown ran" in done.stderr


def test_called_with_arguments_main_neither_freezes_nor_exits(tmp_path: Path) -> None:
    path = write_chapter(tmp_path)
    frozen = gc.get_freeze_count()
    assert cli.main(["export", str(path), "-o", str(tmp_path / "out.txt")]) == 0
    # No freeze: it would add thousands. (Earlier tests' frozen objects freed meanwhile may lower the count.)
    assert gc.get_freeze_count() <= frozen
    assert (tmp_path / "out.txt").exists()


class _Closed(io.StringIO):
    def flush(self) -> None:
        raise BrokenPipeError("closed")


def test_exit_now_leaves_a_failed_flush_to_the_usual_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    exits: list[int] = []
    monkeypatch.setattr(os, "_exit", exits.append)
    monkeypatch.setattr(sys, "stdout", _Closed())
    cli.exit_now(0)
    assert exits == []


def test_exit_now_flushes_output_and_log_handlers_first(monkeypatch: pytest.MonkeyPatch) -> None:
    order: list[str] = []

    class Out(io.StringIO):
        def flush(self) -> None:
            order.append("flush")

    monkeypatch.setattr(sys, "stdout", Out())
    monkeypatch.setattr(sys, "stderr", Out())
    monkeypatch.setattr(logging, "shutdown", lambda: order.append("logging"))
    monkeypatch.setattr(os, "_exit", lambda code: order.append(f"exit {code}"))
    cli.exit_now(3)
    assert order == ["flush", "flush", "logging", "exit 3"]


def test_as_entry_point_the_collector_sits_out_the_imports_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = write_chapter(tmp_path)
    seen: dict[str, object] = {}
    build = cli.build_parser

    def watched_build(command: str | None = None) -> object:
        seen["collecting during imports"] = gc.isenabled()
        return build(command)

    monkeypatch.setattr(cli, "build_parser", watched_build)
    monkeypatch.setattr(sys, "argv", ["proofdesk", "export", str(path), "-o", str(tmp_path / "out.txt")])
    monkeypatch.setattr(os, "_exit", lambda code: seen.setdefault("exit", code))
    try:
        assert cli.main() == 0
        seen["frozen"] = gc.get_freeze_count()
    finally:
        gc.unfreeze()
    assert seen["collecting during imports"] is False and gc.isenabled()
    assert seen["exit"] == 0 and isinstance(seen["frozen"], int) and seen["frozen"] > 0
