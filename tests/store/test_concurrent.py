"""Concurrent writers: a person's edits and the model's batches both survive; the lock spans processes."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from store.commit import ChapterStore
from store.lock import ChapterLock, LockTimeout
from store.merge import BatchItem
from store.model import Chapter, append_version
from store.workspace import Workspace
from tests.bench.chapters import write_chapter
from tests.store.crash_child import start_writer, work_ids

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def path(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    target = folder / "ch01.json"
    write_chapter(target, 16)
    return target


def manual_edit(pid: str, text: str):  # type: ignore[no-untyped-def]
    """The TUI's "edit by hand": append a manual version and select it."""

    def apply(chapter: Chapter) -> Chapter:
        pos = chapter.positions[pid]
        para, _ = append_version(chapter.paragraphs[pos], text, origin="manual", model=None)
        return chapter.with_paragraphs({pos: para})

    return apply


def all_texts(chapter: Chapter) -> set[str]:
    return {t.text for p in chapter.paragraphs for t in p.translations}


PERSON = r"""
import sys
sys.path.insert(0, sys.argv[1])
from store.commit import ChapterStore
from store.model import append_version
pid, text = sys.argv[3], sys.argv[4]
def apply(chapter):
    pos = chapter.positions[pid]
    para, _ = append_version(chapter.paragraphs[pos], text, origin="manual", model=None)
    return chapter.with_paragraphs({pos: para})
ChapterStore(sys.argv[2]).update(apply)
"""


@pytest.mark.parametrize("person", ["thread", "process"])
def test_a_persons_edit_during_a_run_survives_the_batch(path: Path, person: str) -> None:
    engine = ChapterStore(path)
    seen = engine.load()  # the run builds its chunk from this
    x, y = work_ids(seen)[:2]
    if person == "thread":
        worker = threading.Thread(target=lambda: ChapterStore(path).update(manual_edit(x, "by hand")))
        worker.start()
        worker.join(10)
    else:
        subprocess.run([sys.executable, "-c", PERSON, str(REPO), str(path), x, "by hand"], check=True, timeout=60)
    result = engine.commit_batch(
        [
            BatchItem.based_on(seen.paragraph(x), "model X"),  # type: ignore[arg-type]
            BatchItem.based_on(seen.paragraph(y), "model Y"),
        ],  # type: ignore[arg-type]
        origin="polish",
        model="m",
    )
    assert result.accepted == (x, y) and result.kept_selection == (x,)
    on_disk = ChapterStore(path).load()
    px, py = on_disk.paragraph(x), on_disk.paragraph(y)
    assert px is not None and py is not None
    assert px.selected_text == "by hand"  # manual work wins
    assert [t.text for t in px.translations][-2:] == ["by hand", "model X"]  # and the model's text is kept
    assert py.selected_text == "model Y"


def test_engine_and_person_threads_hammering_one_chapter_lose_nothing(path: Path) -> None:
    ids = work_ids(ChapterStore(path).load())
    errors: list[BaseException] = []
    kept: list[str] = []

    def engine() -> None:
        try:
            store = ChapterStore(path, keep_versions=0)
            for n in range(30):
                chapter = store.load()
                items = [
                    BatchItem.based_on(chapter.paragraph(pid), f"model {n} {pid}")  # type: ignore[arg-type]
                    for pid in ids[n % 3 :: 3][:4]
                ]
                kept.extend(store.commit_batch(items, origin="translation", model="m").kept_selection)
        except BaseException as exc:  # reported below
            errors.append(exc)

    def person() -> None:
        try:
            store = ChapterStore(path, keep_versions=0)
            for n in range(30):
                store.update(manual_edit(ids[n % len(ids)], f"person {n}"))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=engine), threading.Thread(target=person)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    texts = all_texts(ChapterStore(path).load())
    assert {f"person {n}" for n in range(30)} <= texts
    expected_model = {f"model {n} {pid}" for n in range(30) for pid in ids[n % 3 :: 3][:4]}
    assert expected_model <= texts


@pytest.mark.slow  # two writer processes, 40 commits each
def test_two_processes_committing_concurrently_lose_nothing(path: Path) -> None:
    writers = [start_writer(path, name, 40) for name in ("alpha", "beta")]
    for w in writers:
        _, err = w.communicate(timeout=120)
        assert w.returncode == 0, err
    texts = all_texts(ChapterStore(path).load())
    missing = {f"{name} {n}" for name in ("alpha", "beta") for n in range(40)} - texts
    assert missing == set()


def test_the_lock_excludes_threads_of_one_process(path: Path) -> None:
    workspace = Workspace(path.parent)
    inside = 0
    overlaps = 0
    guard = threading.Lock()

    def hold() -> None:
        nonlocal inside, overlaps
        for _ in range(20):
            with ChapterLock(workspace, path):
                with guard:
                    inside += 1
                    overlaps += inside > 1
                time.sleep(0.001)
                with guard:
                    inside -= 1

    threads = [threading.Thread(target=hold) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert overlaps == 0


HOLDER = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from store.lock import ChapterLock
from store.workspace import Workspace
lock = ChapterLock(Workspace(Path(sys.argv[2]).parent), Path(sys.argv[2]))
lock.acquire()
print("held", flush=True)
time.sleep(60)
"""


def test_the_lock_spans_processes_and_dies_with_its_holder(path: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(REPO), str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        workspace = Workspace(path.parent)
        assert not ChapterLock(workspace, path).try_acquire()
        with pytest.raises(LockTimeout):
            ChapterLock(workspace, path, timeout=0.1).acquire()
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
        lock = ChapterLock(workspace, path, timeout=5)
        lock.acquire()  # released by the kernel when the holder died
        lock.release()
        assert workspace.lock_path(path).exists()  # the lock file itself is never removed
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(10)
