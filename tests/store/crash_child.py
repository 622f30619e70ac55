"""Crash harness: a child commits batches in a loop; the parent SIGKILLs it at random moments.

Run as a script this is the child side:

* ``zygote CHAPTER ACKS MODE KEEP`` imports everything once, then for each ``go G START`` line on stdin forks a
  worker (so a kill cycle costs a fork, not an interpreter start), prints ``pid N``, waits for it and prints
  ``exit STATUS``. ``MODE`` is ``store`` (ChapterStore) or ``naive`` (``open(path, "w")`` + ``json.dump``).
* ``writer CHAPTER NAME COUNT`` commits COUNT single-item batches labelled NAME then exits (two-writer test).

A worker appends ``open G TEMPS`` to ACKS once its ChapterStore is open (TEMPS: our temps still in the
folder, which must be 0), then ``ack G N`` after each commit returns. :func:`run_harness` is the parent side,
shared by the test suite and the benchmark.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import select
import signal
import subprocess
import sys
import time
import traceback
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

if __name__ == "__main__":  # run as a script from anywhere: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from store.atomic import temp_target
from store.commit import ChapterStore
from store.errors import ChapterLoadError
from store.loader import load_chapter
from store.merge import BatchItem
from store.model import Chapter, append_version
from tests.store.documents import chapter_document

BATCH = 10


def label(generation: int, n: int, j: int) -> str:
    """The text a worker writes: unique per generation, batch and item."""
    return f"g{generation} b{n} i{j}"


def parse_label(text: str) -> tuple[int, int, int] | None:
    """(generation, batch, item) of a text written by :func:`label`, or None."""
    parts = text.split(" ")
    if len(parts) != 3 or parts[0][:1] != "g" or parts[1][:1] != "b" or parts[2][:1] != "i":
        return None
    try:
        return int(parts[0][1:]), int(parts[1][1:]), int(parts[2][1:])
    except ValueError:
        return None


def batch_targets(ids: list[str], n: int) -> list[str]:
    """The paragraphs batch ``n`` writes: a window rotating through the non-empty paragraphs."""
    return [ids[(n * BATCH + j) % len(ids)] for j in range(min(BATCH, len(ids)))]


def work_ids(chapter: Chapter) -> list[str]:
    """The paragraphs the workers write to (the non-empty ones)."""
    return [p.id for p in chapter.paragraphs if not p.is_empty]


def our_temps(folder: Path) -> list[str]:
    """Names of our temp files in ``folder``."""
    return [n for n in os.listdir(folder) if temp_target(n) is not None]


# -- child side ------------------------------------------------------------------------------------------


def _worker(chapter_path: Path, acks: int, mode: str, generation: int, start: int, keep: int) -> None:
    if mode == "store":
        store = ChapterStore(chapter_path, keep_versions=keep)  # first open in this process: cleans stale temps
        os.write(acks, f"open {generation} {len(our_temps(chapter_path.parent))}\n".encode())
        chapter = store.load()
    else:
        os.write(acks, f"open {generation} 0\n".encode())
        chapter = load_chapter(chapter_path)
    ids = work_ids(chapter)
    n = start
    while True:
        targets = batch_targets(ids, n)
        if mode == "store":
            items = [
                BatchItem.based_on(chapter.paragraph(pid), label(generation, n, j))  # type: ignore[arg-type]
                for j, pid in enumerate(targets)
            ]
            chapter = store.commit_batch(items, origin="translation", model="crash-harness").chapter
        else:
            replacements = {}
            for j, pid in enumerate(targets):
                pos = chapter.positions[pid]
                replacements[pos], _ = append_version(
                    chapter.paragraphs[pos], label(generation, n, j), origin="translation", model="naive"
                )
            chapter = chapter.with_paragraphs(replacements)
            with open(chapter_path, "w", encoding="utf-8") as f:  # the naive writer the harness must catch
                json.dump(chapter_document(chapter), f, indent=2, ensure_ascii=False)
                f.write("\n")
        os.write(acks, f"ack {generation} {n}\n".encode())
        n += 1


def _zygote(chapter_path: Path, ack_path: Path, mode: str, keep: int) -> None:
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            return
        generation, start = int(words[1]), int(words[2])
        pid = os.fork()
        if pid == 0:
            acks = os.open(ack_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                _worker(chapter_path, acks, mode, generation, start, keep)
            except BaseException:
                os.write(acks, ("error " + traceback.format_exc().replace("\n", " | ") + "\n").encode())
                os._exit(1)
            os._exit(0)
        print(f"pid {pid}", flush=True)
        _, status = os.waitpid(pid, 0)
        print(f"exit {status}", flush=True)


def _writer(chapter_path: Path, name: str, count: int) -> None:
    store = ChapterStore(chapter_path, keep_versions=0)
    for n in range(count):
        chapter = store.load()
        ids = work_ids(chapter)
        pid = ids[(n * 7 + len(name)) % len(ids)]
        store.commit_batch(
            [BatchItem.based_on(chapter.paragraph(pid), f"{name} {n}")],  # type: ignore[arg-type]
            origin="translation",
            model=name,
        )


# -- parent side -----------------------------------------------------------------------------------------


@dataclass
class HarnessReport:
    """What a harness run saw."""

    kills: int = 0
    torn: int = 0
    lost: list[str] = field(default_factory=list)
    stale_temps_after_start: int = 0
    temps_left_by_kills: int = 0
    acked: int = 0
    committed_unacked: int = 0
    errors: list[str] = field(default_factory=list)
    unacked_seen: set[tuple[int, int]] = field(default_factory=set)


def _read_acks(ack_path: Path) -> list[list[str]]:
    try:
        text = ack_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return [line.split(" ", 2) for line in text.splitlines() if line]


def _check(
    chapter: Chapter,
    acked: list[tuple[int, int]],
    ids: list[str],
    report: HarnessReport,
    keep_versions: int,
    generation: int,
) -> None:
    """Every acknowledged batch still on disk (unless the version cap pruned it); at most one new
    unacknowledged batch, from the worker just killed."""
    acked_set = set(acked)
    unacked: set[tuple[int, int]] = set()
    texts: dict[str, set[str]] = {}
    for para in chapter.paragraphs:
        texts[para.id] = {t.text for t in para.translations}
        for version in para.translations:
            parsed = parse_label(version.text)
            if parsed is not None and parsed[:2] not in acked_set:
                unacked.add(parsed[:2])
    # A kill between a commit returning and its acknowledgement leaves one committed, unacknowledged batch.
    new = unacked - report.unacked_seen
    report.unacked_seen |= new
    report.committed_unacked += len(new)
    if len(new) > 1 or any(g != generation for g, _ in new):
        report.errors.append(f"unexpected unacknowledged batches on disk after worker {generation}: {sorted(new)}")
    # Replay every committed batch in commit order ((generation, n) grows monotonically) per paragraph:
    # the cap keeps the newest ``keep_versions`` (the newest is selected), so those acknowledged among
    # them must all be on disk.
    per_paragraph: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    for g, n in sorted(acked_set | report.unacked_seen):
        for j, pid in enumerate(batch_targets(ids, n)):
            per_paragraph[pid].append((label(g, n, j), (g, n) in acked_set))
    for pid, history in per_paragraph.items():
        window = history[-keep_versions:] if keep_versions else history
        report.lost.extend(
            f"{pid}: {text}" for text, was_acked in window if was_acked and text not in texts.get(pid, set())
        )


def run_harness(
    chapter_path: Path,
    *,
    kills: int,
    mode: str = "store",
    seed: int = 0,
    max_delay: float = 0.08,
    keep_versions: int = 20,
) -> HarnessReport:
    """SIGKILL a committing child ``kills`` times; check the file after each kill (see HarnessReport)."""
    rng = random.Random(seed)
    folder = chapter_path.parent
    ack_path = folder.parent / f"{chapter_path.name}.acks"
    good = chapter_path.read_bytes()
    ids = work_ids(load_chapter(chapter_path))
    report = HarnessReport()
    acked: list[tuple[int, int]] = []
    opened: set[int] = set()
    next_n = 0
    zygote = subprocess.Popen(
        [sys.executable, __file__, "zygote", str(chapter_path), str(ack_path), mode, str(keep_versions)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert zygote.stdin is not None and zygote.stdout is not None
    try:
        for generation in range(kills):
            report.temps_left_by_kills += len(our_temps(folder))
            zygote.stdin.write(f"go {generation} {next_n}\n")
            zygote.stdin.flush()
            pid = int(zygote.stdout.readline().split()[1])
            time.sleep(rng.uniform(0, max_delay))
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            status_line = zygote.stdout.readline().split()
            status = int(status_line[1])
            report.kills += 1
            for words in _read_acks(ack_path):
                if words[0] == "error":
                    report.errors.append(" ".join(words[1:]))
                elif words[0] == "open" and int(words[1]) not in opened:
                    opened.add(int(words[1]))
                    report.stale_temps_after_start += int(words[2])
                elif words[0] == "ack" and (int(words[1]), int(words[2])) not in acked:
                    acked.append((int(words[1]), int(words[2])))
            if not (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL) and not report.errors:
                report.errors.append(f"worker {generation} ended by itself (status {status})")
            if report.errors:
                break
            try:
                chapter = load_chapter(chapter_path)
            except ChapterLoadError:
                report.torn += 1
                chapter_path.write_bytes(good)  # only the naive writer gets here; let the next worker start
                acked.clear()
                continue
            good = chapter_path.read_bytes()
            if mode == "store":  # the naive writer is only there to show the harness catches torn files
                _check(chapter, acked, ids, report, keep_versions, generation)
            # Skip a number: the killed worker may have committed ``next`` without acknowledging it.
            next_n = (acked[-1][1] + 2) if acked else next_n + 1
            report.lost = sorted(set(report.lost))
    finally:
        if zygote.poll() is None:
            zygote.stdin.write("quit\n")
            zygote.stdin.close()
            if not select.select([zygote.stdout], [], [], 5)[0]:
                zygote.kill()
            zygote.wait(timeout=10)
    report.acked = len(acked)
    return report


def start_writer(chapter_path: Path, name: str, count: int) -> subprocess.Popen[str]:
    """Start a child that commits ``count`` batches to ``chapter_path`` (see ``writer`` above)."""
    return subprocess.Popen(
        [sys.executable, __file__, "writer", str(chapter_path), name, str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


if __name__ == "__main__":
    command, chapter_arg = sys.argv[1], Path(sys.argv[2])
    if command == "zygote":
        _zygote(chapter_arg, Path(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
    elif command == "writer":
        _writer(chapter_arg, sys.argv[3], int(sys.argv[4]))
    else:
        raise SystemExit(f"unknown command {command!r}")
