"""The chapter watcher against real files and the real watchfiles backend.

Every scenario writes files the way an editor (or our own commit) does, and checks that each outside edit is
reported exactly once with the full final content — never a partial read, never our own writes.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from store import watch_read
from store.commit import ChapterStore
from store.errors import ChapterLoadError
from store.loader import parse_chapter
from store.model import Chapter
from store.watch_events import ChapterChanged, ChapterDeleted, ChapterInvalid
from store.watch_read import known_state
from store.watcher import ChapterWatcher
from store.workspace import Workspace, content_digest
from tests.store.watch_backends import FlakyBackend, deaf_watch
from tests.store.watch_support import (
    EventRecorder,
    chapter_data,
    commit_chapter,
    commit_translation,
    git_checkout,
    inotify_watched,
    make_chapter,
    rsync_replace,
    settled,
    vim_backup_rename_save,
    vim_swap_rename_save,
    vscode_in_place_save,
    wait_until,
)

SETTLE = 0.1
GRACE = 0.6
RECONCILE = 0.25
RETRIES = 4


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    return Workspace(root)


def new_watcher(workspace: Workspace, **overrides: object) -> ChapterWatcher:
    options: dict[str, object] = {
        "settle": SETTLE,
        "delete_grace": GRACE,
        "reconcile_every": RECONCILE,
        "retries": RETRIES,
    }
    options.update(overrides)
    return ChapterWatcher(workspace, **options)  # type: ignore[arg-type]


@pytest.fixture
async def running(workspace: Workspace) -> AsyncIterator[tuple[ChapterWatcher, EventRecorder]]:
    """A started watcher over the workspace, seeded with one chapter ``ch.json`` (tag ``v0``)."""
    (workspace.root / "ch.json").write_bytes(chapter_data("v0"))
    watcher = new_watcher(workspace)
    await watcher.start()
    recorder = EventRecorder(watcher)
    yield watcher, recorder
    await watcher.stop()
    await asyncio.wait_for(recorder.task, 5)


def assert_changed_once(recorder: EventRecorder, path: Path, data: bytes) -> None:
    """Exactly one event since the recorder started: the whole of ``data`` at ``path``."""
    assert recorder.describe() == [f"chapter_changed:{path.name}"]
    event = recorder.events[0]
    assert isinstance(event, ChapterChanged)
    assert event.path == path
    assert event.digest == content_digest(data)
    assert event.chapter == parse_chapter(data, path)


# -- start-up ----------------------------------------------------------------------------------------------


async def test_seed_returns_current_states_and_emits_nothing(workspace: Workspace) -> None:
    good, bad = workspace.root / "a.json", workspace.root / "b.json"
    good.write_bytes(chapter_data("a"))
    bad.write_bytes(b'{"paragraphs": [')
    (workspace.root / "notes.txt").write_text("not a chapter")
    watcher = new_watcher(workspace)
    seeded = await watcher.seed()
    assert set(seeded) == {good, bad}
    assert seeded[good] == make_chapter("a")
    assert isinstance(seeded[bad], ChapterLoadError) and "b.json" in seeded[bad].line
    async with watcher:
        recorder = EventRecorder(watcher)
        await settled(watcher)
        assert recorder.events == []
        new = workspace.root / "c.json"
        new.write_bytes(chapter_data("c"))
        await recorder.wait_count(1)
        await settled(watcher)
        assert_changed_once(recorder, new, chapter_data("c"))


async def test_seed_from_a_store_keeps_one_copy_and_parses_only_what_changed(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept, edited = workspace.root / "a.json", workspace.root / "b.json"
    kept.write_bytes(chapter_data("a"))
    edited.write_bytes(chapter_data("b"))
    stores = {path: ChapterStore(path, workspace) for path in (kept, edited)}
    shown = {path: store.load() for path, store in stores.items()}
    known = {path: known_state(*seen) for path, store in stores.items() if (seen := store.last_seen())}
    edited.write_bytes(chapter_data("b2"))  # changed after the store read it, before the watcher looked
    parsed: list[str] = []

    def counting_parse(data: bytes, path: Path) -> Chapter:
        parsed.append(Path(path).name)
        return parse_chapter(data, path)

    monkeypatch.setattr(watch_read, "parse_chapter", counting_parse)
    watcher = new_watcher(workspace)
    seeded = await watcher.seed(known)
    assert seeded[kept] is shown[kept]  # the very object the caller holds: no second parse, no copy
    assert seeded[edited] == make_chapter("b2") and seeded[edited] is not shown[edited]
    assert parsed == ["b.json"]  # only the file that changed since the store read it
    assert watcher.known_digest(kept) == content_digest(chapter_data("a"))


async def test_initial_events_mode_reports_each_existing_file_once(workspace: Workspace) -> None:
    (workspace.root / "a.json").write_bytes(chapter_data("a"))
    (workspace.root / "b.json").write_bytes(b"")
    async with new_watcher(workspace, initial_events=True) as watcher:
        recorder = EventRecorder(watcher)
        await recorder.wait_count(2)
        await settled(watcher)
        assert sorted(recorder.describe()) == ["chapter_changed:a.json", "chapter_invalid:b.json"]


# -- editor-style saves --------------------------------------------------------------------------------------


async def test_idle_means_nothing_pending_and_every_event_taken(workspace: Workspace) -> None:
    path = workspace.root / "ch.json"
    path.write_bytes(chapter_data("v0"))
    watcher = new_watcher(workspace)
    await watcher.start()
    try:
        path.write_bytes(chapter_data("v1"))
        # Noticed, then read and reported: not idle until the event is taken, however long that takes.
        await wait_until(lambda: not watcher.idle(), "the change was never noticed")
        event = await asyncio.wait_for(anext(watcher.events()), 10)
        assert isinstance(event, ChapterChanged) and event.digest == content_digest(chapter_data("v1"))
        await wait_until(watcher.idle, "the watcher never became idle once its event was taken")
        assert watcher.pending() == []
    finally:
        await watcher.stop()


async def test_vim_swap_and_rename_save_is_reloaded_once(running: tuple[ChapterWatcher, EventRecorder]) -> None:
    watcher, recorder = running
    path = watcher.root / "ch.json"
    await vim_swap_rename_save(path, chapter_data("vim"))
    await recorder.wait_count(1)
    await settled(watcher)
    assert_changed_once(recorder, path, chapter_data("vim"))


@pytest.mark.parametrize("pause", [0.02, 0.2])
async def test_vim_backup_rename_save_is_reloaded_once(
    running: tuple[ChapterWatcher, EventRecorder], pause: float
) -> None:
    watcher, recorder = running
    path = watcher.root / "ch.json"
    await vim_backup_rename_save(path, chapter_data("vim2"), pause)
    await recorder.wait_count(1)
    await settled(watcher)
    assert_changed_once(recorder, path, chapter_data("vim2"))


async def test_vscode_in_place_save_is_reloaded_once(running: tuple[ChapterWatcher, EventRecorder]) -> None:
    watcher, recorder = running
    path = watcher.root / "ch.json"
    await vscode_in_place_save(path, chapter_data("code"), lambda: asyncio.sleep(0.03))
    await recorder.wait_count(1)
    await settled(watcher)
    assert_changed_once(recorder, path, chapter_data("code"))


async def test_vscode_in_place_save_read_midway_is_never_adopted(workspace: Workspace) -> None:
    path = workspace.root / "ch.json"
    path.write_bytes(chapter_data("v0"))
    # Plenty of re-reads of the same bad bytes before they would count as invalid.
    async with new_watcher(workspace, retries=20, retry_delay=0.05) as watcher:
        recorder = EventRecorder(watcher)

        async def until_watcher_read_it() -> None:
            # The writer stalls until the watcher has actually read (and refused) the half-written file.
            seen = watcher.stats.parse_retries
            await wait_until(lambda: watcher.stats.parse_retries > seen, "the watcher never read the file")

        await vscode_in_place_save(path, chapter_data("code"), until_watcher_read_it)
        await recorder.wait_count(1)
        await settled(watcher)
        assert_changed_once(recorder, path, chapter_data("code"))
        assert watcher.stats.parse_retries >= 2  # the empty file, then the half file


@pytest.mark.slow  # five watchers started in turn
async def test_an_edit_right_after_start_is_noticed(tmp_path: Path) -> None:
    for trial in range(5):
        root = tmp_path / f"ws{trial}"
        root.mkdir()
        (root / "ch.json").write_bytes(chapter_data("v0"))
        # No reconcile scan to fall back on: the notification itself must arrive.
        async with new_watcher(Workspace(root), reconcile_every=600) as watcher:
            (root / "ch.json").write_bytes(chapter_data("v1"))
            recorder = EventRecorder(watcher)
            await recorder.wait_count(1)
            await settled(watcher)
            assert_changed_once(recorder, root / "ch.json", chapter_data("v1"))
            assert watcher.stats.notify_batches >= 1


async def test_delete_and_recreate_is_a_change_not_a_deletion(running: tuple[ChapterWatcher, EventRecorder]) -> None:
    watcher, recorder = running
    path = watcher.root / "ch.json"
    await git_checkout(path, chapter_data("git"))
    await recorder.wait_count(1)
    await settled(watcher)  # a deletion grace period started meanwhile has run out too
    assert_changed_once(recorder, path, chapter_data("git"))


async def test_delete_and_recreate_identical_content_is_nothing(running: tuple[ChapterWatcher, EventRecorder]) -> None:
    watcher, recorder = running
    path = watcher.root / "ch.json"
    await git_checkout(path, chapter_data("v0"), gap=0.25)  # longer than settle: the absence is seen
    await wait_until(lambda: watcher.stats.unchanged >= 1, "the recreated file was never read")
    await settled(watcher)  # the deletion grace period has run out
    assert recorder.events == []


@pytest.mark.slow
async def test_deletion_is_reported_once_after_the_grace_period(running: tuple[ChapterWatcher, EventRecorder]) -> None:
    watcher, recorder = running
    path = watcher.root / "ch.json"
    path.unlink()
    await recorder.wait_count(1)
    await settled(watcher)
    assert recorder.describe() == ["chapter_deleted:ch.json"]
    assert isinstance(recorder.events[0], ChapterDeleted)
    path.write_bytes(chapter_data("v0"))  # back again after the deletion was final: a new file
    await recorder.wait_count(2)
    await settled(watcher)
    assert recorder.kinds() == ["chapter_deleted", "chapter_changed"]


async def test_rsync_replace_with_older_mtime_is_reloaded_once(running: tuple[ChapterWatcher, EventRecorder]) -> None:
    watcher, recorder = running
    path = watcher.root / "ch.json"
    old_mtime = path.stat().st_mtime_ns - 86_400 * 10**9
    rsync_replace(path, chapter_data("rsync"), old_mtime)
    await recorder.wait_count(1)
    await settled(watcher)
    assert_changed_once(recorder, path, chapter_data("rsync"))


# -- when notifications are missed: the reconcile scan ---------------------------------------------------------


async def test_reconcile_scan_catches_what_notify_missed(workspace: Workspace) -> None:
    same_second = workspace.root / "same.json"
    synced = workspace.root / "synced.json"
    same_second.write_bytes(chapter_data("AAAA"))
    synced.write_bytes(chapter_data("s0"))
    async with new_watcher(workspace, watch_factory=deaf_watch) as watcher:
        recorder = EventRecorder(watcher)
        before = same_second.stat()
        # Same size, same mtime put back: only the inode's ctime tells the content changed.
        new_same = chapter_data("BBBB")
        assert len(new_same) == before.st_size
        with open(same_second, "r+b") as out:
            out.write(new_same)
        os.utime(same_second, ns=(before.st_atime_ns, before.st_mtime_ns))
        rsync_replace(synced, chapter_data("s1"), synced.stat().st_mtime_ns - 3_600 * 10**9)
        await recorder.wait_count(2)
        await settled(watcher)
        assert sorted(recorder.describe()) == ["chapter_changed:same.json", "chapter_changed:synced.json"]
        by_name = {e.path.name: e for e in recorder.events}
        assert isinstance(by_name["same.json"], ChapterChanged)
        assert by_name["same.json"].chapter == make_chapter("BBBB")
        assert watcher.stats.notify_batches == 0 and watcher.stats.reconcile_hits >= 2


# -- our own writes ------------------------------------------------------------------------------------------------


@pytest.mark.slow  # two hundred durable commits
async def test_two_hundred_own_commits_cause_no_reload(running: tuple[ChapterWatcher, EventRecorder]) -> None:
    watcher, recorder = running
    store = ChapterStore(watcher.root / "ch.json", watcher.workspace)
    for i in range(200):
        # In a thread, as the engine commits: the watcher keeps running between and during commits.
        digest = content_digest(await asyncio.to_thread(commit_translation, store, i))
        if i % 25 == 24:  # between bursts, the watcher reads our latest write
            await wait_until(lambda last=digest: watcher.known_digest(store.path) == last, f"commit {i} was never read")
    await settled(watcher)
    assert recorder.events == []
    assert watcher.stats.parses == 0
    assert watcher.stats.own_writes >= 1  # it did read our writes, and recognised them
    assert watcher.known_digest(store.path) == content_digest(store.path.read_bytes())
    assert len(store.load().paragraphs[0].translations) == 5  # the commits really happened


@pytest.mark.slow  # ten trials, each waiting for its event
async def test_outside_edit_just_after_an_own_commit_is_detected(running: tuple[ChapterWatcher, EventRecorder]) -> None:
    watcher, recorder = running
    store = ChapterStore(watcher.root / "ch.json", watcher.workspace)
    path = store.path
    delays = [0.0, 0.005, 0.01, 0.02, 0.035, 0.05, 0.065, 0.08, 0.09, 0.1]
    expected: list[str] = []
    for trial, delay in enumerate(delays):
        await asyncio.to_thread(commit_translation, store, trial)
        await asyncio.sleep(delay)
        outside = chapter_data(f"outside{trial}")
        if trial % 2:
            path.write_bytes(outside)  # in place
        else:
            rsync_replace(path, outside, path.stat().st_mtime_ns)  # by rename, same mtime as ours
        expected.append(content_digest(outside))
        await recorder.wait_count(trial + 1)
    await settled(watcher)
    assert recorder.kinds() == ["chapter_changed"] * len(delays)
    assert [e.digest for e in recorder.events if isinstance(e, ChapterChanged)] == expected


async def test_restoring_an_earlier_own_write_is_an_outside_change(
    running: tuple[ChapterWatcher, EventRecorder],
) -> None:
    watcher, recorder = running
    store = ChapterStore(watcher.root / "ch.json", watcher.workspace)
    path = store.path
    first = await asyncio.to_thread(commit_chapter, store, make_chapter("own-first"))
    await wait_until(lambda: watcher.known_digest(path) == content_digest(first), "first commit never seen")
    second = await asyncio.to_thread(commit_chapter, store, make_chapter("own-second"))
    assert second != first
    await wait_until(lambda: watcher.known_digest(path) == content_digest(second), "second commit never seen")
    assert recorder.events == []
    path.write_bytes(first)  # `git checkout ch.json`: bytes we once wrote, but not by us this time
    await recorder.wait_count(1)
    await settled(watcher)
    assert_changed_once(recorder, path, first)


# -- invalid files -------------------------------------------------------------------------------------------------


@pytest.mark.slow
async def test_invalid_file_is_reported_once_then_its_fix_is_a_change(
    running: tuple[ChapterWatcher, EventRecorder],
) -> None:
    watcher, recorder = running
    path = watcher.root / "ch.json"
    path.write_bytes(b'{"format": "proofdesk.chapter/1", "id": "ch01", "paragraphs": [}')
    await recorder.wait_count(1)
    await settled(watcher)  # reconcile scans and retries must not report it again
    assert recorder.kinds() == ["chapter_invalid"]
    invalid = recorder.events[0]
    assert isinstance(invalid, ChapterInvalid)
    assert invalid.error.line.startswith(str(path)) and "\n" not in invalid.error.line
    assert path.read_bytes().endswith(b"[}")  # never written over
    path.write_bytes(chapter_data("fixed"))
    await recorder.wait_count(2)
    await settled(watcher)
    assert recorder.kinds() == ["chapter_invalid", "chapter_changed"]
    assert isinstance(recorder.events[1], ChapterChanged)
    assert recorder.events[1].chapter == make_chapter("fixed")


@pytest.mark.slow
async def test_back_to_the_last_good_content_after_invalid_is_reported(
    running: tuple[ChapterWatcher, EventRecorder],
) -> None:
    watcher, recorder = running
    path = watcher.root / "ch.json"
    path.write_bytes(b"not json")
    await recorder.wait_count(1)
    path.write_bytes(chapter_data("v0"))  # the person undid the damage: consumers must hear it is fine again
    await recorder.wait_count(2)
    await settled(watcher)
    assert recorder.kinds() == ["chapter_invalid", "chapter_changed"]


# -- things that are not chapters --------------------------------------------------------------------------------


async def test_non_chapter_churn_causes_no_reads_and_no_events(running: tuple[ChapterWatcher, EventRecorder]) -> None:
    watcher, recorder = running
    root = watcher.root
    state = root / ".proofdesk" / "locks"
    state.mkdir(parents=True)
    (root / "sub").mkdir()
    for round_ in range(5):
        (state / "ch.json.lock").write_text(str(round_))
        (root / ".proofdesk" / "conflicts.json").write_text("{}")
        (root / "notes.txt").write_text(str(round_))
        (root / ".ch.json.swp").write_bytes(b"x" * 64)
        (root / "ch.json~").write_bytes(b"{")
        (root / "4913").write_bytes(b"")
        (root / "4913").unlink()
        (root / ".#ch.json").write_text("user@host")
        (root / ".proofdesk-ch.json.1a2b3c4d.tmp").write_bytes(b"{")
        (root / "sub" / "x.json").write_bytes(b"{")
        await asyncio.sleep(0.05)  # five rounds of churn, as an editor makes them
    # A chapter written last, by rename: its notification comes after every one the churn caused, so once it is
    # reported the churn's notifications have all been delivered (or filtered out) too.
    marker = root / "zz-marker.json"
    rsync_replace(marker, chapter_data("marker"), 0)
    await recorder.wait_count(1)
    await wait_until(lambda: watcher.stats.notify_batches >= 1, "the marker's notification never came")
    await settled(watcher)
    assert recorder.describe() == ["chapter_changed:zz-marker.json"]
    assert watcher.stats.notify_batches == 1  # the marker's: the churn gave none
    assert watcher.stats.parses == 1  # the marker only: nothing of the churn was read as a chapter


# -- resilience ----------------------------------------------------------------------------------------------------


async def test_watcher_restarts_after_the_backend_fails(workspace: Workspace, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="store.watcher")
    path = workspace.root / "ch.json"
    path.write_bytes(chapter_data("v0"))
    backend = FlakyBackend(fail_at_start=1)
    # Reconcile scans are too rare to help here: only a restarted backend can see the second edit.
    async with new_watcher(workspace, reconcile_every=600, restart_backoff=0.05, watch_factory=backend) as watcher:
        recorder = EventRecorder(watcher)
        # A run's inotify watch exists once it has started (awatch sets it up before its first await); checked
        # in the kernel's own list of this process's watches.
        await wait_until(lambda: backend.runs >= 2 and inotify_watched(workspace.root), "the backend was not restarted")
        path.write_bytes(chapter_data("first"))
        await recorder.wait_count(1)
        await wait_until(
            lambda: backend.runs >= 3 and inotify_watched(workspace.root), "the backend was not restarted twice"
        )
        path.write_bytes(chapter_data("second"))
        await recorder.wait_count(2)
        assert [e.chapter for e in recorder.events if isinstance(e, ChapterChanged)] == [
            make_chapter("first"),
            make_chapter("second"),
        ]
        assert watcher.stats.restarts == 2
    messages = [r.getMessage() for r in caplog.records]
    assert any("inotify watch limit reached" in m and "restarting" in m for m in messages)
    assert any("watch thread died" in m and "restarting" in m for m in messages)


async def test_a_replaced_workspace_folder_is_watched_again(workspace: Workspace) -> None:
    root = workspace.root
    (root / "ch.json").write_bytes(chapter_data("v0"))
    async with new_watcher(workspace, reconcile_every=0.2) as watcher:
        recorder = EventRecorder(watcher)
        root.rename(root.with_name("ws-old"))
        root.mkdir()  # a restore from backup, or `git clone` into the same place
        (root / "ch.json").write_bytes(chapter_data("restored"))
        await recorder.wait_count(1)
        assert_changed_once(recorder, root / "ch.json", chapter_data("restored"))

        await wait_until(
            lambda: watcher.stats.rewatches > 0 and inotify_watched(root), "the new folder was never watched"
        )
        batches = watcher.stats.notify_batches
        (root / "ch.json").write_bytes(chapter_data("edited"))
        await recorder.wait_count(2)
        assert watcher.stats.notify_batches > batches  # the new folder's own notifications, not only scans
        assert recorder.events[1].kind == "chapter_changed"
        assert recorder.events[1].chapter == make_chapter("edited")  # type: ignore[union-attr]


def test_stop_leaves_no_thread_and_survives_a_cancelled_consumer(workspace: Workspace) -> None:
    before = set(threading.enumerate())

    async def scenario() -> list[Chapter]:
        path = workspace.root / "ch.json"
        path.write_bytes(chapter_data("v0"))
        watcher = new_watcher(workspace)
        seen: list[Chapter] = []

        async def consume() -> None:
            async for event in watcher.events():
                if isinstance(event, ChapterChanged):
                    seen.append(event.chapter)

        consumer = asyncio.create_task(consume())
        # started: the backend first, then the seed read that makes v0 the known state
        await wait_until(lambda: watcher.known_digest(path) is not None, "the watcher never started")
        path.write_bytes(chapter_data("v1"))
        await wait_until(lambda: bool(seen), "the first edit was never reported")
        consumer.cancel()  # the app drops its reader mid-wait
        with pytest.raises(asyncio.CancelledError):
            await consumer
        path.write_bytes(chapter_data("v2"))  # a new reader still gets what happened meanwhile
        reader = watcher.events()
        event = await asyncio.wait_for(anext(reader), 10)
        assert isinstance(event, ChapterChanged)
        seen.append(event.chapter)
        await watcher.stop()
        with pytest.raises(StopAsyncIteration):
            await anext(reader)
        return seen

    assert asyncio.run(scenario()) == [make_chapter("v1"), make_chapter("v2")]
    for _ in range(200):  # worker threads wind down once their loop is gone
        leftover = set(threading.enumerate()) - before
        if not leftover:
            break
        threading.Event().wait(0.05)
    assert leftover == set()
