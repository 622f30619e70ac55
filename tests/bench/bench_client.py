"""Benchmark: the model client's own cost — SSE decoding + assembly, and a whole turn vs a bare httpx loop.

Run on demand (pytest does not collect tests/bench):

    /work/venv/bin/python tests/bench/bench_client.py [--repeat 30] [--turns 200]

Prints medians:
- offline: decode + assemble a realistic tool-call turn (one submit call of 20 paragraphs, ~12 KB of argument
  JSON in 8-character fragments, i.e. ~1,500 SSE events) fed in 4 KB reads, and the same with text deltas;
- online: one streamed turn through ``ModelClient.stream`` vs a bare httpx loop (``aiter_lines`` + ``json.loads``
  per event) against the local scripted server answering at once; the difference is our per-turn overhead.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import httpx

from engine.client import Completed, ModelClient
from engine.client.assembly import StreamAssembler
from engine.client.sse import SSEDecoder
from tests.support.model_server import SSE_HEADERS, ModelServer, Scripted, sse, text_chunks, tool_chunks


def tool_turn_body() -> bytes:
    items = [{"id": f"p{i:04d}", "text": f"Paragraph {i}: " + "翻訳された文章。The translated sentence. " * 8}
             for i in range(20)]
    return sse(tool_chunks([("submit_batch", {"items": items})], piece=8))


def text_turn_body() -> bytes:
    return sse(text_chunks("A fluent answer with some words. " * 200, piece=6))


def offline_ms(body: bytes, repeat: int, read: int = 4096) -> float:
    samples: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        decoder = SSEDecoder()
        assembler = StreamAssembler()
        for at in range(0, len(body), read):
            for event in decoder.feed(body[at:at + read]):
                assembler.feed(event)
        for event in decoder.close():
            assembler.feed(event)
        response = assembler.finish(0.0)
        samples.append((time.perf_counter() - start) * 1000)
        assert response.finish_reason in ("stop", "tool_calls"), response.error
    return statistics.median(samples)


async def online_ms(body: bytes, turns: int) -> tuple[float, float]:
    server = ModelServer().start()
    url = f"{server.base_url}/chat/completions"
    messages = [{"role": "user", "content": "x" * 2000}]
    ours: list[float] = []
    bare: list[float] = []
    try:
        async with ModelClient(server.base_url, "m") as client, httpx.AsyncClient() as http:
            for _ in range(turns):
                server.add(Scripted(200, SSE_HEADERS, body), Scripted(200, SSE_HEADERS, body))
                start = time.perf_counter()
                async for event in client.stream(messages, []):
                    if isinstance(event, Completed):
                        assert event.response.error is None
                ours.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                payload = {"model": "m", "messages": messages, "stream": True}
                async with http.stream("POST", url, json=payload) as response:
                    async for line in response.aiter_lines():
                        if line.startswith("data: ") and line != "data: [DONE]":
                            json.loads(line[6:])
                bare.append((time.perf_counter() - start) * 1000)
    finally:
        server.stop()
    return statistics.median(ours), statistics.median(bare)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    for name, body in (("tool-call turn", tool_turn_body()), ("text turn", text_turn_body())):
        events = body.count(b"\n\ndata:") + 1
        ms = offline_ms(body, args.repeat)
        print(f"offline {name}: {len(body) / 1024:.0f} KiB, {events} events: median {ms:.2f} ms "
              f"({len(body) / 1024 / 1024 / (ms / 1000):.1f} MiB/s, {ms * 1000 / events:.1f} us/event)")
        ours, bare = asyncio.run(online_ms(body, args.turns))
        print(f"online  {name}: ModelClient median {ours:.2f} ms, bare httpx loop {bare:.2f} ms, "
              f"overhead {ours - bare:+.2f} ms per turn")


if __name__ == "__main__":
    main()
