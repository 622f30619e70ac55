"""Benchmark: the model client's own cost per stream event, and a whole turn, each beside its reference.

Run on demand (pytest does not collect tests/bench):

    .venv/bin/python tests/bench/bench_client.py [--repeat 31] [--turns 200]

Prints medians of interleaved repeats:
- per stream event, offline (the body fed in 4 KB reads), for a tool-call turn (one submit call of 20 paragraphs,
  ~12 KB of argument JSON in 8-character fragments: ~1,500 events) and a text turn: proofdesk's SSE decoding, chunk
  decoding (``decode_chunk``) and assembly, beside ``json.loads`` and untyped ``msgspec`` of each event's data
  alone, a minimal correct loop (LF split + ``json.loads`` + accumulating dicts: ``reference_loop.TurnParser``) and,
  when ``openai`` is installed, the openai SDK's own path (its SSE decoder, ``json``, ``construct_type`` and
  ``ChatCompletionStreamState``). Goal: proofdesk <= 12 us per event.
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
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import httpx
import msgspec

from engine.client import Completed, ModelClient
from engine.client.assembly import StreamAssembler
from engine.client.sse import SSEDecoder
from tests.bench.reference_loop import TurnParser
from tests.support.model_server import SSE_HEADERS, ModelServer, Scripted, sse, text_chunks, tool_chunks

try:
    from engine.client.wire import decode_chunk
except ImportError:  # before msgspec: the pydantic fast path
    from engine.client.wire import WireChunk

    def decode_chunk(data: str) -> object:  # type: ignore[misc]
        return WireChunk.model_validate_json(data)


READ = 4096


def tool_turn_body() -> bytes:
    items = [
        {"id": f"p{i:04d}", "text": f"Paragraph {i}: " + "翻訳された文章。The translated sentence. " * 8}
        for i in range(20)
    ]
    return sse(tool_chunks([("submit_batch", {"items": items})], piece=8))


def text_turn_body() -> bytes:
    return sse(text_chunks("A fluent answer with some words. " * 200, piece=6))


def reads(body: bytes) -> list[bytes]:
    return [body[at : at + READ] for at in range(0, len(body), READ)]


def sse_only(pieces: list[bytes]) -> None:
    decoder = SSEDecoder()
    for piece in pieces:
        decoder.feed(piece)
    decoder.close()


def whole_client(pieces: list[bytes]) -> None:
    decoder = SSEDecoder()
    assembler = StreamAssembler()
    for piece in pieces:
        for event in decoder.feed(piece):
            assembler.feed(event)
    for event in decoder.close():
        assembler.feed(event)
    response = assembler.finish(0.0)
    assert response.finish_reason in ("stop", "tool_calls"), response.error


def minimal_loop(pieces: list[bytes]) -> None:
    parser = TurnParser()
    for piece in pieces:
        parser.feed(piece)
    parser.feed(b"\n")
    for call in parser.result()[1]:
        json.loads(call["arguments"])


def openai_sdk() -> Callable[[list[bytes]], None] | None:
    try:
        from openai._models import construct_type
        from openai._streaming import SSEDecoder as OpenAIDecoder
        from openai.lib.streaming.chat._completions import ChatCompletionStreamState
        from openai.types.chat import ChatCompletionChunk
    except ImportError:
        return None

    def run(pieces: list[bytes]) -> None:
        state = ChatCompletionStreamState()
        for event in OpenAIDecoder().iter_bytes(iter(pieces)):
            if event.data.startswith("[DONE]"):
                break
            state.handle_chunk(construct_type(type_=ChatCompletionChunk, value=event.json()))
        state.get_final_completion()

    return run


def per_event_us(body: bytes, repeat: int) -> dict[str, float]:
    pieces = reads(body)
    datas = [line[6:].decode() for line in body.split(b"\n") if line.startswith(b"data: {")]
    events = len(datas) + body.count(b"data: [DONE]")
    untyped = msgspec.json.Decoder().decode
    sdk = openai_sdk()

    def json_only(_: list[bytes]) -> None:
        for data in datas:
            json.loads(data)

    def msgspec_only(_: list[bytes]) -> None:
        for data in datas:
            untyped(data)

    def chunks_only(_: list[bytes]) -> None:
        for data in datas:
            decode_chunk(data)

    cases: dict[str, Callable[[list[bytes]], None]] = {
        "sse": sse_only,
        "decode": chunks_only,
        "client": whole_client,
        "json": json_only,
        "msgspec": msgspec_only,
        "minimal": minimal_loop,
    }
    if sdk is not None:
        cases["openai"] = sdk
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeat):  # interleaved: a busy moment of the machine hits every case alike
        for name, case in cases.items():
            started = time.perf_counter()
            case(pieces)
            samples[name].append((time.perf_counter() - started) * 1e6 / events)
    return {name: statistics.median(values) for name, values in samples.items()}


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
    parser.add_argument("--repeat", type=int, default=31)
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    for name, body in (("tool-call turn", tool_turn_body()), ("text turn", text_turn_body())):
        events = body.count(b"data:")
        us = per_event_us(body, args.repeat)
        assembly = us["client"] - us["sse"] - us["decode"]
        print(f"{name}: {len(body) / 1024:.0f} KiB, {events} events, us per event (medians of {args.repeat})")
        print(
            f"  proofdesk client    {us['client']:6.2f}   = SSE {us['sse']:.2f} + chunk decoding {us['decode']:.2f} "
            f"+ assembly {assembly:.2f}   (goal <= 12)"
        )
        print(
            f"  json.loads alone    {us['json']:6.2f}   msgspec alone {us['msgspec']:.2f}   "
            f"proofdesk / json.loads {us['client'] / us['json']:.2f} x"
        )
        print(f"  minimal loop        {us['minimal']:6.2f}   (LF split + json.loads + dict accumulation)")
        if "openai" in us:
            print(f"  openai SDK          {us['openai']:6.2f}   ({us['openai'] / us['client']:.1f} x proofdesk)")
        ours, bare = asyncio.run(online_ms(body, args.turns))
        print(
            f"  online turn: ModelClient {ours:.2f} ms, bare httpx loop {bare:.2f} ms, overhead {ours - bare:+.2f} ms"
        )


if __name__ == "__main__":
    main()
