"""Benchmark: ``proofdesk mcp`` driven by the official SDK's client over stdio, as an assistant uses it.

Run on demand (pytest does not collect tests/bench):

    .venv/bin/python tests/bench/bench_mcp.py [--paragraphs 10000] [--calls 50]

A workspace with one untranslated chapter of N paragraphs (Rashomon cycled) and one translated chapter of N/10;
the server is a child process (``python -m tui.cli mcp``). Prints medians beside the goals: the server answering
``initialize`` <= 1.5 s after it was started (the SDK's import is ~0.4 s of it), a paragraph tool's round trip
<= 20 ms and ``get_chunk`` (the chunk message with context, memory and glossary, built from the file now)
<= 0.5 s at 10,000 paragraphs, a 10-item batch committed <= 0.3 s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import mcp_types as types  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from store.atomic import atomic_write  # noqa: E402
from store.serialize import chapter_bytes  # noqa: E402
from tests.bench.chapters import make_chapter  # noqa: E402


def _workspace(folder: Path, n: int) -> None:
    atomic_write(folder / "ch01.json", chapter_bytes(make_chapter(max(n // 10, 10), chapter_id="one")), expect=None)
    todo = make_chapter(n, translated=False, chapter_id="two")
    atomic_write(folder / "ch02.json", chapter_bytes(todo), expect=None)


async def _median(calls: int, step: Callable[[int], Awaitable[types.CallToolResult]]) -> float:
    times = []
    for i in range(calls):
        start = time.perf_counter()
        answer = await step(i)
        times.append(time.perf_counter() - start)
        if answer.is_error:  # a refusal is no measure of the work
            raise SystemExit(f"the call failed: {answer.structured_content}")
    return statistics.median(times) * 1000


def _row(name: str, ms: float, goal_ms: float) -> None:
    print(f"{name:44s} {ms:9.1f} ms   goal <= {goal_ms:.0f} ms   {'ok' if ms <= goal_ms else 'OVER'}")


async def _bench(folder: Path, calls: int) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    server = StdioServerParameters(command=sys.executable, args=["-m", "tui.cli", "mcp", str(folder)], env=env)
    started = time.perf_counter()
    with open(folder / "server.log", "w", encoding="utf-8") as errlog:
        async with (
            stdio_client(server, errlog=errlog) as (read, write),
            ClientSession(read, write, client_info=types.Implementation(name="bench", version="0")) as s,
        ):
            await s.initialize()
            _row("spawn -> initialize answered", (time.perf_counter() - started) * 1000, 1500)
            await _calls(s, calls)


async def _calls(s: ClientSession, calls: int) -> None:
    chunk = await s.call_tool("get_chunk", {"chapter": "two", "task": "translate", "index": 1})
    ids = (chunk.structured_content or {})["paragraph_ids"]

    async def info(i: int) -> types.CallToolResult:
        return await s.call_tool("get_paragraph_info", {"chapter": "two", "paragraph_id": ids[i % len(ids)]})

    async def get_chunk(i: int) -> types.CallToolResult:
        return await s.call_tool("get_chunk", {"chapter": "two", "task": "translate", "index": 1 + i % 5})

    async def batch(i: int) -> types.CallToolResult:
        await s.call_tool("close_chunk", {})
        items = [{"paragraph_id": pid, "translated_text": f"Take {i}: {pid}."} for pid in ids[:10]]
        return await s.call_tool("add_translation_batch", {"chapter": "two", "paragraphs": items})

    _row("get_paragraph_info round trip", await _median(calls, info), 20)
    _row("get_chunk (message, context, memory, glossary)", await _median(max(calls // 5, 5), get_chunk), 500)
    _row("add_translation_batch of 10, committed", await _median(max(calls // 5, 5), batch), 300)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paragraphs", type=int, default=10000)
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as tmp:
        folder = Path(tmp) / "book"
        folder.mkdir()
        _workspace(folder, args.paragraphs)
        print(f"proofdesk mcp, {args.paragraphs:,} paragraphs, medians of {args.calls} calls (fewer for the slow ones)")
        asyncio.run(_bench(folder, args.calls))


if __name__ == "__main__":
    main()
