"""The trace of a runaway chunk: 6 turns of 5,000 tool calls each (issue 17 item 9; 609 MB before).

Run: ``.venv/bin/python tests/bench/bench_trace_size.py``. Against the scripted server: each answer makes 5,000
``get_paragraph_info`` calls. Prints the trace's size, how many calls ran, and the run's wall time.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.run import run_chapter
from engine.run_request import RunRequest
from tests.engine.loop_support import IDS, settings_for, write_chapter
from tests.support.model_server import SSE_HEADERS, ModelServer, Scripted, sse, tool_chunks


async def main() -> None:
    server = ModelServer()
    server.start()
    try:
        folder = Path(tempfile.mkdtemp())
        path = write_chapter(folder)
        body = sse(tool_chunks([("get_paragraph_info", {"paragraph_id": IDS[0]})] * 5000, piece=1000))
        server.add(*[Scripted(200, dict(SSE_HEADERS), body) for _ in range(6)])
        started = time.perf_counter()
        events = [
            e
            async for e in run_chapter(
                RunRequest(path, "translate", settings_for(server.base_url), chunk_chars=50_000, max_turns=6)
            )
        ]
        wall = time.perf_counter() - started
        trace = Path(events[-1].summary.trace)
        ran = sum(e.kind == "tool_called" for e in events)
        print(f"6 turns x 5,000 calls: trace {trace.stat().st_size / 1e6:.1f} MB, {ran} calls run, {wall:.1f} s")
    finally:
        server.stop()


if __name__ == "__main__":
    asyncio.run(main())
