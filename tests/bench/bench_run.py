"""Run benchmark: a whole ``proofdesk run`` against a minimal correct loop doing the same work, side by side.

Run: ``.venv/bin/python tests/bench/bench_run.py`` (``--help`` for options). Every figure is a median of
interleaved repeats, proofdesk's and the reference's measured in the same pass.

The reference (``reference_loop.py``) sends the request bodies the ``proofdesk run`` sent, to the same scripted
server (an ideal model answering at once: it submits the whole chunk in its first answer), streams each answer with
httpx, ``json.loads`` every SSE event, assembles the tool calls and commits every batch durably (whole chapter,
temp file, fsync, rename, folder fsync).

1. Whole run in a fresh process (start-up and shutdown included): proofdesk vs the reference. Goal: <= 1.5x.
   Shutdown: from the process's last line on stderr to its exit, both sides.
2. Per turn, in-process (no start-up): proofdesk's run vs the reference loop, with arguments streamed in
   8-character fragments and with each call in one chunk; the commit's share on our side.
3. Model turns per chunk with the ideal model. Goal: 1.
4. Request prefix: the share of system prompt + tool definitions byte-identical between the first requests of
   consecutive chunks. Goal: all of it.
5. ``--jobs 8`` vs ``--jobs 1`` on 8 chapters with 300 ms server latency per response. Goal: >= 6x.
6. Imports: CPU time (``time.process_time()`` in a fresh interpreter, interpreter start included) to import every
   module a ``proofdesk run`` ends up importing, vs ``import httpx, json``. Goal: <= 2x. Then where it goes: the
   same modules imported in stages (httpx and json; what else the reference loop imports by its end: asyncio,
   anyio, httpcore ...; validation: msgspec (pydantic only if a careful path ran); store; engine and tui; the rest),
   each stage's CPU time.

Subprocesses run with bytecode cached (``PYTHONPYCACHEPREFIX``), as a user's second start would, even when the
environment sets ``PYTHONDONTWRITEBYTECODE``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
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
from engine.run import run_chapter
from engine.run_request import RunRequest
from store import commit as commit_module
from tests.bench.chapters import write_chapter
from tests.bench.reference_loop import reference_run
from tests.support.model_server import ModelServer, RecordedRequest, Scripted, text_reply, tool_reply

ROOT = Path(__file__).resolve().parents[2]
ID_LINE = re.compile(r"^\[\d+\] \[ID: ([^\]\s]+)\]", re.M)
REFERENCE = Path(__file__).resolve().with_name("reference_loop.py")
# Subprocesses import this very tree (not whatever the venv's editable install points at), with bytecode cached as
# on a user's machine from the second start on (in a folder of its own: no __pycache__ in the tree), even where the
# environment says PYTHONDONTWRITEBYTECODE (compiling our sources from scratch costs ~90 ms per start here).
ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "PYTHONPATH": str(ROOT),
    "PYTHONPYCACHEPREFIX": str(Path(tempfile.gettempdir()) / "proofdesk-bench-pycache"),
}


class IdealModel:
    """A model that submits every paragraph of its chunk in its first answer, then has nothing to add.

    ``piece``: argument characters per stream chunk (8 is like OpenAI's token-sized fragments; a large
    value sends each call whole, as Ollama or Groq do). ``events`` counts the stream events sent, ``arrivals``
    holds when each request came in (``time.perf_counter()``).
    """

    def __init__(self, delay_s: float = 0.0, piece: int = 8) -> None:
        self.delay_s = delay_s
        self.piece = piece
        self.events = 0
        self.arrivals: list[float] = []

    def __call__(self, request: RecordedRequest) -> Scripted:
        self.arrivals.append(time.perf_counter())
        messages = request.json["messages"]
        if any(m["role"] == "tool" for m in messages):
            reply = text_reply("Done.")
        else:
            ids = ID_LINE.findall(messages[1]["content"])
            items = [{"paragraph_id": pid, "translated_text": f"translation of {pid}"} for pid in ids]
            calls = [("add_translation_batch", {"paragraphs": items[i : i + 20]}) for i in range(0, len(items), 20)]
            reply = tool_reply(calls, piece=self.piece)
        self.events += reply.body.count(b"data:")
        return Scripted(reply.status, reply.headers, reply.body, delay_s=self.delay_s)


def proofdesk() -> list[str]:
    binary = Path(sys.executable).with_name("proofdesk")
    return [str(binary)] if binary.exists() else [sys.executable, "-m", "tui.cli"]


def tree_env(root: Path) -> dict[str, str]:
    """ENV for the proofdesk of another checkout (``--baseline``): its sources, its own bytecode folder."""
    cache = Path(tempfile.gettempdir()) / f"proofdesk-bench-pycache-{abs(hash(str(root.resolve())))}"
    return {**ENV, "PYTHONPATH": str(root), "PYTHONPYCACHEPREFIX": str(cache)}


def timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """Wall seconds of a fresh process, of its shutdown (from its last line on stderr to its exit), and when it
    was started (``time.perf_counter()``)."""
    started = time.perf_counter()
    process = subprocess.Popen(cmd, cwd=cwd, env=env or ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    last_line_at = started
    tail: list[bytes] = []
    for line in process.stderr:  # stderr is line-buffered: each line arrives when written
        last_line_at = time.perf_counter()
        tail = [*tail[-20:], line]
    code = process.wait()
    ended = time.perf_counter()
    if code != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({code}): {b''.join(tail).decode(errors='replace')}")
    return ended - started, ended - last_line_at, started


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:8.1f} ms"


def ratio(ours: list[float], reference: list[float]) -> float:
    return statistics.median(ours) / statistics.median(reference)


def fresh_chapter(folder: Path, label: str, paragraphs: int) -> Path:
    work = folder / f"{label}-{time.perf_counter_ns()}"
    work.mkdir()
    write_chapter(work / "ch.json", paragraphs, translated=False)
    return work


def jobs_command(server: ModelServer, names: list[str], jobs: int) -> list[str]:
    """``proofdesk run`` of the chapters ``names`` with ``--jobs``, against the scripted server."""
    return [
        *proofdesk(),
        *("run", *names, "--task", "translate", "--base-url", server.base_url, "--model", "bench"),
        *("--jobs", str(jobs)),
    ]


def proofdesk_run(server: ModelServer, work: Path, *extra: str) -> tuple[float, float, list[RecordedRequest]]:
    before = len(server.requests)
    wall, shutdown, _ = timed(
        [
            *proofdesk(),
            "run",
            "ch.json",
            "--task",
            "translate",
            "--base-url",
            server.base_url,
            "--model",
            "bench",
            *extra,
        ],
        work,
    )
    return wall, shutdown, server.requests[before:]


def bench_wall(
    server: ModelServer, paragraphs: int, repeats: int, folder: Path, baseline: Path | None = None
) -> list[RecordedRequest]:
    _, _, recorded = proofdesk_run(server, fresh_chapter(folder, "warm", paragraphs))  # warm-up; its bodies
    bodies = folder / "bodies.json"
    bodies.write_text(json.dumps([r.body.decode() for r in recorded]), encoding="utf-8")
    model = server.responder
    assert isinstance(model, IdealModel)
    ours, ours_down, ours_start, ref, ref_down, ref_start = [], [], [], [], [], []
    base: list[float] = []
    base_down: list[float] = []
    base_start: list[float] = []
    run_cmd = [*proofdesk(), "run", "ch.json", "--task", "translate", "--base-url", server.base_url, "--model", "bench"]

    def start_up(
        cmd: list[str],
        work: Path,
        walls: list[float],
        downs: list[float],
        starts: list[float],
        env: dict[str, str] | None = None,
    ) -> None:
        seen = len(model.arrivals)
        wall, down, started = timed(cmd, work, env)
        walls.append(wall)
        downs.append(down)
        starts.append(model.arrivals[seen] - started)  # until the first request reached the server

    for repeat in range(repeats):

        def run_ours() -> None:
            start_up(run_cmd, fresh_chapter(folder, "wall", paragraphs), ours, ours_down, ours_start)

        def run_baseline() -> None:
            if baseline is not None:
                work = fresh_chapter(folder, "base", paragraphs)
                start_up(run_cmd, work, base, base_down, base_start, tree_env(baseline))

        def run_reference() -> None:
            start_up(
                [sys.executable, str(REFERENCE), server.base_url, "ch.json", str(bodies)],
                fresh_chapter(folder, "ref", paragraphs),
                ref,
                ref_down,
                ref_start,
            )

        for step in (
            (run_ours, run_baseline, run_reference) if repeat % 2 == 0 else (run_reference, run_baseline, run_ours)
        ):
            step()
    print(
        f"1. whole run, {paragraphs} paragraphs, {len(recorded)} requests, fresh process each "
        f"(start-up and shutdown included), {repeats} interleaved repeats"
    )
    print(
        f"   proofdesk run   {ms(ours)}   of which start-up to the first request {ms(ours_start)}, "
        f"shutdown {ms(ours_down)}"
    )
    print(
        f"   reference loop  {ms(ref)}   of which start-up to the first request {ms(ref_start)}, "
        f"shutdown {ms(ref_down)}"
    )
    alive = ratio(
        [a - b for a, b in zip(ours, ours_down, strict=True)], [a - b for a, b in zip(ref, ref_down, strict=True)]
    )
    print(f"   ratio           {ratio(ours, ref):8.2f} x   (goal <= 1.5x); without either shutdown {alive:.2f} x")
    if baseline is not None:
        print(
            f"   baseline {baseline}: {ms(base)}   of which start-up to the first request {ms(base_start)}; "
            f"this tree / baseline {ratio(ours, base):.3f} x, baseline / reference {ratio(base, ref):.2f} x"
        )
    return recorded


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


def bench_turns(
    server: ModelServer, paragraphs: int, repeats: int, folder: Path, piece: int, label: str
) -> list[RecordedRequest]:
    ours, ref, commit_share, turns_per_chunk, events_per_turn = [], [], [], [], []
    recorded: list[RecordedRequest] = []
    for repeat in range(repeats + 1):  # the first pass warms caches and is not counted
        model = server.responder = IdealModel(piece=piece)
        work = fresh_chapter(folder, "turns", paragraphs)
        elapsed, commits, turns, chunks, recorded = asyncio.run(_ours_in_process(server, work / "ch.json"))
        work = fresh_chapter(folder, "turns-ref", paragraphs)
        started = time.perf_counter()
        asyncio.run(reference_run(server.base_url, work / "ch.json", [r.body for r in recorded]))
        ref_elapsed = time.perf_counter() - started
        if repeat:
            ours.append(elapsed / turns)
            ref.append(ref_elapsed / turns)
            commit_share.append(commits / turns)
            turns_per_chunk.append(turns / chunks)
            events_per_turn.append(model.events / 2 / turns)  # the reference was answered too
    print(
        f"2. per turn, in-process ({paragraphs} paragraphs, {label}, "
        f"~{statistics.median(events_per_turn):.0f} stream events per turn)"
    )
    print(f"   proofdesk run   {ms(ours)} per turn, of which commit (lock, merge, write, fsync) {ms(commit_share)}")
    print(f"   reference loop  {ms(ref)} per turn")
    print(f"   ratio           {ratio(ours, ref):8.2f} x")
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
        shared += next(
            (i for i, (x, y) in enumerate(zip(prefix_a, prefix_b, strict=False)) if x != y),
            min(len(prefix_a), len(prefix_b)),
        )
        same += prefix_a == prefix_b
    share = 100 * shared / total if total else 100.0
    print(
        f"4. system prompt + tools identical between consecutive chunks: {same}/{len(pairs)} pairs, "
        f"{share:.1f} % of {total // max(len(pairs), 1)} bytes   (goal 100 %)"
    )


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
                times.append(timed(jobs_command(server, names, jobs), work)[0])
            results[jobs] = statistics.median(times)
        print(f"5. {chapters} chapters x {paragraphs} paragraphs, {latency * 1000:.0f} ms per response")
        print(
            f"   --jobs 1 {results[1]:8.2f} s   --jobs {chapters} {results[chapters]:8.2f} s   "
            f"speed-up {results[1] / results[chapters]:5.2f} x   (goal >= 6x)"
        )
    finally:
        server.stop()


LIST_MODULES = r"""
import sys
from tui.cli import main
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as out:
    out.write("\n".join(sorted(name for name in sys.modules if name != "__main__")))
"""
# CPU time after importing each group of modules in turn (a group's own imports are charged to it).
IMPORT_STAGES = r"""
import json, sys, time
stages = json.load(open(sys.argv[1]))
marks = [time.process_time()]
for names in stages:
    for name in names:
        try:
            __import__(name)
        except Exception:
            pass
    marks.append(time.process_time())
print(json.dumps(marks))
"""
# A run validates with msgspec; pydantic comes only with a careful path (bad input), so this stage should hold none.
VALIDATION = ("msgspec", "typing_extensions", "pydantic", "pydantic_core", "annotated_types", "typing_inspection")


def run_modules(server: ModelServer, folder: Path, paragraphs: int) -> tuple[list[str], list[str]]:
    """The modules a whole ``proofdesk run`` has imported by its end (lazy ones included), and the reference's."""
    work = fresh_chapter(folder, "modules", paragraphs)
    listing = folder / "modules.txt"
    subprocess.run(
        [
            sys.executable,
            "-c",
            LIST_MODULES,
            str(listing),
            "run",
            "ch.json",
            "--task",
            "translate",
            "--base-url",
            server.base_url,
            "--model",
            "bench",
        ],
        cwd=work,
        env=ENV,
        check=True,
        capture_output=True,
    )
    bodies = folder / "modules-bodies.json"
    bodies.write_text(json.dumps([r.body.decode() for r in server.requests[-2:]]), encoding="utf-8")
    reference = folder / "reference-modules.txt"
    subprocess.run(
        [sys.executable, str(REFERENCE), server.base_url, "ch.json", str(bodies), str(reference)],
        cwd=work,
        env=ENV,
        check=True,
        capture_output=True,
    )
    return listing.read_text().split(), [m for m in reference.read_text().split() if not m.startswith("tests")]


def stages_cpu(stages: list[list[str]], folder: Path) -> list[float]:
    """CPU seconds of interpreter start and of each stage, in a fresh interpreter."""
    plan = folder / f"stages-{time.perf_counter_ns()}.json"
    plan.write_text(json.dumps(stages), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_STAGES, str(plan)], env=ENV, check=True, capture_output=True, text=True
    )
    marks = json.loads(done.stdout)
    return [marks[0]] + [b - a for a, b in itertools.pairwise(marks)]


def bench_imports(server: ModelServer, folder: Path, paragraphs: int, repeats: int) -> None:
    ours, reference = run_modules(server, folder, paragraphs)
    base = ["httpx", "json"]
    loop_rest = [m for m in reference if m not in base]
    validation = [m for m in ours if m.split(".")[0] in VALIDATION]
    store = [m for m in ours if m.split(".")[0] == "store"]
    own = [m for m in ours if m.split(".")[0] in ("engine", "tui")]
    rest = [m for m in ours if m not in {*base, *loop_rest, *validation, *store, *own}]
    stages = [base, loop_rest, validation, store, own, rest]
    names = [
        "interpreter start",
        "import httpx, json",
        "the rest of the reference loop's modules (asyncio, anyio, httpcore, h11 ...)",
        "validation: msgspec and its dependencies (pydantic only for bad input)",
        "store",
        "engine and tui",
        "the rest of a run's modules",
    ]
    ours_total, reference_total, floor_total = [], [], []
    parts: list[list[float]] = [[] for _ in names]
    for _ in range(repeats):
        staged = stages_cpu(stages, folder)
        for i, value in enumerate(staged):
            parts[i].append(value)
        ours_total.append(sum(staged))
        reference_total.append(cpu_seconds(IMPORT_REFERENCE))
        floor_total.append(cpu_seconds(IMPORT_FLOOR, *loop_rest))
    print(f"6. imports, CPU time in a fresh interpreter (interpreter start included), {repeats} interleaved repeats")
    print(f"   the {len(ours)} modules of a proofdesk run  {ms(ours_total)}")
    print(f"   import httpx, json                  {ms(reference_total)}")
    print(f"   ratio                               {ratio(ours_total, reference_total):8.2f} x   (goal <= 2x)")
    floor = ratio(floor_total, reference_total)
    print(
        f"   floor with a validated config       {ms(floor_total)}  = {floor:.2f} x: the reference loop's modules "
        "and one msgspec struct that forbids unknown keys (how a run's config is read), none of ours"
    )
    print("   where a run's import time goes (each stage on top of the ones before):")
    for name, values in zip(names, parts, strict=True):
        print(f"     {ms(values)}  {name}")


IMPORT_REFERENCE = "import time, httpx, json; print(time.process_time())"
# The least any run validating its config imports: the reference loop's modules, then one msgspec struct.
IMPORT_FLOOR = r"""
import sys, time, httpx, json
for name in sys.argv[1:]:
    try:
        __import__(name)
    except Exception:
        pass
import msgspec
class Run(msgspec.Struct, forbid_unknown_fields=True):
    chunk_chars: int = 4000
msgspec.convert({"chunk_chars": 3000}, Run)
print(time.process_time())
"""


def cpu_seconds(code: str, *args: str) -> float:
    done = subprocess.run([sys.executable, "-c", code, *args], env=ENV, check=True, capture_output=True, text=True)
    return float(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--paragraphs", type=int, default=400, help="paragraphs per chapter for 1-4 and 6")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--jobs-chapters", type=int, default=8)
    parser.add_argument("--jobs-paragraphs", type=int, default=150)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--only", default="123456", help="which sections to run, e.g. 16")
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another checkout of proofdesk, run interleaved with this one in section 1 (is a change slower?)",
    )
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="proofdesk-bench-run-"))
    server = ModelServer().start()
    server.responder = IdealModel()
    try:
        if "1" in args.only:
            bench_wall(server, args.paragraphs, args.repeats, folder, args.baseline)
        if set("234") & set(args.only):
            recorded = bench_turns(
                server, args.paragraphs, args.repeats, folder, 8, "arguments in 8-character fragments"
            )
            bench_turns(server, args.paragraphs, args.repeats, folder, 1_000_000, "each tool call in one chunk")
            bench_prefix(recorded)
        if "6" in args.only:
            bench_imports(server, folder, args.paragraphs, args.repeats)
    finally:
        server.stop()
    if "5" in args.only:
        bench_jobs(folder, args.jobs_chapters, args.jobs_paragraphs, args.latency, max(1, args.repeats // 2))
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
