"""Watcher benchmark: CPU an idle workspace of many chapters costs, with the real watchfiles backend.

Run: ``.venv/bin/python tests/bench/bench_watch_idle.py`` (``--chapters 5000 --seconds 20``). It writes
``--chapters`` small chapter files into a temporary folder, starts a ``ChapterWatcher`` on it (seed included),
waits until the watcher has settled into its idle rhythm (``--warm`` seconds at most; a watcher that backs
off its reconcile scan while the notify backend is healthy says so through ``reconcile_interval``), then
measures the CPU time of the whole process (every thread: the event loop, the scan's worker threads and the
watch thread) over ``--seconds`` of nothing happening. It prints that as a share of one core, the number of
reconcile scans in the window, and the cost of one scan measured on its own (median of ``--scans``).

The idle share is what a workstation left open on a big workspace costs: the goal is that it does not grow
with the number of chapters.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from store.model import Chapter, Paragraph
from store.serialize import chapter_bytes
from store.watcher import ChapterWatcher
from store.workspace import Workspace


def cpu_seconds() -> float:
    """User + system CPU time of this process, all threads."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def write_workspace(root: Path, chapters: int) -> None:
    """``chapters`` small chapter files (five paragraphs each, ~1.5 KB)."""
    for n in range(chapters):
        paras = tuple(
            Paragraph(
                id=f"{i:08x}",
                text=f"第{n}章 段落 {i} " + "テキスト" * 10,
                translations=(),
                selected_translation_id=None,
                reviewed=False,
            )
            for i in range(5)
        )
        (root / f"ch{n:05d}.json").write_bytes(chapter_bytes(Chapter(id=f"ch{n:05d}", paragraphs=paras)))


async def measure(root: Path, seconds: float, warm: float, scans: int) -> None:
    watcher = ChapterWatcher(Workspace(root))
    started = time.perf_counter()
    await watcher.start()
    print(f"start (seed of every chapter): {time.perf_counter() - started:.2f} s")
    count = {"scans": 0}
    reconcile = watcher.reconcile

    async def counted() -> int:
        count["scans"] += 1
        return await reconcile()

    watcher.reconcile = counted  # type: ignore[method-assign]
    interval = getattr(watcher, "reconcile_interval", None)
    if interval is not None:
        deadline = time.monotonic() + warm
        # Poll the condition (never a fixed wait): the watcher backs off once its backend has run healthy.
        while watcher.reconcile_interval <= watcher.reconcile_every and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        print(
            f"reconcile interval now {watcher.reconcile_interval:g} s "
            f"(base {watcher.reconcile_every:g} s), after {time.perf_counter() - started:.1f} s"
        )
    else:
        print(f"reconcile interval {watcher.reconcile_every:g} s (no back-off in this version)")
    count["scans"] = 0
    cpu0, wall0 = cpu_seconds(), time.perf_counter()
    await asyncio.sleep(seconds)  # the measurement window itself: the point is to do nothing for this long
    cpu, wall = cpu_seconds() - cpu0, time.perf_counter() - wall0
    print(
        f"idle over {wall:.1f} s: {cpu * 1000:.0f} ms CPU = {cpu / wall * 100:.2f} % of a core, "
        f"{count['scans']} reconcile scan(s)"
    )
    costs = []
    for _ in range(scans):
        c0 = cpu_seconds()
        await reconcile()
        costs.append(cpu_seconds() - c0)
    print(
        f"one reconcile scan of {len(list(root.iterdir()))} entries: median {statistics.median(costs) * 1000:.1f} ms "
        f"CPU (of {scans})"
    )
    await watcher.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chapters", type=int, default=5_000, help="chapter files in the workspace")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the idle window")
    parser.add_argument("--warm", type=float, default=90.0, help="longest wait for the idle rhythm before measuring")
    parser.add_argument("--scans", type=int, default=15, help="single scans timed for the per-scan cost")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-watch-") as tmp:
        root = Path(tmp)
        write_workspace(root, args.chapters)
        asyncio.run(measure(root, args.seconds, args.warm, args.scans))


if __name__ == "__main__":
    main()
