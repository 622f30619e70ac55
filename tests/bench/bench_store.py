"""Store benchmark: load+validate, save, and a 10-item commit at 1,000 / 10,000 / 100,000 paragraphs.

Run: ``/work/venv/bin/python tests/bench/bench_store.py`` (``--help`` for options). Prints medians in ms.
Chapters cycle Rashomon's paragraphs (tests/bench/chapters.py); "translated" gives every non-empty
paragraph one selected version, "source" only the source text. Targets at 10,000 paragraphs: commit
<= 50 ms, load <= 150 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from store.atomic import atomic_write
from store.commit import ChapterStore
from store.loader import load_chapter
from store.merge import BatchItem
from store.serialize import chapter_bytes
from tests.bench.chapters import write_chapter

SPACING_S = 0.03  # model batches arrive seconds apart; back-to-back commits are measured separately


def median_ms(run: Callable[[], object], repeat: int, before: Callable[[], object] | None = None) -> float:
    """Median wall time of ``run`` over ``repeat`` runs (``before`` runs untimed before each)."""
    times = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def bench_size(folder: Path, n: int, translated: bool, repeat: int) -> dict[str, float]:
    """All figures for one chapter size."""
    path = folder / f"ch-{n}-{'t' if translated else 's'}.json"
    write_chapter(path, n, translated=translated)
    out: dict[str, float] = {"MB": path.stat().st_size / 1e6}
    out["load"] = median_ms(lambda: load_chapter(path), repeat)

    fresh: list = []
    out["serialise"] = median_ms(lambda: fresh.append(chapter_bytes(fresh.pop())), repeat,
                                 before=lambda: (fresh.clear(), fresh.append(load_chapter(path))))
    data = path.read_bytes()
    out["write"] = median_ms(lambda: atomic_write(path, data, expect=None), repeat)

    store = ChapterStore(path)
    ids = [p.id for p in store.load().paragraphs if not p.is_empty]
    counter = iter(range(10**9))

    def batch() -> list[BatchItem]:
        chapter = store.load()
        k = next(counter)
        picked = [ids[(k * 10 + j * 97) % len(ids)] for j in range(10)]
        return [BatchItem.based_on(chapter.paragraph(pid), f"bench {k} {pid}")  # type: ignore[arg-type]
                for pid in dict.fromkeys(picked)]

    pending: list[list[BatchItem]] = []

    def commit() -> None:
        store.commit_batch(pending.pop(), origin="polish", model="bench")

    def spaced() -> None:
        time.sleep(SPACING_S)
        pending.append(batch())

    out["commit"] = median_ms(commit, max(repeat, 5), before=spaced)
    out["commit b2b"] = median_ms(commit, max(repeat, 5), before=lambda: pending.append(batch()))
    path.unlink()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000", help="paragraph counts (comma-separated)")
    parser.add_argument("--repeat", type=int, default=7, help="runs per figure (100,000 uses a third)")
    parser.add_argument("--kind", choices=("translated", "source", "both"), default="both")
    parser.add_argument("--kills", type=int, default=0, help="also run the crash harness with this many kills")
    parser.add_argument("--dir", default=None, help="where to write the chapters (default: a temp folder)")
    args = parser.parse_args()
    kinds = {"translated": [True], "source": [False], "both": [True, False]}[args.kind]
    columns = ["MB", "load", "serialise", "write", "commit", "commit b2b"]
    print("medians in ms; serialise = canonical bytes of a freshly loaded chapter; write = atomic_write incl.")
    print("fsync of file and folder; commit = ChapterStore.commit_batch of 10 items (lock, re-read check, merge,")
    print(f"serialise, write, fsync), {SPACING_S * 1000:.0f} ms apart as in a run; b2b = back to back\n")
    print(f"{'chapter':>18} " + " ".join(f"{c:>10}" for c in columns))
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="bench-store-") as tmp:
        for translated in kinds:
            for n in (int(s) for s in args.sizes.split(",")):
                repeat = max(3, args.repeat // 3) if n >= 100_000 else args.repeat
                figures = bench_size(Path(tmp), n, translated, repeat)
                name = f"{n:,} {'translated' if translated else 'source'}"
                print(f"{name:>18} " + " ".join(f"{figures[c]:>10.1f}" for c in columns), flush=True)
        if args.kills:
            from tests.store.crash_child import run_harness

            folder = Path(tmp) / "crash"
            folder.mkdir()
            write_chapter(folder / "ch01.json", 120)
            start = time.perf_counter()
            report = run_harness(folder / "ch01.json", kills=args.kills, seed=int(time.time()))
            print(f"\ncrash harness: {report.kills} kills in {time.perf_counter() - start:.0f} s: torn {report.torn}, "
                  f"acknowledged batches lost {len(report.lost)}, stale temps after restart "
                  f"{report.stale_temps_after_start}, temps left by kills {report.temps_left_by_kills}, "
                  f"acknowledged {report.acked}, committed but unacknowledged {report.committed_unacked}, "
                  f"errors {report.errors or 'none'}")


if __name__ == "__main__":
    main()
