"""I/O errors at every step of the write path: the chapter stays byte-identical, one clear error, no temp
left, and the next commit succeeds. Plus a real full disk (RLIMIT_FSIZE, and a tiny tmpfs when possible).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import store.atomic as atomic_module
from store.atomic import CommitError
from store.commit import ChapterStore, StaleParagraphError
from store.merge import BatchItem
from store.model import Chapter
from store.serialize import chapter_bytes
from tests.bench.chapters import write_chapter
from tests.store.crash_child import our_temps

REPO = Path(__file__).resolve().parents[2]
OS_CALLS = ("lstat", "fchmod", "fchown", "write", "fsync", "link", "replace", "fstat", "open")


@dataclass
class Plan:
    """Which call of the write path fails, with which errno; records every call made."""

    fail_at: int | None = None
    err: int = errno.EIO
    only: str | None = None  # fail every call of this name instead of call number ``fail_at``
    calls: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)


class Faulty:
    """Stands in for a module (``os``, ``tempfile``) inside ``store.atomic`` only."""

    def __init__(self, real: Any, names: tuple[str, ...], plan: Plan) -> None:
        self._real = real
        self._names = names
        self._plan = plan

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._real, name)
        if name not in self._names:
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            plan = self._plan
            number = len(plan.calls)
            plan.calls.append((name, args))
            if plan.only == name or (plan.only is None and number == plan.fail_at):
                raise OSError(plan.err, os.strerror(plan.err))
            return attr(*args, **kwargs)

        return call


@pytest.fixture
def plan(monkeypatch: pytest.MonkeyPatch) -> Plan:
    p = Plan()
    monkeypatch.setattr(atomic_module, "os", Faulty(os, OS_CALLS, p))
    monkeypatch.setattr(atomic_module, "tempfile", Faulty(atomic_module.tempfile, ("mkstemp",), p))
    return p


@pytest.fixture
def path(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    target = folder / "ch01.json"
    write_chapter(target, 12)
    return target


def batch(chapter: Chapter, text: str) -> list[BatchItem]:
    ids = [p.id for p in chapter.paragraphs if not p.is_empty][:3]
    return [BatchItem.based_on(chapter.paragraph(pid), f"{text} {pid}") for pid in ids]  # type: ignore[arg-type]


def recorded_steps(path: Path, plan: Plan) -> list[str]:
    """The calls a successful commit makes, in order."""
    store = ChapterStore(path)
    plan.fail_at, plan.calls = None, []
    store.commit_batch(batch(store.load(), "dry run"), origin="polish", model="m")
    return [name for name, _ in plan.calls]


def test_the_write_path_makes_the_calls_of_the_guide(path: Path, plan: Plan) -> None:
    steps = recorded_steps(path, plan)
    assert steps[0] == "lstat" and steps[1] == "mkstemp"
    for expected in ("fchmod", "write", "fsync", "link", "replace", "open"):
        assert expected in steps
    # temp fsync before the rename, folder fsync after it
    assert steps.index("fsync") < steps.index("replace") < len(steps) - 1 - steps[::-1].index("fsync")


@pytest.mark.parametrize("err", [errno.EIO, errno.ENOSPC, errno.EACCES], ids=["EIO", "ENOSPC", "EACCES"])
def test_a_failure_at_every_step_leaves_the_chapter_byte_identical(path: Path, plan: Plan, err: int) -> None:
    steps = recorded_steps(path, plan)
    store = ChapterStore(path)
    problems: list[str] = []
    for k, step in enumerate(steps):
        before_bytes, before_ino = path.read_bytes(), os.stat(path).st_ino
        chapter = store.load()
        plan.fail_at, plan.err, plan.calls = k, err, []
        try:
            store.commit_batch(batch(chapter, f"attempt {k}"), origin="polish", model="m")
            problems.append(f"call {k} ({step}) failed but the commit reported success")
        except CommitError as exc:
            message = str(exc)
            if "\n" in message or "ch01.json" not in message or os.strerror(err) not in message:
                problems.append(f"call {k} ({step}): unclear error {message!r}")
        if path.read_bytes() != before_bytes:
            problems.append(f"call {k} ({step}): the chapter changed")
        if os.stat(path).st_ino != before_ino:
            problems.append(f"call {k} ({step}): the chapter is a different file now")
        if our_temps(path.parent):
            problems.append(f"call {k} ({step}): temps left {our_temps(path.parent)}")
        failed_fsync = [a[0] for n, a in plan.calls[k : k + 1] if n == "fsync"]
        if failed_fsync and any(n == "fsync" and a[0] == failed_fsync[0] for n, a in plan.calls[k + 1 :]):
            problems.append(f"call {k}: a file was fsynced again after its fsync failed")
        plan.fail_at = None
        result = store.commit_batch(batch(store.load(), f"after {k}"), origin="polish", model="m")
        if path.read_bytes() != chapter_bytes(result.chapter) or our_temps(path.parent):
            problems.append(f"call {k} ({step}): the next commit did not succeed cleanly")
    assert problems == []
    assert len(steps) >= 10


@pytest.mark.parametrize("step", ["mkstemp", "fchmod", "write", "fsync", "replace"])
def test_each_named_step_gives_its_own_message(path: Path, plan: Plan, step: str) -> None:
    store = ChapterStore(path)
    before = path.read_bytes()
    plan.only, plan.err = step, errno.ENOSPC
    with pytest.raises(CommitError) as info:
        store.commit_batch(batch(store.load(), "x"), origin="polish", model="m")
    wording = {
        "mkstemp": "create a temp file",
        "fchmod": "set the mode of the temp file",
        "write": "write the temp file",
        "fsync": "fsync the temp file",
        "replace": "replace the file",
    }[step]
    assert str(info.value) == f"could not {wording} for ch01.json: No space left on device"
    assert info.value.errno == errno.ENOSPC
    assert path.read_bytes() == before and our_temps(path.parent) == []


def test_a_failed_folder_fsync_puts_the_old_file_back(path: Path, plan: Plan) -> None:
    steps = recorded_steps(path, plan)
    folder_fsync = len(steps) - 1 - steps[::-1].index("fsync")
    store = ChapterStore(path)
    before_bytes, before_ino = path.read_bytes(), os.stat(path).st_ino
    plan.fail_at, plan.calls = folder_fsync, []
    with pytest.raises(CommitError, match=r"could not fsync the folder for ch01\.json: Input/output error"):
        store.commit_batch(batch(store.load(), "x"), origin="polish", model="m")
    assert path.read_bytes() == before_bytes and os.stat(path).st_ino == before_ino
    assert our_temps(path.parent) == []


def test_a_folder_fsync_the_filesystem_cannot_do_is_tolerated(path: Path, plan: Plan) -> None:
    steps = recorded_steps(path, plan)
    folder_fsync = len(steps) - 1 - steps[::-1].index("fsync")
    store = ChapterStore(path)
    plan.fail_at, plan.err, plan.calls = folder_fsync, errno.EINVAL, []
    result = store.commit_batch(batch(store.load(), "x"), origin="polish", model="m")
    assert path.read_bytes() == chapter_bytes(result.chapter)


def test_a_filesystem_without_hard_links_still_commits(path: Path, plan: Plan) -> None:
    store = ChapterStore(path)
    plan.only, plan.err = "link", errno.EPERM
    result = store.commit_batch(batch(store.load(), "x"), origin="polish", model="m")
    assert path.read_bytes() == chapter_bytes(result.chapter) and our_temps(path.parent) == []


def test_a_stale_batch_that_cannot_be_saved_to_conflicts_is_a_commit_error(path: Path, plan: Plan) -> None:
    store = ChapterStore(path)
    seen = store.load()
    pid = next(p.id for p in seen.paragraphs if not p.is_empty)
    ChapterStore(path).update(
        lambda ch: ch.with_paragraphs({ch.positions[pid]: ch.paragraphs[ch.positions[pid]].replace(text="changed")})
    )
    before = path.read_bytes()
    plan.only, plan.err = "mkstemp", errno.ENOSPC
    with pytest.raises(CommitError) as info:
        store.commit_batch(batch(seen, "x"), origin="polish", model="m")
    assert not isinstance(info.value, StaleParagraphError)
    assert "conflicts" in str(info.value) and "No space left on device" in str(info.value)
    assert path.read_bytes() == before
    plan.only = None
    with pytest.raises(StaleParagraphError):
        store.commit_batch(batch(seen, "x"), origin="polish", model="m")


# -- a real full disk ------------------------------------------------------------------------------------

CHILD = r"""
import json, os, resource, signal, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from store.atomic import CommitError, temp_target
from store.commit import ChapterStore
from store.merge import BatchItem
path = Path(sys.argv[2])
limit = int(sys.argv[3])
if limit:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # get EFBIG instead of being killed
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
store = ChapterStore(path)
chapter = store.load()
ids = [p.id for p in chapter.paragraphs if not p.is_empty]
before = path.read_bytes()
out = {}
try:
    store.commit_batch([BatchItem.based_on(chapter.paragraph(i), "長" * 8000 + i) for i in ids[:8]],
                       origin="translation", model="big")
    out["big"] = "committed"
except CommitError as exc:
    out["big"] = str(exc)
out["same"] = path.read_bytes() == before
out["temps"] = [n for n in os.listdir(path.parent) if temp_target(n)]
store.commit_batch([BatchItem.based_on(chapter.paragraph(ids[0]), "small")], origin="translation", model="s")
out["after"] = store.load().paragraph(ids[0]).selected_text
print(json.dumps(out))
"""


def run_child(argv: list[str]) -> dict[str, Any]:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def check_full_disk(out: dict[str, Any], reason: str) -> None:
    assert out["big"].startswith("could not write the temp file for ch01.json: "), out
    assert reason in out["big"]
    assert out["same"] is True and out["temps"] == [] and out["after"] == "small"


@pytest.mark.slow  # a child process under a file size limit
def test_file_size_limit_for_real(path: Path) -> None:
    limit = path.stat().st_size + 4096
    out = run_child([sys.executable, "-c", CHILD, str(REPO), str(path), str(limit)])
    check_full_disk(out, "File too large")


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode == 0


TMPFS_SCRIPT = """
mount -t tmpfs -o size=300000 proofdesk-test "$1" &&
"$2" -c "$5" "$4" "$1/ch01.json" &&
"$2" -c "$3" "$4" "$1/ch01.json" 0
"""
SETUP = """
import sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from tests.bench.chapters import write_chapter
write_chapter(Path(sys.argv[2]), 80)
"""


@pytest.mark.slow  # a child process in its own mount namespace
@pytest.mark.skipif(not _unshare_works(), reason="unprivileged user+mount namespaces are not available")
def test_tiny_tmpfs_full_for_real(tmp_path: Path) -> None:
    mount = tmp_path / "tiny"
    mount.mkdir()
    # The tmpfs exists only inside the namespace, so the chapter is written there too.
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", TMPFS_SCRIPT, "sh", str(mount), sys.executable, CHILD, str(REPO), SETUP],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if done.returncode != 0 and "mount" in done.stderr:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()[:200]}")
    assert done.returncode == 0, done.stderr
    check_full_disk(json.loads(done.stdout.strip().splitlines()[-1]), "No space left on device")
