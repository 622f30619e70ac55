"""A workspace someone tampered with, a careless one or a big one: planted symbolic links in ``.proofdesk/``,
read-only chapters, chapter names as long as a file name may be, and the watcher's idle rhythm on a workspace of
thousands of chapters (issue 17, items 4, 5, 13 and 17; the idle CPU itself is measured by
``tests/bench/bench_watch_idle.py``, never asserted)."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from store import watch_read
from store.atomic import CommitError, ReadOnlyChapter, temp_prefix, temp_target
from store.commit import ChapterStore, StaleParagraphError, clean_folder
from store.conflicts import list_conflicts, write_conflicts
from store.errors import StoreError
from store.lock import ChapterLock, LockError
from store.merge import BatchItem
from store.model import Chapter
from store.serialize import chapter_bytes
from store.watcher import ChapterWatcher
from store.workspace import (
    LEGACY_TEMP_PREFIX,
    TEMP_SUFFIX,
    UnsafeStateDir,
    Workspace,
    is_chapter_name,
    name_key,
    safe_state_dir,
)
from tests.bench.chapters import write_chapter
from tests.store.watch_backends import FlakyBackend, deaf_watch
from tests.store.watch_support import EventRecorder, chapter_data, inotify_watched, wait_until


@pytest.fixture
def path(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    target = folder / "c.json"
    write_chapter(target, 8)
    return target


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A folder outside the workspace that a planted link points into."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    return folder


def batch(chapter: Chapter, text: str) -> list[BatchItem]:
    ids = [p.id for p in chapter.paragraphs if not p.is_empty][:2]
    return [BatchItem.based_on(chapter.paragraph(pid), f"{text} {pid}") for pid in ids]  # type: ignore[arg-type]


def commit(store: ChapterStore, text: str = "ai") -> None:
    store.commit_batch(batch(store.load(), text), origin="translation", model="m")


def stale_batch(store: ChapterStore) -> list[BatchItem]:
    """A batch whose first paragraph's source was changed on disk since it was read."""
    seen = store.load()
    items = batch(seen, "ai")
    pid = items[0].paragraph_id
    changed = seen.with_paragraphs({seen.positions[pid]: seen.paragraphs[seen.positions[pid]].replace(text="改稿")})
    store.path.write_bytes(chapter_bytes(changed))
    return items


def one_line(message: str, *needles: str) -> None:
    assert "\n" not in message
    for needle in needles:
        assert needle in message


# -- item 4: planted symbolic links inside .proofdesk/ ------------------------------------------------------


def test_a_planted_lock_link_is_never_followed_nor_created(path: Path, elsewhere: Path) -> None:
    locks = path.parent / ".proofdesk" / "locks"
    locks.mkdir(parents=True)
    victim = elsewhere / "file"
    (locks / "c.json.lock").symlink_to(victim)
    before = path.read_bytes()
    store = ChapterStore(path)
    with pytest.raises(LockError) as info:
        commit(store)
    one_line(str(info.value), "c.json.lock", "symbolic link")
    assert not victim.exists() and path.read_bytes() == before
    victim.write_bytes(b"precious")  # an existing target is not opened for writing either
    with pytest.raises(LockError):
        commit(store)
    assert victim.read_bytes() == b"precious"


@pytest.mark.parametrize("planted", [".proofdesk", ".proofdesk/locks"])
def test_a_symlinked_state_folder_is_refused_in_one_sentence(path: Path, elsewhere: Path, planted: str) -> None:
    link = path.parent / planted
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(elsewhere, target_is_directory=True)
    before = path.read_bytes()
    with pytest.raises(UnsafeStateDir) as info:
        commit(ChapterStore(path))
    one_line(str(info.value), str(link), "symbolic link", "remove it")
    assert list(elsewhere.iterdir()) == [] and path.read_bytes() == before


def test_a_planted_fifo_lock_file_is_refused_without_hanging(path: Path) -> None:
    locks = path.parent / ".proofdesk" / "locks"
    locks.mkdir(parents=True)
    os.mkfifo(locks / "c.json.lock")
    with pytest.raises(LockError) as info:
        commit(ChapterStore(path))
    one_line(str(info.value), "not a regular file")


def test_a_symlinked_conflicts_folder_gets_no_record_and_is_not_read(path: Path, elsewhere: Path) -> None:
    store = ChapterStore(path)
    (path.parent / ".proofdesk").mkdir()
    (path.parent / ".proofdesk" / "conflicts").symlink_to(elsewhere, target_is_directory=True)
    items = stale_batch(store)
    with pytest.raises(CommitError) as info:  # the refused texts cannot be kept: said, never dropped silently
        store.commit_batch(items, origin="translation", model="m")
    assert not isinstance(info.value, StaleParagraphError)
    one_line(str(info.value), "conflicts", "symbolic link")
    assert list(elsewhere.iterdir()) == []
    (elsewhere / "c.json.20260101T000000.000000Z.abcdef.json").write_text("{}")
    assert list_conflicts(store.workspace, path) == []  # nothing is read through the link


def test_a_planted_conflict_record_link_is_not_read(path: Path, elsewhere: Path) -> None:
    store = ChapterStore(path)
    with pytest.raises(StaleParagraphError) as info:
        store.commit_batch(stale_batch(store), origin="translation", model="m")
    real = info.value.conflict_path
    secret = elsewhere / "secret.json"
    secret.write_bytes(real.read_bytes())  # even a valid record is not taken from outside
    (real.parent / "c.json.20990101T000000.000000Z.ffffff.json").symlink_to(secret)
    assert [c.path for c in list_conflicts(store.workspace, path)] == [real]


def test_state_folders_are_created_real_and_checked_down_to_the_trace_folder(tmp_path: Path, elsewhere: Path) -> None:
    workspace = Workspace(tmp_path)
    trace_dir = workspace.traces_dir / "ch01"
    assert workspace.safe_state_dir(trace_dir) == trace_dir and trace_dir.is_dir()
    planted = workspace.traces_dir / "ch02"
    planted.symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(UnsafeStateDir) as info:
        workspace.safe_state_dir(planted)
    one_line(str(info.value), str(planted), "symbolic link")
    with pytest.raises(UnsafeStateDir):
        workspace.safe_state_dir(planted / "deeper")
    assert list(elsewhere.iterdir()) == []
    (workspace.traces_dir / "file").write_text("x")
    with pytest.raises(UnsafeStateDir) as info:
        workspace.safe_state_dir(workspace.traces_dir / "file")
    assert "not a folder" in str(info.value)
    outside = tmp_path / "chosen" / "by" / "the person"  # no .proofdesk component: only created
    assert safe_state_dir(outside).is_dir()


# -- item 5: read-only chapters --------------------------------------------------------------------------


def test_a_read_only_chapter_is_not_rewritten(path: Path) -> None:
    os.chmod(path, 0o444)
    before, ino = path.read_bytes(), path.stat().st_ino
    store = ChapterStore(path)
    with pytest.raises(ReadOnlyChapter) as info:
        commit(store)
    one_line(str(info.value), "c.json is read-only (mode 0444)", "--force")
    with pytest.raises(ReadOnlyChapter):  # a person's edit in the TUI goes through update: refused alike
        store.update(lambda ch: ch.replace(title="edited"))
    with pytest.raises(ReadOnlyChapter):
        store.check_writable()
    assert path.read_bytes() == before and path.stat().st_ino == ino
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


def test_a_read_only_chapter_is_written_when_the_person_asked(path: Path) -> None:
    os.chmod(path, 0o444)
    store = ChapterStore(path, allow_read_only=True)
    store.check_writable()
    commit(store, "forced")
    assert "forced" in path.read_text(encoding="utf-8")
    assert stat.S_IMODE(path.stat().st_mode) == 0o444  # the mode is kept, as for every commit


def test_a_chapter_with_any_write_bit_is_writable(path: Path) -> None:
    os.chmod(path, 0o464)  # group-writable only: as vim, not read-only when we may write it
    store = ChapterStore(path)
    store.check_writable()
    commit(store)


# -- item 13: chapter names as long as a name may be --------------------------------------------------------


def long_name(size: int) -> str:
    """A chapter file name of exactly ``size`` bytes in UTF-8, with multi-byte characters."""
    head = "第一章" * 20  # 180 bytes: a cut at 160 bytes falls inside a character
    name = head + "x" * (size - len(head.encode()) - len(".json")) + ".json"
    assert len(name.encode()) == size
    return name


@pytest.mark.parametrize("size", [231, 232, 240, 255])
def test_a_chapter_named_with_up_to_255_bytes_commits(path: Path, size: int) -> None:
    folder = path.parent
    path.unlink()
    path = folder / long_name(size)
    write_chapter(path, 6)
    store = ChapterStore(path)
    commit(store, "long")
    commit(store, "longer")
    assert "longer" in path.read_text(encoding="utf-8")
    assert [p.name for p in folder.iterdir() if p.name != ".proofdesk"] == [path.name]  # no temp left
    for lock in (folder / ".proofdesk" / "locks").iterdir():
        assert len(os.fsencode(lock.name)) <= 255
    # A stale batch keeps its texts for a long name too (the conflict file's name is built from the key).
    with pytest.raises(StaleParagraphError) as info:
        store.commit_batch(stale_batch(store), origin="translation", model="m")
    assert [c.path for c in list_conflicts(store.workspace, path)] == [info.value.conflict_path]


def test_temp_names_are_short_and_name_their_target_key(tmp_path: Path) -> None:
    for name in ("ch01.json", long_name(255), long_name(201)):
        key = name_key(name)
        temp = f"{temp_prefix(name)}abcd1234{TEMP_SUFFIX}"
        assert len(temp.encode()) <= 255 - 8  # room to spare
        assert temp_target(temp) == key and not is_chapter_name(temp)
        assert name_key(key) == key  # a key names the same lock as the name it came from
    assert name_key("ch01.json") == "ch01.json"
    assert name_key(long_name(255)) != name_key(long_name(254))
    assert temp_target(f"{LEGACY_TEMP_PREFIX}ch01.json.x1y2z3{TEMP_SUFFIX}") == "ch01.json"
    assert temp_target(".pd-.tmp") is None and temp_target("notes.tmp") is None


def test_stale_temps_of_long_and_legacy_names_are_cleaned_unless_their_writer_lives(path: Path) -> None:
    tmp_path = path.parent
    long = tmp_path / long_name(250)
    busy = tmp_path / long_name(249)
    for p in (long, busy, tmp_path / "a.json"):
        write_chapter(p, 3)
    stale_long = tmp_path / f"{temp_prefix(long.name)}dead0001{TEMP_SUFFIX}"
    live_busy = tmp_path / f"{temp_prefix(busy.name)}live0001{TEMP_SUFFIX}"
    legacy = tmp_path / f"{LEGACY_TEMP_PREFIX}a.json.old00001{TEMP_SUFFIX}"
    for p in (stale_long, live_busy, legacy):
        p.write_bytes(b"{")
    workspace = Workspace(tmp_path)
    writing = ChapterLock(workspace, busy)
    writing.acquire()
    try:
        removed = clean_folder(workspace, tmp_path)
    finally:
        writing.release()
    assert sorted(p.name for p in removed) == sorted([stale_long.name, legacy.name])
    assert live_busy.exists() and not stale_long.exists() and not legacy.exists()


def test_conflict_writes_are_serialised_across_threads_with_long_names(tmp_path: Path) -> None:
    chapter = tmp_path / long_name(255)
    workspace = Workspace(tmp_path)
    errors: list[BaseException] = []

    def one() -> None:
        try:
            write_conflicts(workspace, chapter, [])
        except (OSError, StoreError) as exc:
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(list(workspace.conflicts_dir.iterdir())) == 4


# -- item 17: an idle watcher does not rescan a big workspace every two seconds ---------------------------------


@pytest.fixture
def watched(tmp_path: Path) -> Workspace:
    root = tmp_path / "watched"
    root.mkdir()
    (root / "ch.json").write_bytes(chapter_data("v0"))
    return Workspace(root)


async def test_the_scan_backs_off_while_notify_is_healthy_and_comes_back_after_a_failure(watched: Workspace) -> None:
    backend = FlakyBackend(fail_at_start=0)  # its first run fails after delivering its first change set
    watcher = ChapterWatcher(
        watched,
        settle=0.05,
        reconcile_every=0.05,
        reconcile_idle=600,
        healthy_after=0.3,
        restart_backoff=0.05,
        watch_factory=backend,
    )
    async with watcher:
        assert watcher.reconcile_interval == 0.05  # just started: the backend has proved nothing yet
        await wait_until(lambda: watcher.reconcile_interval == 600, "the scan never backed off")
        await wait_until(lambda: inotify_watched(watched.root), "the backend never watched the folder")
        watcher.healthy_after = 3600  # from now on, a return to the short interval stays observable
        (watched.root / "ch.json").write_bytes(chapter_data("v1"))
        await wait_until(lambda: watcher.stats.restarts >= 1, "the injected failure never happened")
        assert watcher.reconcile_interval == 0.05
    assert watcher.missed == 0


async def test_a_change_notify_never_reported_brings_the_short_interval_back(
    watched: Workspace, caplog: pytest.LogCaptureFixture
) -> None:
    watcher = ChapterWatcher(
        watched,
        settle=0.05,
        reconcile_every=0.05,
        reconcile_idle=0.3,
        healthy_after=0.3,
        miss_grace=0.1,
        watch_factory=deaf_watch,
    )
    async with watcher:
        recorder = EventRecorder(watcher)
        await wait_until(lambda: watcher.reconcile_interval == 0.3, "the scan never backed off")
        watcher.healthy_after = 3600
        with caplog.at_level("INFO", logger="store.watcher"):
            (watched.root / "ch.json").write_bytes(chapter_data("v1"))
            await recorder.wait_count(1)  # found by the (slower) scan all the same
            await wait_until(lambda: watcher.missed >= 1, "the missed change was never judged")
        assert watcher.reconcile_interval == 0.05
        assert any("never notified" in r.getMessage() for r in caplog.records)


@pytest.mark.slow
async def test_changes_notify_reported_are_not_taken_for_misses(watched: Workspace) -> None:
    watcher = ChapterWatcher(watched, settle=0.05, reconcile_every=0.05, reconcile_idle=0.05, miss_grace=0.5)
    async with watcher:
        recorder = EventRecorder(watcher)
        await wait_until(lambda: inotify_watched(watched.root), "the backend never watched the folder")
        for n in range(3):
            (watched.root / "ch.json").write_bytes(chapter_data(f"edit {n}"))
            await recorder.wait_count(n + 1)
        # Scans running all along may have found each edit before its notification: judged once the grace is over.
        await wait_until(lambda: watcher.unjudged() == 0, "scan hits were never judged")
        assert watcher.missed == 0


def test_the_scan_keys_chapters_by_name(watched: Workspace) -> None:
    (watched.root / "notes.txt").write_text("x")
    (watched.root / ".pd-ch.json.abcd1234.tmp").write_text("{")
    found, root_id = watch_read.scan_folder(watched.root)
    assert list(found) == ["ch.json"] and root_id is not None
