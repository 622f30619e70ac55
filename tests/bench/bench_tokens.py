"""Tokens benchmark: the fixed prompt and a whole run's input tokens, against the floor and a minimal prompt.

Run: ``.venv/bin/python tests/bench/bench_tokens.py``. Every request is a real ``proofdesk run`` of the bundled sample
chapter (Rashomon, ja -> en) against the scripted server on 127.0.0.1; the tokens of what was really sent are counted
with the project's estimator (``engine.token_estimate``: each message's text, each assistant message's tool calls as
JSON, the tool definitions as JSON, ``engine.estimate.MESSAGE_OVERHEAD`` per message). With
``PROOFDESK_REAL_BASE_URL`` set (the opt-in real model server, ``tests/real_model/serve.py``), the fixed prompt is
counted by its ``/tokenize`` too.

1. Fixed prompt per task: system prompt + tool definitions of a chunk's first request. Goal: <= 1,000 tokens.
2. Whole translate run per ``--chunk-chars`` (1000, 2000, 4000) with a cooperative model (it submits each chunk in
   batches of ``max_batch`` in its first answer): every request's input tokens added up, against the floor (the
   source once plus a one-line instruction) and a minimal bilingual_book_maker-style prompt (per chunk: a one-line
   system message and the chunk's source under a one-line instruction). Goal at 4000: <= 1.5x the floor.
3. An uncooperative model at 4000 (every turn: two reading calls and a whole-chunk batch with one foreign ID, so it
   is rejected, until ``--max-turns``): the input it really sent against ``run --estimate``'s stated upper bound.
   Goal: sent <= bound.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import httpx

from engine.config import ModelSettings
from engine.estimate import MESSAGE_OVERHEAD, estimate_run
from engine.run import run_chapter
from engine.run_request import RunRequest
from engine.token_estimate import estimate_tokens
from store.loader import parse_chapter
from store.model import Chapter, append_version
from store.serialize import chapter_bytes
from tests.support.model_server import ModelServer, RecordedRequest, Scripted, text_reply, tool_reply
from tui.sample import sample_bytes

ID_LINE = re.compile(r"^\[\d+\] \[ID: ([^\]\s]+)\]", re.M)
FLOOR_LINE = "Translate the following Japanese text into English, one paragraph for each paragraph:"
MINIMAL_SYSTEM = "You are a professional translator."
MINIMAL_USER = "Translate the following text into English. Keep the paragraphs. Reply with the translation only."
FIXED_GOAL = 1000
RUN_GOAL = 1.5


def message_tokens(message: dict[str, Any]) -> int:
    """One message as the estimator counts it: its text, its tool calls as JSON, the template's overhead."""
    calls = message.get("tool_calls")
    text = message.get("content") or ""
    return (
        estimate_tokens(text)
        + (estimate_tokens(json.dumps(calls, ensure_ascii=False)) if calls else 0)
        + MESSAGE_OVERHEAD
    )


def tools_tokens(body: dict[str, Any]) -> int:
    return estimate_tokens(json.dumps(body.get("tools") or [], ensure_ascii=False))


def request_tokens(body: dict[str, Any]) -> int:
    """The input tokens of one request body."""
    return tools_tokens(body) + sum(message_tokens(m) for m in body["messages"])


class Cooperative:
    """An ideal model: the whole chunk in its first answer, in batches of 20; "Done." after tool results."""

    def __call__(self, request: RecordedRequest) -> Scripted:
        messages = request.json["messages"]
        if any(m["role"] == "tool" for m in messages):
            return text_reply("Done.")
        ids = ID_LINE.findall(messages[1]["content"])
        items = [{"paragraph_id": pid, "translated_text": f"The translation of paragraph {pid}."} for pid in ids]
        return tool_reply(
            [("add_translation_batch", {"paragraphs": items[i : i + 20]}) for i in range(0, len(items), 20)]
        )


class Uncooperative:
    """Reads twice and submits the whole chunk with one foreign ID every turn (rejected: nothing is ever saved)."""

    def __init__(self) -> None:
        self.turn = 0

    def __call__(self, request: RecordedRequest) -> Scripted:
        self.turn += 1
        ids = ID_LINE.findall(request.json["messages"][1]["content"])
        text = "羅生門の下で雨やみを待っていた下人の話。" * 6
        items = [{"paragraph_id": pid, "translated_text": f"Try {self.turn}: {text} ({pid})"} for pid in ids]
        items[-1] = {**items[-1], "paragraph_id": "not-in-this-chunk"}
        return tool_reply(
            [
                ("get_previous_paragraphs", {"paragraph_id": ids[-1], "count": 3}),
                ("find_paragraph_by_keywords", {"keywords": ["下人", "老婆"], "max_results": 5 + self.turn % 3}),
                ("add_translation_batch", {"paragraphs": items}),
            ]
        )


def translated(chapter: Chapter) -> Chapter:
    done = {
        pos: append_version(p, f"The English of {p.id}.", origin="translation", model="m")[0]
        for pos, p in enumerate(chapter.paragraphs)
        if not p.is_empty
    }
    return chapter.with_paragraphs(done)


async def drain(request: RunRequest) -> None:
    async for _ in run_chapter(request):
        pass


def run(server: ModelServer, path: Path, task: str, **options: Any) -> list[dict[str, Any]]:
    """One ``proofdesk run`` in this process; the bodies of the requests it sent."""
    before = len(server.requests)
    settings = ModelSettings(model="bench", base_url=server.base_url)
    asyncio.run(drain(RunRequest(chapter_path=path, task=task, settings=settings, **options)))  # type: ignore[arg-type]
    return [r.json for r in server.requests[before:]]


def real_tokens(text: str) -> int | None:
    base = os.environ.get("PROOFDESK_REAL_BASE_URL")
    if not base:
        return None
    root = base.rstrip("/").removesuffix("/v1")
    reply = httpx.post(f"{root}/tokenize", json={"content": text}, timeout=30)
    return len(reply.json()["tokens"])


def fixed_prompt(server: ModelServer, folder: Path, chapter: Chapter) -> None:
    print(f"1. fixed prompt (system + tools) of a chunk's first request, estimate; goal <= {FIXED_GOAL:,}")
    print(f"   {'task':10} {'system':>7} {'tools':>7} {'total':>7}  tools sent")
    server.responder = lambda request: text_reply("Done.")
    for task in ("translate", "polish", "proofread"):
        path = folder / f"fixed-{task}.json"
        path.write_bytes(chapter_bytes(chapter if task == "translate" else translated(chapter)))
        body = run(server, path, task, max_turns=1, only_chunk=1)[0]
        system, tools = estimate_tokens(body["messages"][0]["content"]), tools_tokens(body)
        names = ", ".join(t["function"]["name"] for t in body.get("tools") or [])
        real = real_tokens(body["messages"][0]["content"] + json.dumps(body.get("tools") or [], ensure_ascii=False))
        extra = "" if real is None else f"  (/tokenize: {real:,})"
        verdict = "ok" if system + tools <= FIXED_GOAL else "OVER"
        print(f"   {task:10} {system:>7,} {tools:>7,} {system + tools:>7,} {verdict}{extra}  [{names}]")


def whole_runs(server: ModelServer, folder: Path, chapter: Chapter) -> None:
    sources = [p.text for p in chapter.paragraphs if not p.is_empty]
    floor = estimate_tokens("\n\n".join(sources)) + estimate_tokens(FLOOR_LINE) + 2 * MESSAGE_OVERHEAD
    print(f"\n2. whole translate run, cooperative model: input tokens (estimate); floor {floor:,}; goal <= {RUN_GOAL}x")
    print(f"   {'chunk':>6} {'chunks':>6} {'requests':>8} {'input':>8} {'x floor':>8} {'minimal':>8} {'x floor':>8}")
    server.responder = Cooperative()
    for size in (1000, 2000, 4000):
        path = folder / f"run-{size}.json"
        path.write_bytes(chapter_bytes(chapter))
        bodies = run(server, path, "translate", chunk_chars=size)
        chunks = [b for b in bodies if len(b["messages"]) == 2]
        total = sum(request_tokens(b) for b in bodies)
        minimal = sum(
            estimate_tokens(MINIMAL_SYSTEM)
            + estimate_tokens(MINIMAL_USER + "\n\n" + "\n\n".join(_chunk_sources(b, chapter)))
            + 2 * MESSAGE_OVERHEAD
            for b in chunks
        )
        goal = f"  goal <= {RUN_GOAL}x: {'ok' if total <= RUN_GOAL * floor else 'OVER'}" if size == 4000 else ""
        print(
            f"   {size:>6} {len(chunks):>6} {len(bodies):>8} {total:>8,} {total / floor:>7.3f}x"
            f" {minimal:>8,} {minimal / floor:>7.2f}x{goal}"
        )


def _chunk_sources(body: dict[str, Any], chapter: Chapter) -> list[str]:
    ids = ID_LINE.findall(body["messages"][1]["content"])
    by_id = {p.id: p.text for p in chapter.paragraphs}
    return [by_id[pid] for pid in ids]


def uncooperative(server: ModelServer, folder: Path, chapter: Chapter) -> None:
    print("\n3. uncooperative model (rejected batches until --max-turns), --chunk-chars 4000: input tokens (estimate)")
    path = folder / "stubborn.json"
    path.write_bytes(chapter_bytes(chapter))
    settings = ModelSettings(model="bench", base_url=server.base_url)
    bound = estimate_run(RunRequest(chapter_path=path, task="translate", settings=settings))["total"]
    server.responder = Uncooperative()
    bodies = run(server, path, "translate")
    sent = sum(request_tokens(b) for b in bodies)
    largest = max(request_tokens(b) for b in bodies)
    low, high = bound["input_tokens"]
    verdict = "ok" if sent <= high else f"OVER by {sent / high:.1f}x"
    print(f"   requests {len(bodies)} (estimate says {bound['requests'][0]}-{bound['requests'][1]})")
    print(f"   sent {sent:,}, largest request {largest:,}; --estimate: {low:,}-{high:,}; goal sent <= bound: {verdict}")


def main() -> None:
    chapter = parse_chapter(sample_bytes(), "rashomon.json")
    server = ModelServer().start()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-tokens-") as tmp:
            folder = Path(tmp)
            fixed_prompt(server, folder, chapter)
            whole_runs(server, folder, chapter)
            uncooperative(server, folder, chapter)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
