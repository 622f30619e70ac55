"""Text from a chapter, a model or a server never reaches the terminal as control sequences (the CLI).

Hostile paragraph texts, titles, paragraph IDs, file names, model content, tool arguments and provider
error bodies go through ``proofdesk run`` (plain stderr and a real pty), ``tool``, ``chunks``, ``export``
and the error lines. Human output shows them as visible escapes (``\\x1b``); ``--json`` is JSON with the
controls escaped by the encoder; ``export`` to a file or a pipe stays byte for byte.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from store.model import Chapter, Paragraph, TranslationVersion
from store.serialize import chapter_bytes
from tests.support.model_server import ModelServer, error_reply, text_reply, tool_reply
from tui.cli import main

ROOT = Path(__file__).resolve().parents[2]

OSC52 = "\x1b]52;c;SGVsbG8=\x07"  # write "Hello" to the clipboard
TITLE_ST = "\x1b]0;PWNED\x1b\\"  # set the window title, ended by ST (Rich lets it through)
CLEAR = "\x1b[2J"
C1_CSI = "\x9b31m"
RLO = "\u202e"
HOSTILE = (OSC52, TITLE_ST, CLEAR, C1_CSI, RLO)
PAYLOAD = "".join(HOSTILE)
SHOWN = ("\\x1b]52;c;SGVsbG8=\\x07", "\\x1b]0;PWNED\\x1b\\", "\\x1b[2J", "\\x9b31m", "\\u202e")
SHOWN_PAYLOAD = "".join(SHOWN)

# Raw characters a terminal acts on; human output may keep only newline and tab.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# What a terminal emulator prints for proofdesk itself (Rich's colours, cursor moves, line erases).
OWN_SEQUENCE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

ID1 = "a" + TITLE_ST + "1"
ID2 = "b" + C1_CSI + RLO + "2"
ID3 = "c" + OSC52 + CLEAR


def hostile_chapter(folder: Path, name: str = "ch.json", *, translated: bool = False) -> Path:
    """Three paragraphs whose IDs, texts, title (and translations) carry every hostile sequence."""

    def para(pid: str, text: str, n: int) -> Paragraph:
        if not translated:
            return Paragraph(id=pid, text=text)
        version = TranslationVersion(
            id=f"v{n}", text=f"EN{n} {PAYLOAD}", origin="translation", model="m", created_at="2026-01-01T00:00:00Z"
        )
        return Paragraph(id=pid, text=text, translations=(version,), selected_translation_id=version.id)

    chapter = Chapter(
        id="ch",
        title=f"T {PAYLOAD}",
        source_language="ja",
        target_language="en",
        paragraphs=(
            para(ID1, f"一つ目 {PAYLOAD}", 1),
            para(ID2, f"二つ目 {PAYLOAD}", 2),
            para(ID3, f"三つ目 {PAYLOAD}", 3),
        ),
    )
    path = folder / name
    path.write_bytes(chapter_bytes(chapter))
    return path


def assert_safe(text: str, *, where: str = "output") -> None:
    """No raw control character but newline and tab."""
    found = RAW_CONTROL.search(text)
    assert found is None, f"raw {found.group()!r} in {where}: {text[max(found.start() - 60, 0) : found.end() + 60]!r}"


def assert_json_safe(text: str) -> None:
    """JSON as the encoder escapes it: no raw C0/C1/bidi control (newlines between values are fine)."""
    assert_safe(text, where="JSON output")
    assert "\u2028" not in text and "\u2029" not in text


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def exit_code(argv: list[str]) -> int:
    """``main(argv)``, with argparse's own exits turned into their code."""
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def proofdesk_cmd() -> list[str]:
    binary = Path(sys.executable).with_name("proofdesk")
    return [str(binary)] if binary.exists() else [sys.executable, "-m", "tui.cli"]


def run_in_pty(*argv: str, cwd: Path, timeout: float = 60) -> tuple[int, bytes]:
    """Run proofdesk with stdin, stdout and stderr on a fresh pty (200x50); return its exit code and raw bytes."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", "LINES": "50", "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen(
        [*proofdesk_cmd(), *argv],
        cwd=cwd,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
        start_new_session=True,
    )
    os.close(slave)
    out: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                proc.kill()
                raise AssertionError(f"proofdesk {' '.join(argv)} did not finish: {b''.join(out)!r}")
            ready, _, _ = select.select([master], [], [], left)
            if not ready:
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every writer of the pty has gone
                break
            if not data:
                break
            out.append(data)
        return proc.wait(timeout=10), b"".join(out)
    finally:
        os.close(master)


def terminal_text(raw: bytes) -> str:
    """What the pty carried, without proofdesk's own CSI sequences and the pty's CR before each LF."""
    text = raw.decode("utf-8")
    return OWN_SEQUENCE.sub("", text).replace("\r\n", "\n").replace("\r", "")


def assert_hostile_gone(raw: bytes) -> None:
    """None of the injected sequences reached the pty raw."""
    for sequence in HOSTILE:
        assert sequence.encode() not in raw, f"{sequence!r} reached the terminal"
    for char in ("\x07", "\x9b", "\u202e"):
        assert char.encode() not in raw, f"{char!r} reached the terminal"
    assert b"\x1b]" not in raw and b"\x1b\\" not in raw


# -- run ----------------------------------------------------------------------------------------------------


def script_hostile_model(server: ModelServer) -> None:
    """A tool call with hostile arguments and content, a lazy hostile answer, then a hostile 400 error."""
    server.add(
        tool_reply([("get_paragraph_info", {"paragraph_id": f"x{OSC52}{RLO}"})], text=f"looking {PAYLOAD}"),
        text_reply(f"done {PAYLOAD}", reasoning=f"thinking {PAYLOAD}"),
        error_reply(400, f"bad request {PAYLOAD} end"),
    )


def test_run_plain_stderr_and_json_stdout_carry_no_control(
    tmp_path: Path, model_server: ModelServer, capsys: pytest.CaptureFixture[str]
) -> None:
    name = f"x{TITLE_ST}{C1_CSI}{RLO}.json"
    path = hostile_chapter(tmp_path, name)
    script_hostile_model(model_server)
    code, out, err = cli(
        capsys, "run", str(path), "--task", "translate", "--base-url", model_server.base_url, "--model", "m", "--json"
    )
    assert code != 0
    assert_safe(err, where="stderr")
    assert "x\\x1b]0;PWNED\\x1b\\\\x9b31m\\u202e.json" in err  # the file name, in every line
    assert "bad request " + SHOWN_PAYLOAD + " end" in err  # the provider's error body
    assert "b\\x9b31m\\u202e2" in err  # a missing paragraph ID
    assert_json_safe(out)
    events = [json.loads(line) for line in out.splitlines()]
    response = next(e for e in events if e["kind"] == "model_response" and e["content"].startswith("done"))
    assert response["content"] == f"done {PAYLOAD}" and response["reasoning"] == f"thinking {PAYLOAD}"
    called = next(e for e in events if e["kind"] == "tool_called")
    assert called["arguments"] == {"paragraph_id": f"x{OSC52}{RLO}"}
    assert "\\u009b31m" in out and "\\u202e" in out and "\\u001b]52" in out


@pytest.mark.slow  # proofdesk in a fresh process on a pty
def test_run_on_a_terminal_shows_escapes_only(tmp_path: Path, model_server: ModelServer) -> None:
    name = f"x{TITLE_ST}{C1_CSI}{RLO}.json"
    hostile_chapter(tmp_path, name)
    script_hostile_model(model_server)
    code, raw = run_in_pty(
        "run", name, "--task", "translate", "--base-url", model_server.base_url, "--model", "m", cwd=tmp_path
    )
    assert code != 0, raw
    assert_hostile_gone(raw)
    shown = terminal_text(raw)
    assert_safe(shown, where="the terminal")
    assert "bad request " + SHOWN_PAYLOAD + " end" in shown
    assert "x\\x1b]0;PWNED\\x1b\\\\x9b31m\\u202e.json" in shown


# -- tool, chunks, export -----------------------------------------------------------------------------------


def test_tool_prints_json_without_controls(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = hostile_chapter(tmp_path)
    code, out, _ = cli(capsys, "tool", str(path), "get_paragraph_info", json.dumps({"paragraph_id": ID2}))
    assert code == 0
    assert_json_safe(out)
    result = json.loads(out)
    assert result["success"] is True and result["paragraph"]["text"] == f"二つ目 {PAYLOAD}"
    code, out, _ = cli(capsys, "tool", str(path), "get_paragraph_info", json.dumps({"paragraph_id": f"z{OSC52}"}))
    assert code == 1
    assert_json_safe(out)
    assert "\\u0007" in out  # the unknown ID is echoed, escaped


@pytest.mark.slow  # proofdesk in a fresh process on a pty
def test_tool_on_a_terminal(tmp_path: Path) -> None:
    hostile_chapter(tmp_path)
    code, raw = run_in_pty("tool", "ch.json", "get_paragraph_info", json.dumps({"paragraph_id": ID3}), cwd=tmp_path)
    assert code == 0, raw
    assert_hostile_gone(raw)
    assert json.loads(terminal_text(raw))["paragraph"]["text"] == f"三つ目 {PAYLOAD}"


def test_chunks_human_and_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = hostile_chapter(tmp_path)
    code, out, _ = cli(capsys, "chunks", str(path), "--task", "translate")
    assert code == 0
    assert_safe(out)
    assert f"[ID: b\\x9b31m\\u202e2] 二つ目 {SHOWN_PAYLOAD}" in out
    code, out, _ = cli(capsys, "chunks", str(path), "--task", "translate", "--json")
    assert code == 0
    assert_json_safe(out)
    assert json.loads(out)[0]["paragraph_ids"] == [ID1, ID2, ID3]


@pytest.mark.slow  # proofdesk in a fresh process on a pty
def test_chunks_on_a_terminal(tmp_path: Path) -> None:
    hostile_chapter(tmp_path)
    code, raw = run_in_pty("chunks", "ch.json", "--task", "translate", cwd=tmp_path)
    assert code == 0, raw
    assert_hostile_gone(raw)
    assert f"三つ目 {SHOWN_PAYLOAD}" in terminal_text(raw)


@pytest.mark.slow  # proofdesk in a fresh process on a pty
def test_export_escapes_on_a_terminal_and_is_exact_elsewhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = hostile_chapter(tmp_path, translated=True)
    expected = f"EN1 {PAYLOAD}\nEN2 {PAYLOAD}\nEN3 {PAYLOAD}\n"
    code, out, _ = cli(capsys, "export", str(path))  # stdout is not a terminal here: the text as it is
    assert code == 0 and out == expected
    assert main(["export", str(path), "-o", str(tmp_path / "out.txt")]) == 0
    assert (tmp_path / "out.txt").read_text(encoding="utf-8") == expected
    piped = subprocess.run(
        [*proofdesk_cmd(), "export", "ch.json"],
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert piped.returncode == 0 and piped.stdout == expected.encode()
    code, raw = run_in_pty("export", "ch.json", cwd=tmp_path)
    assert code == 0, raw
    assert_hostile_gone(raw)
    assert terminal_text(raw) == f"EN1 {SHOWN_PAYLOAD}\nEN2 {SHOWN_PAYLOAD}\nEN3 {SHOWN_PAYLOAD}\n"


# -- error lines --------------------------------------------------------------------------------------------

HOSTILE_NAME = "x\x1b]0;PWNED\x07\x9b31m\u202e"
SHOWN_NAME = "x\\x1b]0;PWNED\\x07\\x9b31m\\u202e"


@pytest.mark.parametrize(
    "argv",
    [
        ["export", f"{HOSTILE_NAME}.json"],  # no such file
        ["export", f"{HOSTILE_NAME}-bad.json"],  # does not parse
        ["chunks", f"{HOSTILE_NAME}-bad.json", "--task", "translate"],
        ["tool", f"{HOSTILE_NAME}-bad.json", "get_paragraph_info"],
        ["run", f"{HOSTILE_NAME}-bad.json", "--task", "translate", "--model", "demo"],
        ["run", f"{HOSTILE_NAME}-bad.json", f"{HOSTILE_NAME}-bad.json", "--task", "translate", "--model", "demo"],
        ["import", f"{HOSTILE_NAME}.txt"],  # no such file
        ["import", "ch.txt", "-o", f"{HOSTILE_NAME}-bad.json"],  # already exists
        ["import", "ch.txt", "--id", f"id {HOSTILE_NAME}"],
        ["trace", f"{HOSTILE_NAME}.jsonl"],
        ["chunks", "ch.json", "--task", "translate", HOSTILE_NAME],  # argparse: unrecognized argument
    ],
)
def test_error_lines_show_hostile_names_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    hostile_chapter(tmp_path)
    (tmp_path / f"{HOSTILE_NAME}-bad.json").write_text('{"id": "x", "paragraphs": [', encoding="utf-8")
    (tmp_path / "ch.txt").write_text("one\n", encoding="utf-8")
    code = exit_code(argv)
    _, err = capsys.readouterr()
    assert code == 2, err
    assert_safe(err, where="stderr")
    assert SHOWN_NAME in err or SHOWN_PAYLOAD in err or "ch.json" in err, err


def test_import_message_escapes_the_output_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / f"{HOSTILE_NAME}.txt").write_text("one\ntwo\n", encoding="utf-8")
    code, _, err = cli(capsys, "import", f"{HOSTILE_NAME}.txt")
    assert code == 0
    assert_safe(err, where="stderr")
    assert f"{SHOWN_NAME}.json: 2 paragraphs" in err


@pytest.mark.slow  # proofdesk in a fresh process on a pty
def test_error_line_on_a_terminal(tmp_path: Path) -> None:
    code, raw = run_in_pty("export", f"{HOSTILE_NAME}.json", cwd=tmp_path)
    assert code == 2
    assert_hostile_gone(raw)
    assert SHOWN_NAME in terminal_text(raw)


# -- check-model, run --estimate, trace errors ---------------------------------------------------------------


@pytest.mark.slow  # proofdesk in a fresh process on a pty
def test_check_model_on_a_terminal_shows_escapes_only(tmp_path: Path, model_server: ModelServer) -> None:
    model_server.add(
        tool_reply([("get_paragraph_info", {"paragraph_id": f"x{OSC52}{RLO}"})], text=f"looking {PAYLOAD}"),
        error_reply(400, f"bad request {PAYLOAD} end"),
    )
    for _ in range(2):  # a well-formed answer, then a provider's error
        code, raw = run_in_pty("check-model", "--base-url", model_server.base_url, "--model", f"m{RLO}", cwd=tmp_path)
        assert_hostile_gone(raw)
        assert_safe(terminal_text(raw), where="the terminal")
    assert "bad request " + SHOWN_PAYLOAD + " end" in terminal_text(raw) and code != 0


def test_check_model_json_escapes_c1_and_bidi(
    tmp_path: Path, model_server: ModelServer, capsys: pytest.CaptureFixture[str]
) -> None:
    model_server.add(text_reply(f"hi {PAYLOAD}", reasoning=f"hm {PAYLOAD}"))
    code, out, _ = cli(capsys, "check-model", "--base-url", model_server.base_url, "--model", "m", "--json")
    assert code == 1  # a text answer, no tool call
    assert_json_safe(out)
    assert json.loads(out)["content"] == f"hi {PAYLOAD}"


@pytest.mark.slow  # proofdesk in a fresh process on a pty
def test_estimate_and_trace_errors_on_a_terminal(tmp_path: Path) -> None:
    name = f"x{TITLE_ST}{C1_CSI}{RLO}.json"
    hostile_chapter(tmp_path, name)
    code, raw = run_in_pty("run", name, "--task", "translate", "--estimate", "--model", "demo", cwd=tmp_path)
    assert code == 0, raw
    assert_hostile_gone(raw)
    assert "x\\x1b]0;PWNED\\x1b\\\\x9b31m\\u202e.json: translate with demo" in terminal_text(raw)
    bad = tmp_path / f"t{OSC52}.jsonl"
    bad.write_text('{"kind": "x"}\n{broken\n')
    code, raw = run_in_pty("trace", bad.name, cwd=tmp_path)
    assert code == 2
    assert_hostile_gone(raw)
    assert "t\\x1b]52;c;SGVsbG8=\\x07.jsonl:2:" in terminal_text(raw)
