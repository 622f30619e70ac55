"""Benchmark: chunk building, neighbour/position lookups and 20-item batch validation at 1k/10k/100k paragraphs.

Run on demand (pytest does not collect tests/bench):

    /work/venv/bin/python tests/bench/bench_tools.py [--sizes 1000,10000,100000] [--calls 2000]

Prints medians. Lookups go through ``ToolRegistry.handle_tool_call`` with the raw JSON arguments a model
sends (decode, validate, context, handler), on a real chapter file through ``ChapterStore`` (whose ``load``
is a stat when the file is unchanged), with and without chunk boundaries. Targets (issue 4): <= 0.2 ms per
lookup at 100,000 paragraphs and flat across sizes; chunking 100,000 paragraphs <= 0.5 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.chunks import TaskType, build_chunks
from engine.context import ToolContext
from engine.scope import ChunkScope
from engine.tools import default_registry
from engine.tools.batch_validation import validate_batch
from engine.tools.lookup import ChapterIndex, clear_index_cache
from store.commit import ChapterStore
from store.model import Chapter
from tests.bench.chapters import make_chapter, write_chapter


def median_ms(samples_ns: list[int]) -> float:
    return statistics.median(samples_ns) / 1e6


def timed(fn: Callable[[], object], repeat: int) -> list[int]:
    out: list[int] = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        fn()
        out.append(time.perf_counter_ns() - start)
    return out


async def lookups(store: ChapterStore, name: str, args: list[str], paragraph_ids: tuple[str, ...] | None) -> list[int]:
    registry = default_registry()
    samples: list[int] = []
    for raw in args:
        start = time.perf_counter_ns()
        result = await registry.handle_tool_call(name, raw, source=store, task="translate", paragraph_ids=paragraph_ids)
        samples.append(time.perf_counter_ns() - start)
        if not result["success"] and result["error_code"] not in ("CHUNK_BOUNDARY",):
            raise SystemExit(f"unexpected failure: {result}")
    return samples


def bench_size(n: int, calls: int, folder: Path) -> dict[str, float]:
    rng = random.Random(n)
    row: dict[str, float] = {}
    untranslated = make_chapter(n, translated=False)
    translated = make_chapter(n, translated=True)

    def fresh_chunks(chapter: Chapter, task: TaskType) -> None:
        clear_index_cache()  # as after loading a new chapter version: the emptiness table is rebuilt too
        build_chunks(chapter, task)

    row["chunk translate (ms)"] = median_ms(timed(lambda: fresh_chunks(untranslated, "translate"), 5))
    row["chunk polish (ms)"] = median_ms(timed(lambda: fresh_chunks(translated, "polish"), 5))
    row["index build (ms)"] = median_ms(timed(lambda: ChapterIndex.build(untranslated), 5))

    path = folder / f"bench-{n}.json"
    write_chapter(path, n, translated=False)
    store = ChapterStore(path)
    chapter = store.load()
    chunks = build_chunks(chapter, "translate")
    middle = chunks[len(chunks) // 2]
    ids = [p.id for p in chapter.paragraphs]
    anywhere = [json.dumps({"paragraph_id": rng.choice(ids), "count": 3}) for _ in range(calls)]
    in_chunk = [json.dumps({"paragraph_id": rng.choice(middle.paragraph_ids), "count": 3}) for _ in range(calls)]
    position = [
        json.dumps({"paragraph_id": rng.choice(middle.paragraph_ids), "include_previous": True, "include_next": True})
        for _ in range(calls)
    ]

    async def run_all() -> None:
        await lookups(store, "get_next_paragraphs", anywhere[:50], None)  # warm: index built once
        row["next, no bounds (ms)"] = median_ms(await lookups(store, "get_next_paragraphs", anywhere, None))
        row["next, chunk (ms)"] = median_ms(await lookups(store, "get_next_paragraphs", in_chunk, middle.paragraph_ids))
        row["position+nbrs, chunk (ms)"] = median_ms(
            await lookups(store, "get_paragraph_position", position, middle.paragraph_ids)
        )

    asyncio.run(run_all())

    big = next((c for c in chunks if len(c.paragraph_ids) >= 20), None)
    if big is None:  # small paragraphs: make one chunk large enough for a 20-item batch
        big = build_chunks(chapter, "translate", chunk_chars=50000)[0]
    items = [
        {"paragraph_id": pid, "translated_text": f"訳 {pid}", "original_text_prefix": ""}
        for pid in big.paragraph_ids[:20]
    ]
    ctx = ToolContext(chapter, ChunkScope.standalone(chapter, task="translate", paragraph_ids=big.paragraph_ids))
    raw = json.dumps({"paragraphs": items}, ensure_ascii=False)

    def validate() -> None:
        checked = validate_batch(ctx, json.loads(raw))
        if isinstance(checked, dict):
            raise SystemExit(f"validation failed: {checked}")

    row["batch-20 validate (ms)"] = median_ms(timed(validate, calls))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        rows = {n: bench_size(n, args.calls, Path(tmp)) for n in sizes}
    keys = list(next(iter(rows.values())))
    print(f"{'median':28}" + "".join(f"{n:>12,}" for n in sizes))
    for key in keys:
        print(f"{key:28}" + "".join(f"{rows[n][key]:>12.4f}" for n in sizes))


if __name__ == "__main__":
    main()
