"""atomic_write: the new bytes or the old ones, never a mix; compare-and-swap; our temps only."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from store.atomic import (
    RACY_WINDOW_NS,
    CommitError,
    ConcurrentChange,
    FileState,
    SymlinkRefused,
    atomic_write,
    clean_stale_temps,
    file_state,
    temp_prefix,
    temp_target,
)
from store.workspace import TEMP_PREFIX, TEMP_SUFFIX, content_digest, is_chapter_name


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A clean folder (tmp_path also holds the suite's isolated home)."""
    path = tmp_path / "ws"
    path.mkdir()
    return path


def listing(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


def test_new_file_is_written_with_its_digest(folder: Path) -> None:
    target = folder / "ch.json"
    state = atomic_write(target, b"hello\n", expect=None)
    assert target.read_bytes() == b"hello\n"
    assert state.digest == content_digest(b"hello\n")
    assert state.same_stat(os.stat(target))
    assert listing(folder) == ["ch.json"]


def test_replace_keeps_nothing_but_the_new_file(folder: Path) -> None:
    target = folder / "ch.json"
    first = atomic_write(target, b"one", expect=None)
    second = atomic_write(target, b"two", expect=first)
    assert target.read_bytes() == b"two"
    assert second.ino != first.ino  # a new inode: readers holding the old file keep the old bytes
    assert listing(folder) == ["ch.json"]


def test_cas_refuses_when_the_file_changed_since_it_was_read(folder: Path) -> None:
    target = folder / "ch.json"
    seen = atomic_write(target, b"ours", expect=None)
    other = folder / "editor.tmp"
    other.write_bytes(b"theirs, saved by an editor")
    os.replace(other, target)
    with pytest.raises(ConcurrentChange):
        atomic_write(target, b"merged onto ours", expect=seen)
    assert target.read_bytes() == b"theirs, saved by an editor"
    assert listing(folder) == ["ch.json"]


def test_cas_refuses_when_the_file_was_deleted(folder: Path) -> None:
    target = folder / "ch.json"
    seen = atomic_write(target, b"ours", expect=None)
    target.unlink()
    with pytest.raises(ConcurrentChange):
        atomic_write(target, b"new", expect=seen)
    assert listing(folder) == []


def test_cas_accepts_a_touch_with_identical_content(folder: Path) -> None:
    target = folder / "ch.json"
    seen = atomic_write(target, b"same bytes", expect=None)
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))  # stat differs, content does not
    atomic_write(target, b"next", expect=seen)
    assert target.read_bytes() == b"next"


def test_cas_detects_a_same_size_in_place_rewrite_with_an_unchanged_stat(folder: Path) -> None:
    """The racy case: a rewrite the stat cannot show (same inode, size, and timestamps restored)."""
    target = folder / "ch.json"
    seen = atomic_write(target, b"AAAA", expect=None)
    st = os.stat(target)
    with open(target, "r+b") as f:
        f.write(b"BBBB")
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    # ctime moved on; pretend it did not, as on a kernel with a coarse clock tick.
    racy = FileState(
        seen.ino,
        seen.size,
        seen.mtime_ns,
        os.stat(target).st_ctime_ns,
        seen.digest,
        seen_ns=os.stat(target).st_ctime_ns + RACY_WINDOW_NS // 2,
    )
    assert racy.racy
    with pytest.raises(ConcurrentChange):
        atomic_write(target, b"CCCC", expect=racy)
    with pytest.raises(ConcurrentChange):
        atomic_write(target, b"CCCC", expect=racy, expect_content=b"AAAA")
    assert target.read_bytes() == b"BBBB"


def test_a_stat_seen_long_after_the_write_is_trusted() -> None:
    state = FileState(1, 2, 3, ctime_ns=10**18, seen_ns=10**18 + 2 * RACY_WINDOW_NS)
    assert not state.racy
    assert FileState(1, 2, 3, ctime_ns=10**18, seen_ns=10**18 + 1000).racy


def test_symlinked_target_is_refused_and_left_alone(folder: Path) -> None:
    real = folder / "real.json"
    real.write_bytes(b"real")
    link = folder / "ch.json"
    link.symlink_to(real)
    with pytest.raises(SymlinkRefused) as info:
        atomic_write(link, b"new", expect=None)
    assert "symbolic link" in str(info.value)
    assert link.is_symlink() and real.read_bytes() == b"real"
    assert listing(folder) == ["ch.json", "real.json"]


def test_a_folder_in_the_way_is_a_clear_error(folder: Path) -> None:
    (folder / "ch.json").mkdir()
    with pytest.raises(CommitError) as info:
        atomic_write(folder / "ch.json", b"x", expect=None)
    assert "ch.json" in str(info.value) and "not a regular file" in str(info.value)


def test_missing_folder_is_a_one_line_commit_error(folder: Path) -> None:
    with pytest.raises(CommitError) as info:
        atomic_write(folder / "nowhere" / "ch.json", b"x", expect=None)
    message = str(info.value)
    assert "\n" not in message
    assert message == "could not create a temp file for ch.json: No such file or directory"


def test_before_replace_sees_the_digest_before_the_file_changes(folder: Path) -> None:
    target = folder / "ch.json"
    atomic_write(target, b"old", expect=None)
    seen: list[tuple[str, bytes]] = []
    data = os.urandom(3 << 20)
    state = atomic_write(target, data, expect=None, before_replace=lambda d: seen.append((d, target.read_bytes())))
    assert seen == [(content_digest(data), b"old")]
    assert state.digest == content_digest(data)


def test_temp_names_are_ours_and_never_chapters() -> None:
    name = f"{temp_prefix('ch01.json')}k2j4h5g6{TEMP_SUFFIX}"
    assert name.startswith(TEMP_PREFIX)
    assert temp_target(name) == "ch01.json"
    assert not is_chapter_name(name)
    assert temp_target("ch01.json") is None
    assert temp_target(".proofdesk-.tmp") is None
    assert temp_target(".other-ch01.json.abc.tmp") is None


def test_clean_stale_temps_removes_only_our_temps(folder: Path) -> None:
    ours = [
        folder / f"{temp_prefix('a.json')}x1y2z3{TEMP_SUFFIX}",
        folder / f"{temp_prefix('b.json')}q9w8e7{TEMP_SUFFIX}",
    ]
    theirs = [folder / "a.json", folder / ".a.json.swp", folder / "notes.tmp", folder / ".hidden.tmp"]
    for p in ours + theirs:
        p.write_bytes(b"x")
    assert sorted(clean_stale_temps(folder, target="a.json")) == [ours[0]]
    assert sorted(clean_stale_temps(folder)) == [ours[1]]
    assert all(p.exists() for p in theirs)


def test_clean_stale_temps_spares_temps_newer_than_the_cutoff(folder: Path) -> None:
    old = folder / f"{temp_prefix('a.json')}old000{TEMP_SUFFIX}"
    new = folder / f"{temp_prefix('a.json')}new000{TEMP_SUFFIX}"
    old.write_bytes(b"x")
    new.write_bytes(b"x")
    os.utime(old, (1000, 1000))
    assert clean_stale_temps(folder, older_than=2000) == [old]
    assert new.exists()


def test_file_state_of_missing_file_is_none(folder: Path) -> None:
    assert file_state(folder / "none.json") is None
    (folder / "a.json").write_bytes(b"abc")
    state = file_state(folder / "a.json", with_digest=True)
    assert state is not None and state.digest == content_digest(b"abc") and state.size == 3
