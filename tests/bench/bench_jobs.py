"""``--jobs`` benchmark: many chapters against a slow scripted model, proofdesk beside a minimal asyncio loop.

Run: ``.venv/bin/python tests/bench/bench_jobs.py`` (``--help`` for options). Defaults: 64 chapters x 40
paragraphs, every response 2 s after its request (the scripted server's ``delay_s``), N = 1, 4, 16, 32 chapters
at once. The N = 1 row runs ``--one-chapters`` chapters (16: 64 of them take minutes and tell nothing more).

Each row runs, interleaved, in fresh processes: ``proofdesk run CH... --jobs N`` (this tree), the same with
``--baseline``'s tree when given, and ``reference_jobs.py`` (``reference_loop.py``'s minimal correct loop, at most N
chapters at once by a semaphore, each sending the request bodies a proofdesk run of one chapter sent). Printed:

- wall time from the first request to the exit (start-up is ``bench_run.py``'s) and efficiency against the
  ideal: a chapter needs ``requests x latency`` at least (its requests go one after the other), so
  ``ceil(chapters / N)`` of those is the floor. Goals: >= 0.95 at N = 16, >= 0.9 at 32.
- peak memory of the process (``ru_maxrss`` from ``wait4``). Goal at N = 32: <= 1.5x the minimal loop's.

Medians over ``--repeats`` (1 by default: the latency dominates and the rows take minutes).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.bench_run import ENV, IdealModel, jobs_command, tree_env
from tests.bench.chapters import write_chapter
from tests.support.model_server import ModelServer

REFERENCE = Path(__file__).resolve().with_name("reference_jobs.py")
GOALS = {16: 0.95, 32: 0.9}


def measured(cmd: list[str], cwd: Path, env: dict[str, str], model: IdealModel) -> tuple[float, float]:
    """Seconds from a fresh process's first request (start-up left out: ``bench_run.py`` prices it) to its exit,
    and its peak resident memory in MB (``VmHWM``, read while it runs:
    ``ru_maxrss`` would report this process's own peak, which a child inherits across exec)."""
    started = time.perf_counter()
    model.arrivals = []
    with tempfile.TemporaryFile() as err:
        process = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=err)
        peak = 0.0
        while True:
            peak = max(peak, high_water_mb(process.pid))
            try:
                code = process.wait(timeout=0.02)
                break
            except subprocess.TimeoutExpired:
                continue
        ended = time.perf_counter()
        wall = ended - next((t for t in model.arrivals if t >= started), started)
        if code != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd[:3])} failed ({code}): {err.read().decode(errors='replace')[-2000:]}")
    return wall, peak


def high_water_mb(pid: int) -> float:
    """The process's peak resident memory so far in MB (0 once it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
    return int(found.group(1)) / 1024 if found else 0.0


def chapters_in(folder: Path, count: int, paragraphs: int) -> list[str]:
    folder.mkdir(parents=True)
    names = [f"ch{i:03d}.json" for i in range(count)]
    for name in names:
        write_chapter(folder / name, paragraphs, translated=False)
    return names


def record_bodies(server: ModelServer, folder: Path, paragraphs: int) -> Path:
    """The request bodies of one chapter's proofdesk run (the minimal loop sends them for every chapter)."""
    work = folder / "record"
    names = chapters_in(work, 1, paragraphs)
    before = len(server.requests)
    measured(jobs_command(server, names, 1), work, ENV, model(server))
    bodies = folder / "bodies.json"
    bodies.write_text(json.dumps([r.body.decode() for r in server.requests[before:]]), encoding="utf-8")
    return bodies


def model(server: ModelServer) -> IdealModel:
    responder = server.responder
    assert isinstance(responder, IdealModel)
    return responder


class Row:
    """The figures of one N: wall seconds and peak MB per side."""

    def __init__(self) -> None:
        self.wall: dict[str, list[float]] = {}
        self.peak: dict[str, list[float]] = {}

    def add(self, side: str, figures: tuple[float, float]) -> None:
        self.wall.setdefault(side, []).append(figures[0])
        self.peak.setdefault(side, []).append(figures[1])

    def median(self, side: str) -> tuple[float, float]:
        return statistics.median(self.wall[side]), statistics.median(self.peak[side])


def bench_row(server: ModelServer, args: argparse.Namespace, jobs: int, bodies: Path, repeat: int) -> Row:
    count = args.one_chapters if jobs == 1 else args.chapters
    row = Row()
    for n in range(repeat):
        work = Path(tempfile.mkdtemp(prefix=f"jobs{jobs}-", dir=args.folder))
        sides = {"proofdesk": (jobs_command, ENV), "reference": (None, ENV)}
        if args.baseline is not None:
            sides["baseline"] = (jobs_command, tree_env(args.baseline))
        order = list(sides) if n % 2 == 0 else list(reversed(sides))
        for side in order:
            names = chapters_in(work / side, count, args.paragraphs)
            make, env = sides[side]
            if make is None:
                cmd = [sys.executable, str(REFERENCE), server.base_url, str(jobs), str(bodies), *names]
            else:
                cmd = make(server, names, jobs)
            row.add(side, measured(cmd, work / side, env, model(server)))
        shutil.rmtree(work, ignore_errors=True)
    return row


def report(row: Row, jobs: int, count: int, floor: float) -> None:
    ideal = math.ceil(count / jobs) * floor
    goal = f"(goal >= {GOALS[jobs]})" if jobs in GOALS else ""
    cells = []
    for side in row.wall:
        wall, peak = row.median(side)
        cells.append(f"{side} {wall:7.2f} s eff {ideal / wall:4.2f} {peak:6.1f} MB")
    ours, ref = row.median("proofdesk")[1], row.median("reference")[1]
    memory = f"memory {ours / ref:4.2f}x" + (" (goal <= 1.5x)" if jobs == 32 else "")
    print(f"N={jobs:<3} {count:3} ch  ideal {ideal:6.1f} s | " + " | ".join(cells) + f" | {memory} {goal}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chapters", type=int, default=64)
    parser.add_argument("--one-chapters", type=int, default=16, help="chapters of the N = 1 row")
    parser.add_argument("--paragraphs", type=int, default=40)
    parser.add_argument("--latency", type=float, default=2.0, help="seconds before every response")
    parser.add_argument("--jobs", default="1,4,16,32", help="the values of N")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--baseline", type=Path, help="another checkout of proofdesk, run beside this one")
    args = parser.parse_args()
    args.folder = Path(tempfile.mkdtemp(prefix="proofdesk-bench-jobs-"))
    server = ModelServer().start()
    model = server.responder = IdealModel()
    try:
        bodies = record_bodies(server, args.folder, args.paragraphs)
        requests = len(json.loads(bodies.read_text(encoding="utf-8")))
        model.delay_s = args.latency
        floor = requests * args.latency
        print(
            f"{args.chapters} chapters x {args.paragraphs} paragraphs, {requests} requests per chapter, "
            f"{args.latency:g} s per response: a chapter takes >= {floor:g} s"
        )
        for jobs in (int(j) for j in args.jobs.split(",")):
            row = bench_row(server, args, jobs, bodies, args.repeats)
            report(row, jobs, args.one_chapters if jobs == 1 else args.chapters, floor)
    finally:
        server.stop()
        shutil.rmtree(args.folder, ignore_errors=True)


if __name__ == "__main__":
    main()
