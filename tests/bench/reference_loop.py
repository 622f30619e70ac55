"""The reference for ``bench_run.py``: a minimal but correct tool-call run loop, written as plainly as possible.

It sends the very request bodies a ``proofdesk run`` sent (recorded by the scripted server), streams each answer
with httpx, decodes every SSE event with ``json.loads``, assembles the tool calls by index, parses their arguments,
applies every ``add_translation_batch`` to the chapter and commits it durably: the whole chapter serialised, written
to a temp file in the same folder, fsynced, renamed over the chapter, the folder fsynced. No locks, no merge, no
trace, no validation beyond "the JSON parses": that is what proofdesk adds, and what the ratio prices.

Only the standard library and httpx are imported (not httpx's CLI), so its start-up is the floor of any Python
loop on httpx.

    python tests/bench/reference_loop.py BASE_URL CHAPTER.json BODIES.json [MODULES.txt]

prints ``reference: N requests, M commits`` on stderr as its last line (``bench_run.py`` times shutdown from it);
with MODULES.txt it writes there the modules it imported, one per line.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# As engine/__init__.py does: httpx's command line (click, rich, pygments) is imported whenever click is installed
# (the MCP SDK installs it); neither side of the comparison may pay for a CLI it never uses.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

import httpx  # noqa: E402


def commit(path: Path, chapter: dict[str, Any]) -> None:
    """Atomic, durable replacement of the chapter file: temp, write, fsync, rename, folder fsync.

    Compact JSON (json's C encoder; ``indent=2`` as proofdesk writes would take the slow Python encoder, ~13 ms
    for 400 paragraphs): the cheapest durable write, so the reference is a strict bar.
    """
    data = json.dumps(chapter, ensure_ascii=False).encode("utf-8")
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".ref-", suffix=".tmp")
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temp, path)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


class TurnParser:
    """One streamed answer, fed network reads: its text, its tool calls by index, its finish reason."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish = ""
        self._pending = b""

    def feed(self, data: bytes) -> None:
        lines = (self._pending + data).split(b"\n")  # LF only: never str.splitlines (U+2028 is legal in JSON)
        self._pending = lines.pop()
        for line in lines:
            if not line.startswith(b"data:"):
                continue
            payload = line[5:].strip()
            if payload == b"[DONE]":
                continue
            chunk = json.loads(payload)
            for choice in chunk.get("choices") or ():
                delta = choice.get("delta") or {}
                if delta.get("content"):
                    self.text.append(delta["content"])
                for entry in delta.get("tool_calls") or ():
                    call = self.calls.setdefault(entry.get("index", 0), {"name": "", "arguments": []})
                    function = entry.get("function") or {}
                    if function.get("name"):
                        call["name"] = function["name"]
                    if function.get("arguments"):
                        call["arguments"].append(function["arguments"])
                if choice.get("finish_reason"):
                    self.finish = choice["finish_reason"]

    def result(self) -> tuple[str, list[dict[str, Any]], str]:
        """The text, the calls (``name``, ``arguments`` text) in index order, the finish reason."""
        made = [
            {"name": call["name"], "arguments": "".join(call["arguments"])} for _, call in sorted(self.calls.items())
        ]
        return "".join(self.text), made, self.finish


async def stream_turn(client: httpx.AsyncClient, url: str, body: bytes) -> tuple[str, list[dict[str, Any]], str]:
    """One streamed answer: its text, its tool calls (``name``, ``arguments`` text) and its finish reason."""
    parser = TurnParser()
    async with client.stream("POST", url, content=body, headers={"content-type": "application/json"}) as response:
        response.raise_for_status()
        async for data in response.aiter_bytes():
            parser.feed(data)
    return parser.result()


async def reference_run(
    base_url: str, chapter_path: Path, bodies: list[bytes], client: httpx.AsyncClient | None = None
) -> tuple[int, int]:
    """Send ``bodies`` in order, commit every batch the answers carry; returns (requests, commits). ``client``: a
    connection pool to share with other chapters (``reference_jobs.py``); by default one of its own."""
    if client is None:
        async with httpx.AsyncClient(timeout=30) as own:
            return await reference_run(base_url, chapter_path, bodies, own)
    chapter = json.loads(chapter_path.read_bytes())
    by_id = {paragraph["id"]: paragraph for paragraph in chapter["paragraphs"]}
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    commits = 0
    url = base_url + "/chat/completions"
    for body in bodies:
        _text, calls, finish = await stream_turn(client, url, body)
        if finish not in ("tool_calls", "stop"):
            raise RuntimeError(f"the answer ended with {finish!r}")
        for call in calls:
            if call["name"] != "add_translation_batch":
                continue
            arguments = json.loads(call["arguments"])
            for item in arguments["paragraphs"]:
                paragraph = by_id[item["paragraph_id"]]
                version = {
                    "id": secrets.token_hex(4),
                    "text": item["translated_text"],
                    "origin": "translation",
                    "model": "bench",
                    "created_at": stamp,
                }
                paragraph["translations"] = [*paragraph.get("translations", ()), version]
                paragraph["selected_translation_id"] = version["id"]
            commit(chapter_path, chapter)
            commits += 1
    return len(bodies), commits


def main() -> None:
    base_url, chapter, bodies_file = sys.argv[1:4]
    bodies = [body.encode("utf-8") for body in json.loads(Path(bodies_file).read_text(encoding="utf-8"))]
    requests, commits = asyncio.run(reference_run(base_url, Path(chapter), bodies))
    if len(sys.argv) > 4:
        Path(sys.argv[4]).write_text("\n".join(sorted(name for name in sys.modules if name != "__main__")))
    print(f"reference: {requests} requests, {commits} commits", file=sys.stderr)


if __name__ == "__main__":
    main()
