"""Store benchmark: proofdesk's load, first save and commit, each beside a reference measured in the same run.

Run: ``.venv/bin/python tests/bench/bench_store.py`` (``--help`` for options). Chapters cycle Rashomon's
paragraphs with one selected translation each (tests/bench/chapters.py). The candidates of a row take turns
(round robin, a full ``gc.collect()`` untimed before each), so a busy machine slows them alike; each figure is
the median wall time in ms (and the median CPU time of the process, less sensitive to other processes), and
the ratio is the median over the reference's.

- load: ``store.loader.load_chapter`` vs reading the same file and decoding it with msgspec into typed
  structs, with ``json.loads`` plus the duplicate-key/NaN hooks, and with bare ``orjson.loads`` (the floor;
  ``msgspec.json.decode`` beside it shows what orjson saves us). Goal at 10,000 paragraphs: <= 100 ms;
  linear: 100,000 <= 11x 10,000.
- first save: ``chapter_bytes`` of a freshly loaded chapter (its bytes are cut out of the file it was read
  from) and of a chapter with nothing cached (built in memory, as ``proofdesk import`` does), vs
  ``orjson.dumps(chapter_document(chapter), option=OPT_INDENT_2)`` of the same chapter (the same bytes;
  "alone" leaves out building the document, and msgspec's encoder is shown beside orjson's). Goal: <= 100 ms.
- commit: ``ChapterStore.commit_batch`` of 10 items, 30 ms after the previous commit, each batch based on the
  previous commit's result (as a run does), vs writing the same bytes by hand: temp file, write, fsync, rename
  (and that plus the folder fsync, the least a durable replace needs). Goal: <= 1.3x the durable reference.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import orjson

from store.commit import ChapterStore
from store.loader import _pairs_hook, _reject_constant, load_chapter
from store.merge import BatchItem
from store.model import Chapter
from store.model_check import checked_chapter
from store.serialize import chapter_bytes
from tests.bench.chapters import write_chapter
from tests.store.documents import chapter_document

SPACING_S = 0.03  # model batches arrive seconds apart; 30 ms is enough to leave a just-written stat "racy"

try:
    import msgspec
except ImportError:  # not a dependency of proofdesk: the row then shows the other references
    msgspec = None

if msgspec is not None:
    # The chapter format's known fields as msgspec structs (msgspec drops unknown keys: a reference only).

    class Version(msgspec.Struct):
        id: str
        text: str
        origin: str
        created_at: str
        model: str | None = None

    class Para(msgspec.Struct):
        id: str
        text: str
        translations: list[Version] = []
        selected_translation_id: str | None = None
        reviewed: bool = False

    class Doc(msgspec.Struct):
        id: str
        paragraphs: list[Para]
        format: str = "proofdesk.chapter/1"
        title: str | None = None
        title_translation: str | None = None
        source_language: str | None = None
        target_language: str | None = None


def side_by_side(
    candidates: dict[str, Callable[[], Any]], repeat: int, before: Callable[[], Any] | None = None
) -> dict[str, tuple[float, float]]:
    """Median wall and CPU ms of each candidate, run in turns; results are dropped after the clock stops."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in candidates}
    for _ in range(repeat):
        for name, run in candidates.items():
            if before is not None:
                before()
            gc.collect()
            start, cpu = time.perf_counter(), time.process_time()
            result = run()
            times[name].append((time.perf_counter() - start, time.process_time() - cpu))
            del result
    return {
        name: (statistics.median(w for w, _ in t) * 1000, statistics.median(c for _, c in t) * 1000)
        for name, t in times.items()
    }


def durable_replace(path: Path, data: bytes, *, folder_fsync: bool) -> None:
    """The reference write: temp file in the same folder, write, fsync, rename (and fsync the folder)."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".ref-", suffix=".tmp")
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temp, path)
    if folder_fsync:
        dfd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def bench_load(path: Path, repeat: int) -> dict[str, tuple[float, float]]:
    decoder = msgspec.json.Decoder(Doc) if msgspec is not None else None
    candidates: dict[str, Callable[[], Any]] = {"proofdesk": lambda: load_chapter(path)}
    if decoder is not None:
        candidates["msgspec typed"] = lambda: decoder.decode(path.read_bytes())
    candidates["json.loads+hooks"] = lambda: json.loads(
        path.read_bytes().decode("utf-8"), object_pairs_hook=_pairs_hook, parse_constant=_reject_constant
    )
    candidates["orjson.loads"] = lambda: orjson.loads(path.read_bytes())
    if msgspec is not None:
        candidates["msgspec.json.decode"] = lambda: msgspec.json.decode(path.read_bytes())  # orjson's job, untyped
    return side_by_side(candidates, repeat)


def bench_save(path: Path, repeat: int) -> dict[str, Any]:
    loaded: list[Chapter] = []
    uncached: list[Chapter] = []
    document: list[dict[str, Any]] = []

    def fresh() -> None:
        loaded[:] = [load_chapter(path)]
        # The same chapter validated anew: nothing cached, as a chapter built in memory.
        uncached[:] = [checked_chapter(chapter_document(loaded[0]))]
        document[:] = [chapter_document(uncached[0])]

    figures = side_by_side(
        {
            "proofdesk (loaded)": lambda: chapter_bytes(loaded[0]),
            "proofdesk (nothing cached)": lambda: chapter_bytes(uncached[0]),
            "orjson (document)": lambda: (
                orjson.dumps(chapter_document(uncached[0]), option=orjson.OPT_INDENT_2) + b"\n"
            ),
            "  orjson.dumps alone": lambda: orjson.dumps(document[0], option=orjson.OPT_INDENT_2) + b"\n",
            **(
                {
                    "  msgspec encode+format alone": lambda: (
                        msgspec.json.format(msgspec.json.encode(document[0]), indent=2) + b"\n"
                    )
                }
                if msgspec is not None
                else {}
            ),
        },
        repeat,
        before=fresh,
    )
    fresh()
    same = (
        chapter_bytes(loaded[0])
        == chapter_bytes(uncached[0])
        == path.read_bytes()
        == orjson.dumps(chapter_document(uncached[0]), option=orjson.OPT_INDENT_2) + b"\n"
    )
    return {**figures, "bytes identical": same}


def bench_commit(path: Path, repeat: int) -> dict[str, tuple[float, float]]:
    store = ChapterStore(path)
    chapter = store.load()
    ids = [p.id for p in chapter.paragraphs if not p.is_empty]
    reference = path.with_name("reference.json")
    reference.write_bytes(path.read_bytes())
    state: dict[str, Any] = {"chapter": chapter, "k": 0, "run": time.time_ns()}

    def commit() -> Any:
        base = state["chapter"]
        k = state["k"] = state["k"] + 1
        picked = dict.fromkeys(ids[(k * 10 + j * 97) % len(ids)] for j in range(10))
        items = [BatchItem.based_on(base.paragraph(pid), f"bench {state['run']} {k} {pid}") for pid in picked]
        result = store.commit_batch(items, origin="polish", model="bench")
        state["chapter"] = result.chapter
        return result

    commit()  # the first commit after a load encodes what it touches and cuts up the loaded bytes once
    figures = side_by_side(
        {
            "proofdesk": commit,
            "write+fsync+rename": lambda: durable_replace(reference, store._raw or b"", folder_fsync=False),
            "  + folder fsync": lambda: durable_replace(reference, store._raw or b"", folder_fsync=True),
        },
        max(repeat, 5),
        before=lambda: time.sleep(SPACING_S),
    )
    reference.unlink()
    return figures


def show(title: str, figures: dict[str, Any], reference: str) -> None:
    base, base_cpu = figures[reference]
    print(f"  {title:<30} {'wall ms':>9} {'ratio':>6}   {'CPU ms':>8} {'ratio':>6}")
    for name, value in figures.items():
        if name == "bytes identical":
            print(f"    {'bytes identical':<28} {'yes' if value else 'NO'}")
            continue
        wall, cpu = value
        print(
            f"    {name:<28} {wall:>9.1f} {wall / base:>5.2f}x   {cpu:>8.1f} {cpu / base_cpu:>5.2f}x"
            f"{'   (reference)' if name == reference else ''}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000", help="paragraph counts (comma-separated)")
    parser.add_argument("--repeat", type=int, default=9, help="runs per figure (100,000 uses a third, at least 3)")
    parser.add_argument("--kills", type=int, default=0, help="also run the crash harness with this many kills")
    parser.add_argument("--dir", default=None, help="where to write the chapters (default: a temp folder)")
    args = parser.parse_args()
    print(f"medians of wall time; candidates of a row run in turns; load average {os.getloadavg()[0]:.1f}\n")
    loads: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="bench-store-") as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            repeat = max(3, args.repeat // 3) if n >= 100_000 else args.repeat
            path = Path(tmp) / f"ch-{n}.json"
            write_chapter(path, n)
            print(f"{n:,} translated paragraphs, {path.stat().st_size / 1e6:.1f} MB")
            load = bench_load(path, repeat)
            loads[n] = {name: wall for name, (wall, _) in load.items()}
            show("load", load, "json.loads+hooks")
            show("first save", bench_save(path, repeat), "orjson (document)")
            show("commit of 10 items", bench_commit(path, repeat), "  + folder fsync")
            path.unlink()
            print(flush=True)
        if 10_000 in loads and 100_000 in loads:
            # The decoders beside ours show what the machine itself makes of 10x the data (fresh memory, caches).
            print(
                "linearity: load of 100,000 / load of 10,000 = "
                + ", ".join(f"{name} {loads[100_000][name] / loads[10_000][name]:.1f}x" for name in loads[10_000])
                + " (goal for proofdesk <= 11x)"
            )
        if args.kills:
            from tests.store.crash_child import run_harness

            folder = Path(tmp) / "crash"
            folder.mkdir()
            write_chapter(folder / "ch01.json", 120)
            start = time.perf_counter()
            report = run_harness(folder / "ch01.json", kills=args.kills, seed=int(time.time()))
            print(
                f"\ncrash harness: {report.kills} kills in {time.perf_counter() - start:.0f} s: torn {report.torn}, "
                f"acknowledged batches lost {len(report.lost)}, stale temps after restart "
                f"{report.stale_temps_after_start}, temps left by kills {report.temps_left_by_kills}, "
                f"acknowledged {report.acked}, committed but unacknowledged {report.committed_unacked}, "
                f"errors {report.errors or 'none'}"
            )


if __name__ == "__main__":
    main()
