"""RunLock: one run per chapter at a time, a second one told who holds it (issue 17, item 15)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from store.lock import LockError, RunBusy, RunLock
from store.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    return Workspace(root)


def test_a_second_run_is_refused_with_the_holder_named(workspace: Workspace) -> None:
    chapter = workspace.root / "ch.json"
    first = RunLock(workspace, chapter)
    assert first.acquire("translate") and first.held
    assert first.lock_path == workspace.locks_dir / "ch.json.run.lock"
    with pytest.raises(RunBusy) as info:
        RunLock(workspace, chapter).acquire("polish")
    message = str(info.value)
    assert message.startswith(f"another run is translating ch.json (pid {os.getpid()}, started ")
    assert message.endswith("); wait for it or pass --force to run anyway") and "\n" not in message
    first.release()
    second = RunLock(workspace, chapter)
    assert second.acquire("polish")  # free again once released
    second.release()


def test_force_goes_on_without_the_lock(workspace: Workspace) -> None:
    chapter = workspace.root / "ch.json"
    first = RunLock(workspace, chapter)
    first.acquire("proofread")
    forced = RunLock(workspace, chapter)
    assert forced.acquire("translate", force=True) is False and not forced.held
    forced.release()  # harmless: it holds nothing
    assert RunLock(workspace, chapter).holder()["task"] == "proofread"  # the first run still holds it
    first.release()


def test_runs_of_other_chapters_do_not_wait(workspace: Workspace) -> None:
    a = RunLock(workspace, workspace.root / "a.json")
    b = RunLock(workspace, workspace.root / "b.json")
    assert a.acquire("translate") and b.acquire("translate")
    a.release()
    b.release()


def test_a_released_lock_names_nobody(workspace: Workspace) -> None:
    lock = RunLock(workspace, workspace.root / "ch.json")
    lock.acquire("translate")
    lock.release()
    assert RunLock(workspace, workspace.root / "ch.json").holder() == {}


def test_a_planted_run_lock_link_is_refused(workspace: Workspace, tmp_path: Path) -> None:
    workspace.locks_dir.mkdir(parents=True)
    victim = tmp_path / "victim"
    (workspace.locks_dir / "ch.json.run.lock").symlink_to(victim)
    with pytest.raises(LockError) as info:
        RunLock(workspace, workspace.root / "ch.json").acquire("translate")
    assert "symbolic link" in str(info.value) and not victim.exists()


@pytest.mark.slow  # a second interpreter
def test_the_lock_holds_across_processes_and_dies_with_its_holder(workspace: Workspace) -> None:
    script = (
        "import sys; from pathlib import Path; from store.lock import RunLock; from store.workspace import "
        "Workspace; lock = RunLock(Workspace(Path(sys.argv[1])), Path(sys.argv[1]) / 'ch.json'); "
        "lock.acquire('polish'); print('held', flush=True); sys.stdin.read()"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(workspace.root)],
        cwd=ROOT,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "held\n"
        with pytest.raises(RunBusy) as info:
            RunLock(workspace, workspace.root / "ch.json").acquire("translate")
        assert f"another run is polishing ch.json (pid {child.pid}, started " in str(info.value)
    finally:
        child.kill()
        child.wait()
    lock = RunLock(workspace, workspace.root / "ch.json")  # the kernel released it with the process
    assert lock.acquire("translate")
    lock.release()
