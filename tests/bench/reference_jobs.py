"""The reference for ``bench_jobs.py``: ``reference_loop.py``'s minimal correct loop over many chapters, at most
``JOBS`` at once (an ``asyncio.Semaphore``), one connection pool for all, each chapter sending the same recorded
request bodies.

Only the standard library and httpx are imported (through ``reference_loop``).

    python tests/bench/reference_jobs.py BASE_URL JOBS BODIES.json CHAPTER.json...

prints ``reference: N requests, M commits`` on stderr when done.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference_loop import httpx, reference_run  # httpx as reference_loop imports it: without its CLI


async def run_all(base_url: str, jobs: int, bodies: list[bytes], chapters: list[Path]) -> tuple[int, int]:
    limit = asyncio.Semaphore(jobs)
    async with httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=jobs)) as client:

        async def one(chapter: Path) -> tuple[int, int]:
            async with limit:
                return await reference_run(base_url, chapter, bodies, client)

        done = await asyncio.gather(*(one(chapter) for chapter in chapters))
    return sum(r for r, _ in done), sum(c for _, c in done)


def main() -> None:
    base_url, jobs, bodies_file, *chapters = sys.argv[1:]
    bodies = [body.encode("utf-8") for body in json.loads(Path(bodies_file).read_text(encoding="utf-8"))]
    requests, commits = asyncio.run(run_all(base_url, int(jobs), bodies, [Path(c) for c in chapters]))
    print(f"reference: {requests} requests, {commits} commits", file=sys.stderr)


if __name__ == "__main__":
    main()
