"""Run benchmark: our cost on top of the network, against a local server answering at once.

Run: ``/work/venv/bin/python tests/bench/bench_run.py`` (``--help`` for options). Prints medians.

1. Wall time of a whole ``proofdesk run`` (a fresh process each time, start-up included) vs a bare httpx
   streaming loop (also a fresh process) sending the very same request bodies. Goal: <= 2x.
2. Per-turn overhead in-process: (our run - the bare loop) / turns, split into commit (lock, merge, write,
   fsync) and everything else. Goal: everything else <= 1 ms per turn.
3. Model turns per chunk with an ideal model (it submits the whole chunk in its first answer). Goal: 1.
4. Request prefix: the share of system prompt + tool definitions that is byte-identical between the first
   requests of consecutive chunks. Goal: all of it.
5. ``--jobs 8`` vs ``--jobs 1`` on 8 chapters with 300 ms server latency per response. Goal: >= 6x.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


from engine.config import ModelSettings
from engine.run import RunRequest, run_chapter
from store import commit as commit_module
from tests.bench.chapters import write_chapter
from tests.support.model_server import ModelServer, RecordedRequest, Scripted, text_reply, tool_reply

ID_LINE = re.compile(r"^\[\d+\] \[ID: ([^\]\s]+)\]", re.M)
BARE_LOOP = r"""
import json, sys, httpx
bodies = json.load(open(sys.argv[2]))
with httpx.Client(timeout=30) as client:
    for body in bodies:
        with client.stream("POST", sys.argv[1] + "/chat/completions", content=body.encode(),
                           headers={"content-type": "application/json"}) as response:
            for _ in response.iter_bytes():
                pass
"""


class IdealModel:
    """A model that submits every paragraph of its chunk in its first answer, then has nothing to add.

    ``piece``: argument characters per stream chunk (8 is like OpenAI's token-sized fragments; a large
    value sends each call whole, as Ollama or Groq do). ``events`` counts the stream events sent.
    """

    def __init__(self, delay_s: float = 0.0, piece: int = 8) -> None:
        self.delay_s = delay_s
        self.piece = piece
        self.events = 0

    def __call__(self, request: RecordedRequest) -> Scripted:
        messages = request.json["messages"]
        if any(m["role"] == "tool" for m in messages):
            reply = text_reply("Done.")
        else:
            ids = ID_LINE.findall(messages[1]["content"])
            items = [{"paragraph_id": pid, "translated_text": f"translation of {pid}"} for pid in ids]
            calls = [("add_translation_batch", {"paragraphs": items[i:i + 20]}) for i in range(0, len(items), 20)]
            reply = tool_reply(calls, piece=self.piece)
        self.events += reply.body.count(b"data:")
        return Scripted(reply.status, reply.headers, reply.body, delay_s=self.delay_s)


def proofdesk() -> list[str]:
    binary = Path(sys.executable).with_name("proofdesk")
    return [str(binary)] if binary.exists() else [sys.executable, "-m", "tui.cli"]


def timed(cmd: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed


def median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:8.1f} ms"


def bench_wall(server: ModelServer, paragraphs: int, repeats: int, folder: Path) -> list[RecordedRequest]:
    ours, bare = [], []
    recorded: list[RecordedRequest] = []
    for _ in range(repeats):
        work = folder / f"wall-{time.perf_counter_ns()}"
        work.mkdir()
        write_chapter(work / "ch.json", paragraphs, translated=False)
        before = len(server.requests)
        ours.append(timed([*proofdesk(), "run", "ch.json", "--task", "translate", "--base-url", server.base_url,
                           "--model", "bench"], work))
        recorded = server.requests[before:]
        bodies = work / "bodies.json"
        bodies.write_text(json.dumps([r.body.decode() for r in recorded]), encoding="utf-8")
        bare.append(timed([sys.executable, "-c", BARE_LOOP, server.base_url, str(bodies)], work))
    print(f"1. whole run, {paragraphs} paragraphs, {len(recorded)} requests (fresh process each, start-up included)")
    print(f"   proofdesk run   {median_ms(ours)}")
    print(f"   bare httpx loop {median_ms(bare)}")
    print(f"   ratio           {statistics.median(ours) / statistics.median(bare):8.2f} x   (goal <= 2x)")
    return recorded


async def _bare_in_process(base_url: str, bodies: list[bytes]) -> float:
    import httpx

    started = time.perf_counter()
    async with httpx.AsyncClient(timeout=30) as client:
        for body in bodies:
            async with client.stream("POST", base_url + "/chat/completions", content=body,
                                     headers={"content-type": "application/json"}) as response:
                async for _ in response.aiter_bytes():
                    pass
    return time.perf_counter() - started


async def _ours_in_process(server: ModelServer, path: Path) -> tuple[float, float, int, int, list[RecordedRequest]]:
    commit_seconds = 0.0
    original = commit_module.ChapterStore.commit_batch

    def timed_commit(self: Any, *args: Any, **kwargs: Any) -> Any:
        nonlocal commit_seconds
        started = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            commit_seconds += time.perf_counter() - started

    commit_module.ChapterStore.commit_batch = timed_commit  # type: ignore[method-assign]
    try:
        before = len(server.requests)
        settings = ModelSettings(model="bench", base_url=server.base_url)
        started = time.perf_counter()
        turns = chunks = 0
        async for event in run_chapter(RunRequest(chapter_path=path, task="translate", settings=settings)):
            if event.kind == "model_request":
                turns += 1
            elif event.kind == "chunk_started":
                chunks += 1
        elapsed = time.perf_counter() - started
        return elapsed, commit_seconds, turns, chunks, server.requests[before:]
    finally:
        commit_module.ChapterStore.commit_batch = original  # type: ignore[method-assign]


def bench_overhead(server: ModelServer, paragraphs: int, repeats: int, folder: Path, piece: int,
                   label: str) -> list[RecordedRequest]:
    per_turn_else, per_turn_commit, turns_per_chunk, events_per_turn = [], [], [], []
    recorded: list[RecordedRequest] = []
    for _ in range(repeats):
        work = folder / f"overhead-{time.perf_counter_ns()}"
        work.mkdir()
        write_chapter(work / "ch.json", paragraphs, translated=False)
        model = server.responder = IdealModel(piece=piece)
        ours, commits, turns, chunks, recorded = asyncio.run(_ours_in_process(server, work / "ch.json"))
        bare = asyncio.run(_bare_in_process(server.base_url, [r.body for r in recorded]))
        per_turn_commit.append(commits / turns)
        per_turn_else.append((ours - bare - commits) / turns)
        turns_per_chunk.append(turns / chunks)
        events_per_turn.append(model.events / turns)
    print(f"2. per-turn overhead beyond the bare loop, in-process ({paragraphs} paragraphs, {label}, "
          f"~{statistics.median(events_per_turn):.0f} stream events per turn)")
    print(f"   commit (lock, merge, write, fsync) {median_ms(per_turn_commit)} per turn")
    print(f"   everything else                    {median_ms(per_turn_else)} per turn   (goal <= 1 ms)")
    print(f"3. model turns per chunk, ideal model  {statistics.median(turns_per_chunk):8.2f}        (goal 1)")
    return recorded


def bench_prefix(recorded: list[RecordedRequest]) -> None:
    firsts = [r.json for r in recorded if len(r.json["messages"]) == 2]
    pairs = list(itertools.pairwise(firsts))
    same = shared = total = 0
    for a, b in pairs:
        prefix_a = json.dumps([a["messages"][0], a["tools"]], ensure_ascii=False)
        prefix_b = json.dumps([b["messages"][0], b["tools"]], ensure_ascii=False)
        total += len(prefix_a)
        shared += next((i for i, (x, y) in enumerate(zip(prefix_a, prefix_b, strict=False)) if x != y),
                       min(len(prefix_a), len(prefix_b)))
        same += prefix_a == prefix_b
    share = 100 * shared / total if total else 100.0
    print(f"4. system prompt + tools identical between consecutive chunks: {same}/{len(pairs)} pairs, "
          f"{share:.1f} % of {total // max(len(pairs), 1)} bytes   (goal 100 %)")


def bench_jobs(folder: Path, chapters: int, paragraphs: int, latency: float, repeats: int) -> None:
    server = ModelServer().start()
    server.responder = IdealModel(latency)
    try:
        results = {}
        for jobs in (1, chapters):
            times = []
            for _ in range(repeats):
                work = folder / f"jobs{jobs}-{time.perf_counter_ns()}"
                work.mkdir()
                names = []
                for i in range(chapters):
                    write_chapter(work / f"ch{i}.json", paragraphs, translated=False)
                    names.append(f"ch{i}.json")
                times.append(timed([*proofdesk(), "run", *names, "--task", "translate", "--base-url",
                                    server.base_url, "--model", "bench", "--jobs", str(jobs)], work))
            results[jobs] = statistics.median(times)
        print(f"5. {chapters} chapters x {paragraphs} paragraphs, {latency * 1000:.0f} ms per response")
        print(f"   --jobs 1 {results[1]:8.2f} s   --jobs {chapters} {results[chapters]:8.2f} s   "
              f"speed-up {results[1] / results[chapters]:5.2f} x   (goal >= 6x)")
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--paragraphs", type=int, default=300, help="paragraphs per chapter for 1-4")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--jobs-chapters", type=int, default=8)
    parser.add_argument("--jobs-paragraphs", type=int, default=150)
    parser.add_argument("--latency", type=float, default=0.3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="proofdesk-bench-run-"))
    server = ModelServer().start()
    server.responder = IdealModel()
    try:
        recorded = bench_wall(server, args.paragraphs, args.repeats, folder)
        bench_overhead(server, args.paragraphs, args.repeats, folder, 8, "arguments in 8-character fragments")
        bench_overhead(server, args.paragraphs, args.repeats, folder, 1_000_000, "each tool call in one chunk")
        bench_prefix(recorded)
    finally:
        server.stop()
    bench_jobs(folder, args.jobs_chapters, args.jobs_paragraphs, args.latency, max(1, args.repeats // 2))
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
