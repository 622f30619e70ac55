"""The commit path's helpers: our own writes confirmed in the background, also in a forked child."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import store.racy_confirm as confirm_module
from store.atomic import RACY_WINDOW_NS, FileState, atomic_write, file_state
from store.commit import ChapterStore
from store.merge import BatchItem
from store.model import Chapter
from store.racy_confirm import still_holds
from store.serialize import chapter_bytes
from store.workspace import content_digest
from tests.bench.chapters import write_chapter


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


def wait_for(condition: object, what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def test_our_own_write_is_confirmed_in_the_background_so_the_next_commit_reads_nothing(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ChapterStore(path)
    result = store.commit_batch(batch(store.load(), "first"), origin="polish", model="m")
    assert store.state is not None and store.state.racy  # a stat taken right after our own rename
    wait_for(lambda: store.state is not None and not store.state.racy, "the background confirmation")
    reads: list[int] = []
    real = ChapterStore._read_bytes
    monkeypatch.setattr(ChapterStore, "_read_bytes", lambda self: reads.append(1) or real(self))
    second = store.commit_batch(batch(result.chapter, "second"), origin="polish", model="m")
    assert reads == []
    assert path.read_bytes() == chapter_bytes(second.chapter)
    assert second.digest == content_digest(path.read_bytes())


def test_a_confirmation_never_vouches_for_other_bytes(path: Path) -> None:
    raw = path.read_bytes()
    st = os.stat(path)
    old = FileState.of(st, content_digest(raw), seen_ns=st.st_ctime_ns)  # racy: seen within the window
    assert old.racy
    time.sleep(RACY_WINDOW_NS / 1e9 * 1.5)
    confirmed = still_holds(path, old, raw)
    assert confirmed is not None and not confirmed.racy and confirmed.same_stat(old)
    assert confirmed.digest == old.digest
    # Same stat (as a rewrite within one clock tick would leave it), other bytes: not confirmed.
    assert still_holds(path, old, raw.replace(b'"reviewed": false', b'"reviewed": falsE')) is None
    # A state without a digest is confirmed as such.
    undigested = still_holds(path, FileState.of(st, None, seen_ns=st.st_ctime_ns), raw)
    assert undigested is not None and undigested.digest is None


def test_a_confirmation_does_not_replace_a_newer_state(path: Path) -> None:
    store = ChapterStore(path)
    store.commit_batch(batch(store.load(), "first"), origin="polish", model="m")
    first = store.state
    assert first is not None
    store.commit_batch(batch(store.load(), "second"), origin="polish", model="m")
    second = store.state
    time.sleep(RACY_WINDOW_NS / 1e9 * 1.5)
    store._confirm(first)
    assert store.state is second or (store.state is not None and store.state.same_stat(second))


def test_an_outside_edit_after_our_write_is_merged_onto_not_overwritten(path: Path) -> None:
    store = ChapterStore(path)
    result = store.commit_batch(batch(store.load(), "ours"), origin="polish", model="m")
    theirs = result.chapter.replace(title="Renamed outside")
    temp = path.with_name("editor.part")
    temp.write_bytes(chapter_bytes(theirs))
    os.replace(temp, path)
    after = store.commit_batch(batch(result.chapter, "again"), origin="polish", model="m")
    assert after.chapter.title == "Renamed outside"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_a_forked_child_writes_and_confirms_with_its_own_helper(path: Path) -> None:
    store = ChapterStore(path)
    store.commit_batch(batch(store.load(), "parent"), origin="polish", model="m")
    pid = os.fork()
    if pid == 0:  # the child: exit status says whether a big write and its confirmation worked
        try:
            big = os.urandom(3 << 20)
            target = path.with_name("big.bin")
            state = atomic_write(target, big, expect=None)
            child = ChapterStore(path)
            child.commit_batch(batch(child.load(), "child"), origin="polish", model="m")
            deadline = time.monotonic() + 10
            while child.state is not None and child.state.racy and time.monotonic() < deadline:
                time.sleep(0.005)
            ok = state.digest == content_digest(big) and child.state is not None and not child.state.racy
            os._exit(0 if ok else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert file_state(path) is not None
    assert confirm_module._confirm_thread is not None
