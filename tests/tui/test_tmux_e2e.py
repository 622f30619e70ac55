"""End to end: the installed ``proofdesk`` binary in a real terminal (tmux, 80x24), driven by keys, read back
with ``capture-pane`` — the way an editor uses it over SSH."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from store.loader import load_chapter

TMUX = shutil.which("tmux")
BINARY = Path(sys.executable).parent / "proofdesk"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(TMUX is None or not BINARY.exists(), reason="needs tmux and the installed binary"),
]


class Terminal:
    """A tmux server of our own (private socket) running one 80x24 session."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [TMUX or "tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10, check=False
        )

    def start(self, command: str) -> None:
        done = self.tmux("new-session", "-d", "-x", "80", "-y", "24", "-s", "e2e", command)
        assert done.returncode == 0, done.stderr

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "e2e").stdout

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "e2e", *keys)

    def wait_for(self, predicate: Callable[[str], bool], what: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if predicate(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; the screen shows:\n{text}")
            time.sleep(0.1)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    term = Terminal(f"proofdesk-e2e-{os.getpid()}")
    try:
        yield term
    finally:
        term.tmux("kill-server")  # our private server only


def test_installed_binary_in_tmux(terminal: Terminal, isolated_dirs: Path) -> None:
    env = {
        k: os.environ[k]
        for k in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "PROOFDESK_CONFIG")
    }
    env.update(TERM="xterm-256color", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    terminal.start(f"env {exports} {shlex.quote(str(BINARY))} demo; echo EXIT=$?; sleep 30")

    terminal.wait_for(lambda s: "0/39 done" in s and "[1] 52490097" in s and "model demo" in s, "the demo chapter")
    demo_files = list((isolated_dirs / "data" / "proofdesk" / "demo").glob("*/rashomon.json"))
    assert len(demo_files) == 1  # a fresh copy of the bundled sample, under the user data folder
    chapter = demo_files[0]
    terminal.keys("t")  # translate the whole chapter with the offline demo model
    screen = terminal.wait_for(lambda s: "39/39 done" in s and "■ run complete" in s, "the run to finish", 60)
    assert "[demo en]" in screen
    terminal.keys("m")
    terminal.wait_for(lambda s: "1 reviewed" in s, "the paragraph to be marked reviewed")
    assert load_chapter(chapter).paragraphs[0].reviewed
    terminal.keys("a")  # [1] is reviewed already: on to the next paragraph to review, [2]
    terminal.keys("a")  # [2] marked, on to [4] ([3] is empty)
    terminal.wait_for(lambda s: "2 reviewed" in s and "[4] e5433bb8 ·" in s, "mark-and-next")
    assert load_chapter(chapter).paragraphs[1].reviewed
    terminal.keys("j", "A")  # ask the model about [5]
    terminal.wait_for(lambda s: "Ask the model about [5]" in s, "the ask form")
    terminal.keys("more formal", "Enter")  # the task offered for a translated paragraph: polish
    terminal.wait_for(
        lambda s: "✔ committed 1 paragraph to rashomon.json" in s and "[5] cdb3e1b6 ·" in s,
        "the one-paragraph run's commit, the cursor on [5]",
        60,
    )
    asked = load_chapter(chapter).paragraphs[4]
    assert asked.selected_text is not None and asked.selected_text.endswith("[demo polished]")
    assert [v.origin for v in asked.translations] == ["translation", "polish"]
    terminal.keys("?")
    terminal.wait_for(lambda s: "Keys — Chapter" in s and "chapter.translate" in s, "the help screen")
    terminal.keys("Escape")
    terminal.wait_for(lambda s: "Keys — Chapter" not in s, "the help screen to close")
    terminal.keys("C-q")
    screen = terminal.wait_for(lambda s: "EXIT=" in s, "the app to quit")
    # Nothing was printed to the terminal by the app (logs go to the log file): only our echo remains.
    assert [line for line in screen.splitlines() if line.strip()] == ["EXIT=0"]
    log = isolated_dirs / "state" / "proofdesk" / "log" / "proofdesk.log"
    assert log.exists()
