"""Helpers for the watcher tests: chapters to write, editor-style writers, our own commits, an event recorder."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path

from store.commit import ChapterStore
from store.merge import BatchItem
from store.model import Chapter, Paragraph
from store.serialize import chapter_bytes
from store.watch_events import WatchEvent
from store.watcher import ChapterWatcher


def make_chapter(tag: str, paragraphs: int = 40) -> Chapter:
    """A chapter whose every paragraph carries ``tag`` (so two tags give different content of similar size)."""
    paras = tuple(
        Paragraph(
            id=f"{i:08x}",
            text=f"段落 {i} — {tag} " + "テキスト" * 20,
            translations=(),
            selected_translation_id=None,
            reviewed=False,
        )
        for i in range(paragraphs)
    )
    return Chapter(id="ch01", title=f"title {tag}", paragraphs=paras)


def chapter_data(tag: str, paragraphs: int = 40) -> bytes:
    """Canonical bytes of :func:`make_chapter`."""
    return chapter_bytes(make_chapter(tag, paragraphs))


def commit_translation(store: ChapterStore, n: int) -> bytes:
    """One real commit of ours through ``ChapterStore`` (a one-item batch); returns the bytes now on disk."""
    chapter = store.load()
    para = chapter.paragraphs[n % len(chapter.paragraphs)]
    store.commit_batch([BatchItem.based_on(para, f"translation {n}")], origin="translation", model="test-model")
    return store.path.read_bytes()


def commit_chapter(store: ChapterStore, chapter: Chapter) -> bytes:
    """Our own commit of a whole chapter (``ChapterStore.update``); returns the bytes now on disk."""
    store.update(lambda _current: chapter)
    return store.path.read_bytes()


# -- editors, scripted -----------------------------------------------------------------------------------


async def vim_swap_rename_save(path: Path, data: bytes) -> None:
    """vim-like: churn the swap file, probe with ``4913``, write a temp beside the file, rename it over."""
    swap = path.with_name(f".{path.name}.swp")
    swap.write_bytes(b"swap" * 100)
    probe = path.with_name("4913")
    probe.write_bytes(b"")
    probe.unlink()
    temp = path.with_name(f"{path.name}~new")
    with open(temp, "wb") as out:
        out.write(data[: len(data) // 2])
        out.flush()
        await asyncio.sleep(0.05)
        out.write(data[len(data) // 2 :])
    os.rename(temp, path)
    swap.write_bytes(b"swap2" * 100)
    swap.unlink()


async def vim_backup_rename_save(path: Path, data: bytes, pause: float) -> None:
    """vim with ``backupcopy=no``: rename the file to ``x~``, write a fresh file in two parts, delete ``x~``."""
    backup = path.with_name(f"{path.name}~")
    os.rename(path, backup)
    with open(path, "wb") as out:
        out.write(data[: len(data) // 3])
        out.flush()
        await asyncio.sleep(pause)
        out.write(data[len(data) // 3 :])
    backup.unlink()


async def vscode_in_place_save(path: Path, data: bytes, between: Callable[[], Awaitable[None]]) -> None:
    """VS Code-like: truncate the file in place, wait for ``between``, write half, wait again, write the rest."""
    with open(path, "r+b") as out:
        out.truncate(0)
        out.flush()
        await between()
        out.write(data[: len(data) // 2])
        out.flush()
        await between()
        out.write(data[len(data) // 2 :])


async def git_checkout(path: Path, data: bytes, gap: float = 0.05) -> None:
    """git-like: delete the file, then create it again with new content."""
    path.unlink()
    await asyncio.sleep(gap)
    path.write_bytes(data)


def rsync_replace(path: Path, data: bytes, mtime_ns: int) -> None:
    """rsync-like: write ``.name.XXXXXX`` beside the file, give it an older mtime, rename it over."""
    temp = path.with_name(f".{path.name}.{secrets.token_hex(3)}")
    temp.write_bytes(data)
    os.utime(temp, ns=(mtime_ns, mtime_ns))
    os.replace(temp, path)


def inotify_watched(folder: Path) -> bool:
    """Whether an inotify watch of this process is on ``folder`` now (Linux: ``/proc/self/fdinfo``)."""
    inode = f"ino:{folder.stat().st_ino:x} "
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") != "anon_inode:inotify":
                continue
            with open(f"/proc/self/fdinfo/{fd}", encoding="ascii") as info:
                if any(line.startswith("inotify ") and inode in line for line in info):
                    return True
        except OSError:  # closed meanwhile
            continue
    return False


async def settled(watcher: ChapterWatcher, timeout: float = 15.0) -> None:
    """Wait until the watcher can report nothing more about the files as they are on disk now, so that "reported
    once" and "nothing reported" are checked after it had every chance to report more.

    Settled: no path waits to be read (settle delay, parse retry, deletion grace), no event waits for its reader,
    and a reconcile scan run here finds every chapter exactly as last read — a file whose inode, size, mtime or
    ctime differ, a read still going on included, is poked and waited for again. After that only a new change on
    disk can give an event; a late notification of an old one re-reads the same bytes.
    """

    def busy() -> bool:
        return not watcher.idle()

    async def until() -> None:
        while busy() or await watcher.reconcile() or busy():
            await asyncio.sleep(0.01)

    try:
        await asyncio.wait_for(until(), timeout)
    except TimeoutError:
        raise AssertionError(f"the watcher did not settle: pending {[p.name for p in watcher.pending()]}") from None


async def wait_until(condition: Callable[[], bool], failure: str, timeout: float = 10.0) -> None:
    """Poll ``condition`` until it holds; fail with ``failure`` if it does not within ``timeout`` seconds."""

    async def until() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    try:
        await asyncio.wait_for(until(), timeout)
    except TimeoutError:
        raise AssertionError(failure) from None


# -- recording events -----------------------------------------------------------------------------------


class EventRecorder:
    """Consumes a watcher's events in a task; tests wait for conditions on the recorded list."""

    def __init__(self, watcher: ChapterWatcher) -> None:
        self.watcher = watcher
        self.events: list[WatchEvent] = []
        self._arrived = asyncio.Event()
        self.task = asyncio.create_task(self._consume())

    async def _consume(self) -> None:
        async for event in self.watcher.events():
            self.events.append(event)
            self._arrived.set()

    async def wait_for(self, condition: Callable[[list[WatchEvent]], bool], timeout: float = 15.0) -> None:
        """Wait until ``condition(events)`` holds; fail with the events seen so far if it never does."""

        async def until() -> None:
            while not condition(self.events):
                self._arrived.clear()
                await self._arrived.wait()

        try:
            await asyncio.wait_for(until(), timeout)
        except TimeoutError:
            raise AssertionError(f"condition not met; events so far: {self.describe()}") from None

    async def wait_count(self, n: int, timeout: float = 15.0) -> None:
        """Wait until at least ``n`` events were recorded."""
        await self.wait_for(lambda events: len(events) >= n, timeout)

    def describe(self) -> list[str]:
        """Kinds and file names of the recorded events, for failure messages."""
        return [f"{e.kind}:{e.path.name}" for e in self.events]

    def kinds(self) -> list[str]:
        """The recorded events' kinds, in order."""
        return [e.kind for e in self.events]
