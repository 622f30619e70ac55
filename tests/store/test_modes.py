"""Permissions survive commits: the chapter keeps its exact mode under any umask; new files honour umask."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from store.atomic import atomic_write, current_umask
from store.commit import ChapterStore
from store.merge import BatchItem
from tests.bench.chapters import write_chapter


@pytest.fixture(params=[0o022, 0o077], ids=["umask022", "umask077"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def commit_once(path: Path) -> None:
    store = ChapterStore(path)
    chapter = store.load()
    para = next(p for p in chapter.paragraphs if not p.is_empty)
    store.commit_batch([BatchItem.based_on(para, f"new text {os.urandom(4).hex()}")], origin="polish", model="m")


def test_umask_is_read_without_changing_it(umask: int) -> None:
    assert current_umask() == umask
    assert current_umask() == umask


@pytest.mark.parametrize("mode", [0o644, 0o600, 0o664], ids=["0644", "0600", "0664"])
def test_commit_keeps_the_chapter_mode_exactly(folder: Path, umask: int, mode: int) -> None:
    path = folder / "ch01.json"
    write_chapter(path, 6)
    os.chmod(path, mode)
    commit_once(path)
    commit_once(path)
    assert mode_of(path) == mode


def test_new_files_get_0666_minus_umask(folder: Path, umask: int) -> None:
    path = folder / "new.json"
    atomic_write(path, b"{}\n", expect=None)
    assert mode_of(path) == 0o666 & ~umask


def test_group_of_a_shared_chapter_is_kept_when_we_may(folder: Path) -> None:
    path = folder / "ch01.json"
    write_chapter(path, 6)
    groups = [g for g in os.getgroups() if g != os.getegid()]
    target = groups[0] if groups else (12345 if os.geteuid() == 0 else None)
    if target is None:
        pytest.skip("no second group to give the chapter to")
    os.chown(path, -1, target)
    commit_once(path)
    assert os.stat(path).st_gid == target
