"""ChapterStore: load cache, commit_batch, update, stale batches and kept selections, conflict records."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

import store.commit as commit_module
from store.atomic import CommitError, SymlinkRefused, temp_prefix
from store.commit import ChapterStore, StaleParagraphError
from store.conflicts import list_conflicts, read_rejected, resolve
from store.errors import ChapterLoadError
from store.lock import ChapterLock, LockTimeout
from store.merge import BatchItem
from store.model import Chapter, append_version
from store.serialize import chapter_bytes
from store.workspace import TEMP_SUFFIX, Workspace, content_digest
from tests.bench.chapters import write_chapter


@pytest.fixture
def path(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    target = folder / "ch01.json"
    write_chapter(target, 12)
    return target


def work(chapter: Chapter, count: int) -> list[str]:
    return [p.id for p in chapter.paragraphs if not p.is_empty][:count]


def items_for(chapter: Chapter, ids: list[str], text: str) -> list[BatchItem]:
    return [BatchItem.based_on(chapter.paragraph(pid), f"{text} {pid}") for pid in ids]  # type: ignore[arg-type]


def external_save(path: Path, chapter: Chapter) -> None:
    """An editor's rename-save: a new file moved over the chapter (no lock taken)."""
    temp = path.with_name("editor-save.part")
    temp.write_bytes(chapter_bytes(chapter))
    os.replace(temp, path)


def person_selects_manual(chapter: Chapter, pid: str, text: str) -> Chapter:
    pos = chapter.positions[pid]
    para, _ = append_version(chapter.paragraphs[pos], text, origin="manual", model=None)
    return chapter.with_paragraphs({pos: para})


# -- load ------------------------------------------------------------------------------------------------


def test_load_is_cached_until_the_file_changes(path: Path) -> None:
    store = ChapterStore(path)
    first = store.load()
    assert store.load() is first
    changed = person_selects_manual(first, work(first, 1)[0], "edited outside")
    external_save(path, changed)
    again = store.load()
    assert again is not first
    assert chapter_bytes(again) == chapter_bytes(changed)


def test_load_reports_an_invalid_file_in_one_line(path: Path) -> None:
    path.write_bytes(b'{"format": "proofdesk.chapter/1", "paragraphs": [')
    with pytest.raises(ChapterLoadError) as info:
        ChapterStore(path).load()
    assert "\n" not in info.value.line and "ch01.json" in info.value.line


def test_a_symlinked_chapter_is_refused(path: Path) -> None:
    link = path.with_name("link.json")
    link.symlink_to(path)
    with pytest.raises(SymlinkRefused):
        ChapterStore(link)


# -- commit_batch ----------------------------------------------------------------------------------------


def test_commit_appends_selects_and_is_durable_on_disk(path: Path) -> None:
    workspace = Workspace(path.parent)
    store = ChapterStore(path, workspace)
    chapter = store.load()
    ids = work(chapter, 3)
    result = store.commit_batch(items_for(chapter, ids, "polished"), origin="polish", model="m1")
    assert result.accepted == tuple(ids) and result.unchanged == () and result.kept_selection == ()
    raw = path.read_bytes()
    assert raw == chapter_bytes(result.chapter)
    assert result.digest == content_digest(raw)
    assert workspace.own_writes.is_own(path, result.digest)
    on_disk = ChapterStore(path).load()
    for pid in ids:
        para = on_disk.paragraph(pid)
        assert para is not None and para.selected_text == f"polished {pid}"
        assert para.translations[-1].origin == "polish" and para.translations[-1].model == "m1"
    assert sorted(os.listdir(path.parent)) == [".proofdesk", "ch01.json"]


def test_a_commit_changes_only_the_bytes_of_the_paragraphs_it_touches(path: Path) -> None:
    store = ChapterStore(path)
    before = store.load()
    pid = work(before, 5)[4]
    old_raw = path.read_bytes()
    store.commit_batch(items_for(before, [pid], "new"), origin="polish", model="m")
    new_raw = path.read_bytes()
    assert new_raw != old_raw
    start = old_raw.index(f'"id": "{pid}"'.encode())
    head = old_raw[:start]
    assert new_raw.startswith(head)
    next_para = before.paragraphs[before.positions[pid] + 1].id
    tail = old_raw[old_raw.index(f'"id": "{next_para}"'.encode()) :]
    assert new_raw.endswith(tail)


def test_unchanged_items_are_not_written(path: Path) -> None:
    store = ChapterStore(path)
    chapter = store.load()
    pid = work(chapter, 1)[0]
    selected = chapter.paragraph(pid).selected_text  # type: ignore[union-attr]
    stat_before = os.stat(path)
    result = store.commit_batch(
        [BatchItem.based_on(chapter.paragraph(pid), selected)],  # type: ignore[arg-type]
        origin="polish",
        model="m",
    )
    assert result.unchanged == (pid,) and result.accepted == ()
    assert os.stat(path).st_ino == stat_before.st_ino and os.stat(path).st_mtime_ns == stat_before.st_mtime_ns
    assert result.digest == content_digest(path.read_bytes())


def test_stale_source_refuses_the_batch_and_keeps_every_text(path: Path) -> None:
    store = ChapterStore(path)
    seen = store.load()
    ids = work(seen, 3)
    changed = seen.with_paragraphs({seen.positions[ids[1]]: seen.paragraph(ids[1]).replace(text="改稿")})  # type: ignore[union-attr]
    external_save(path, changed)
    raw_before = path.read_bytes()
    with pytest.raises(StaleParagraphError) as info:
        store.commit_batch(items_for(seen, ids, "ai"), origin="translation", model="m2")
    error = info.value
    assert path.read_bytes() == raw_before
    assert error.stale_ids == (ids[1],)
    assert ids[1] in str(error) and "\n" not in str(error)
    assert error.conflict_path.parent == store.workspace.conflicts_dir and error.conflict_path.exists()
    records = list_conflicts(store.workspace, path)
    assert [(r.record.kind, r.record.paragraph_id) for r in records] == [("stale_source", ids[1])]
    record = records[0].record
    assert record.base_source == seen.paragraph(ids[1]).text and record.current_source == "改稿"  # type: ignore[union-attr]
    assert record.our_text == f"ai {ids[1]}" and (record.origin, record.model) == ("translation", "m2")
    assert [(r.paragraph_id, r.text) for r in read_rejected(error.conflict_path)] == [(pid, f"ai {pid}") for pid in ids]


def test_a_deleted_paragraph_is_stale(path: Path) -> None:
    store = ChapterStore(path)
    seen = store.load()
    pid = work(seen, 1)[0]
    external_save(path, seen.replace(paragraphs=tuple(p for p in seen.paragraphs if p.id != pid)))
    with pytest.raises(StaleParagraphError) as info:
        store.commit_batch(items_for(seen, [pid], "ai"), origin="translation", model="m")
    assert list_conflicts(store.workspace, path)[0].record.current_source is None
    assert info.value.stale_ids == (pid,)


def test_a_persons_selection_wins_and_is_recorded(path: Path) -> None:
    store = ChapterStore(path)
    seen = store.load()
    ids = work(seen, 2)
    ChapterStore(path).update(lambda ch: person_selects_manual(ch, ids[0], "hand-made"))
    result = store.commit_batch(items_for(seen, ids, "ai"), origin="polish", model="m")
    assert result.accepted == tuple(ids) and result.kept_selection == (ids[0],)
    para = result.chapter.paragraph(ids[0])
    assert para is not None and para.selected_text == "hand-made"
    assert para.translations[-1].text == f"ai {ids[0]}"
    assert result.chapter.paragraph(ids[1]).selected_text == f"ai {ids[1]}"  # type: ignore[union-attr]
    assert result.conflict_path is not None
    [stored] = list_conflicts(store.workspace, path)
    assert stored.record.kind == "selection_kept" and stored.record.their_text == "hand-made"
    assert stored.record.our_version_id == para.translations[-1].id
    done = resolve(stored, "keep_theirs")
    assert done.record.resolved and done.record.resolution == "keep_theirs"
    assert list_conflicts(store.workspace, path) == []
    assert list_conflicts(store.workspace, path, include_resolved=True)[0].record.resolved


def test_a_rename_save_between_read_and_write_is_merged_again(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The compare-and-swap: an editor (who takes no lock) saves while we merge; nothing is lost."""
    store = ChapterStore(path)
    seen = store.load()
    ids = work(seen, 2)
    real_merge = commit_module.merge_batch
    calls: list[int] = []

    def merge_while_someone_saves(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 1:
            external_save(path, person_selects_manual(ChapterStore(path).load(), ids[0], "saved meanwhile"))
        return real_merge(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(commit_module, "merge_batch", merge_while_someone_saves)
    result = store.commit_batch(items_for(seen, ids, "ai"), origin="polish", model="m")
    assert len(calls) == 2
    assert result.kept_selection == (ids[0],)
    on_disk = ChapterStore(path).load()
    assert on_disk.paragraph(ids[0]).selected_text == "saved meanwhile"  # type: ignore[union-attr]
    assert [t.text for t in on_disk.paragraph(ids[0]).translations][-2:] == ["saved meanwhile", f"ai {ids[0]}"]  # type: ignore[union-attr]
    assert on_disk.paragraph(ids[1]).selected_text == f"ai {ids[1]}"  # type: ignore[union-attr]


def test_a_deleted_chapter_is_not_recreated(path: Path) -> None:
    store = ChapterStore(path)
    seen = store.load()
    path.unlink()
    with pytest.raises(CommitError) as info:
        store.commit_batch(items_for(seen, work(seen, 1), "ai"), origin="polish", model="m")
    assert "no longer exists" in str(info.value)
    assert not path.exists()


@pytest.mark.slow
def test_an_invalid_file_on_disk_is_never_written_over(path: Path) -> None:
    store = ChapterStore(path)
    seen = store.load()
    path.write_bytes(b'{"format": "proofdesk.chapter/1", "id": "half-saved')
    with pytest.raises(CommitError) as info:
        store.commit_batch(items_for(seen, work(seen, 1), "ai"), origin="polish", model="m")
    assert "not valid" in str(info.value) and "\n" not in str(info.value)
    assert path.read_bytes() == b'{"format": "proofdesk.chapter/1", "id": "half-saved'


def test_a_text_that_is_not_unicode_is_a_commit_error(path: Path) -> None:
    store = ChapterStore(path)
    seen = store.load()
    before = path.read_bytes()
    with pytest.raises(CommitError, match="not valid Unicode"):
        store.commit_batch(
            [BatchItem.based_on(seen.paragraph(work(seen, 1)[0]), "bad \ud800")],  # type: ignore[arg-type]
            origin="polish",
            model="m",
        )
    assert path.read_bytes() == before
    store.commit_batch(items_for(seen, work(seen, 1), "fine"), origin="polish", model="m")


def test_lock_timeout_is_a_clear_error(path: Path) -> None:
    store = ChapterStore(path, lock_timeout=0.2)
    seen = store.load()
    held = ChapterLock(store.workspace, path)
    held.acquire()
    try:
        with pytest.raises(LockTimeout) as info:
            store.commit_batch(items_for(seen, work(seen, 1), "ai"), origin="polish", model="m")
    finally:
        held.release()
    assert "ch01.json" in str(info.value) and "0.2 s" in str(info.value)


# -- update ----------------------------------------------------------------------------------------------


def test_update_is_a_locked_read_modify_write(path: Path) -> None:
    store = ChapterStore(path)
    pid = work(store.load(), 1)[0]

    def mark_reviewed(ch: Chapter) -> Chapter:
        pos = ch.positions[pid]
        return ch.with_paragraphs({pos: ch.paragraphs[pos].replace(reviewed=True)})

    new = store.update(mark_reviewed)
    assert new.paragraph(pid).reviewed  # type: ignore[union-attr]
    assert ChapterStore(path).load().paragraph(pid).reviewed  # type: ignore[union-attr]
    ino = os.stat(path).st_ino
    assert store.update(lambda ch: ch) is not None
    assert store.update(mark_reviewed).paragraph(pid).reviewed  # type: ignore[union-attr]
    assert os.stat(path).st_ino == ino  # nothing to change: nothing written


def test_update_waits_for_the_lock(path: Path) -> None:
    store = ChapterStore(path)
    held = ChapterLock(store.workspace, path)
    held.acquire()
    done = threading.Event()

    def edit() -> None:
        store.update(lambda ch: ch.replace(title="new title"))
        done.set()

    worker = threading.Thread(target=edit)
    worker.start()
    assert not done.wait(0.2)  # blocked behind the lock
    held.release()
    worker.join(5)
    assert done.is_set() and ChapterStore(path).load().title == "new title"


# -- start-up --------------------------------------------------------------------------------------------


def test_stale_temps_are_removed_on_first_open_unless_their_chapter_is_locked(tmp_path: Path) -> None:
    folder = tmp_path / "fresh"
    folder.mkdir()
    write_chapter(folder / "a.json", 3)
    write_chapter(folder / "b.json", 3)
    stale_a = folder / f"{temp_prefix('a.json')}dead01{TEMP_SUFFIX}"
    live_b = folder / f"{temp_prefix('b.json')}live01{TEMP_SUFFIX}"
    other = folder / ".a.json.swp"
    for p in (stale_a, live_b, other):
        p.write_bytes(b"{")
    workspace = Workspace(folder)
    writing_b = ChapterLock(workspace, folder / "b.json")
    writing_b.acquire()
    try:
        ChapterStore(folder / "a.json", workspace)
    finally:
        writing_b.release()
    assert not stale_a.exists()
    assert live_b.exists() and other.exists()


# -- conflict records ------------------------------------------------------------------------------------


def test_conflict_listing_is_per_chapter_and_skips_unreadable_files(path: Path) -> None:
    other = path.with_name("ch02.json")
    write_chapter(other, 6)
    for target in (path, other):
        store = ChapterStore(target)
        seen = store.load()
        pid = work(seen, 1)[0]
        ChapterStore(target).update(
            lambda ch, pid=pid: ch.with_paragraphs(
                {ch.positions[pid]: ch.paragraphs[ch.positions[pid]].replace(text="rewritten")}
            )
        )
        with pytest.raises(StaleParagraphError):
            store.commit_batch(items_for(seen, [pid], "ai"), origin="translation", model="m")
    workspace = Workspace(path.parent)
    (workspace.conflicts_dir / "ch01.json.20990101T000000.000000Z.ffffff.json").write_bytes(b"{broken")
    mine = list_conflicts(workspace, path)
    theirs = list_conflicts(workspace, other)
    assert [c.record.chapter_file for c in mine] == ["ch01.json"]
    assert [c.record.chapter_file for c in theirs] == ["ch02.json"]
    assert mine[0].path != theirs[0].path


def test_resolving_a_vanished_record_is_an_error(path: Path) -> None:
    store = ChapterStore(path)
    seen = store.load()
    pid = work(seen, 1)[0]
    ChapterStore(path).update(
        lambda ch: ch.with_paragraphs({ch.positions[pid]: ch.paragraphs[ch.positions[pid]].replace(text="rewritten")})
    )
    with pytest.raises(StaleParagraphError) as info:
        store.commit_batch(items_for(seen, [pid], "ai"), origin="translation", model="m")
    [stored] = list_conflicts(store.workspace, path)
    info.value.conflict_path.unlink()
    with pytest.raises(FileNotFoundError):
        resolve(stored, "dismissed")
