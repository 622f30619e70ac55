"""TUI benchmark: first paint of a big chapter, keypress-to-screen latency under a stream of events, memory.

Run: ``.venv/bin/python tests/bench/bench_tui.py`` (``--help`` for options). Prints medians.

- ``first paint``: from process start (a fresh interpreter, imports included, bytecode cached as from a user's
  second start) to the first frame that shows the rows of an N-paragraph chapter (default 10,000), the way
  ``proofdesk CHAPTER`` starts (chapter read, watcher on). Goal at 10,000 translated paragraphs: <= 0.8 s.
- ``keypress``: from a key event reaching the app to the first rendered frame that shows its effect (the
  cursor on the next row), while the log pane receives ``--rate`` engine events per second (default 1,000:
  mostly streamed text, some tool calls and errors). Goal: <= 50 ms median.
- ``memory``: resident memory after the first paint of a 100,000-paragraph chapter (and the peak).

Frames are taken where Textual hands them to the terminal (``App._display``), in headless mode: the terminal's
own drawing time is not included.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def _rss_kb(field: str = "VmRSS") -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


# -- the child: one start of the app, timed ---------------------------------------------------------------


def child(path: str, started: float, watch: bool = True, settle: float = 0.0) -> None:
    """Start the app on ``path`` like ``proofdesk PATH``; print JSON with the time of the first paint.

    With ``settle``, also the resident memory that many seconds after the first paint (the watcher has seeded).
    """
    from engine.config import load_config, resolve_model
    from store.workspace import Workspace
    from tui.app import ProofdeskApp
    from tui.screens.chapter import ChapterScreen
    from tui.session import WorkspaceSession

    config = load_config()
    ws = WorkspaceSession(Workspace.for_chapter(path), config, resolve_model(config, model="demo"))
    session = ws.session(Path(path))
    session.load()
    app = ProofdeskApp(ws, chapter=session, watch=watch)
    painted: dict[str, float] = {}
    display = app._display

    def timed_display(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        if (
            "at" not in painted
            and isinstance(screen, ChapterScreen)
            and renderable is not None
            and screen.table.chapter is not None
            and screen.table.size.height > 1
        ):
            painted["at"] = time.time()
            painted["cpu"] = time.process_time()

    app._display = timed_display  # type: ignore[method-assign]

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            while "at" not in painted:
                await pilot.pause(0.005)
            result = {
                "first_paint_s": painted["at"] - started,
                "cpu_s": painted["cpu"],
                "rss_kb": _rss_kb(),
                "peak_kb": _rss_kb("VmHWM"),
            }
            if settle:
                await asyncio.sleep(settle)
                result["settled_rss_kb"] = _rss_kb()
            print(json.dumps(result), flush=True)

    asyncio.run(run())


# A fresh start as a user's second start is: bytecode cached (in a folder of its own, even where the environment
# says PYTHONDONTWRITEBYTECODE; compiling our sources from scratch would add ~100 ms), no configuration file.
CHILD_ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "PYTHONPYCACHEPREFIX": str(Path(tempfile.gettempdir()) / "proofdesk-bench-pycache"),
    "PROOFDESK_CONFIG": os.devnull + ".toml",
}


def start_once(path: Path, *, watch: bool = True, settle: float = 0.0, tree: Path = ROOT) -> dict[str, float]:
    """One fresh start of the app of ``tree`` (this checkout, or ``--baseline``'s) on ``path``."""
    started = time.time()
    out = subprocess.run(
        [
            sys.executable,
            str(tree / "tests" / "bench" / "bench_tui.py"),
            "--child",
            str(path),
            "--started",
            repr(started),
            "--watch",
            "on" if watch else "off",
            "--settle",
            repr(settle),
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tree,
        env=CHILD_ENV
        if tree == ROOT
        else {**CHILD_ENV, "PYTHONPYCACHEPREFIX": CHILD_ENV["PYTHONPYCACHEPREFIX"] + "-base"},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


class KeyTimer:
    """Times keypress to screen: from sending ``down`` to the first frame with the cursor one row lower.

    Hooks the app's ``_display`` (where Textual hands a frame to the terminal).
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.latencies: list[float] = []
        self._waiting: dict[str, Any] = {}
        display = app._display

        def timed_display(screen: Any, renderable: Any) -> None:
            from tui.screens.chapter import ChapterScreen

            display(screen, renderable)
            target = self._waiting.get("cursor")
            if target is not None and isinstance(screen, ChapterScreen) and screen.table.cursor == target:
                self.latencies.append(time.perf_counter() - self._waiting.pop("sent"))
                self._waiting.pop("cursor")
                self._waiting["done"].set()

        app._display = timed_display

    async def press_down(self, screen: Any) -> None:
        """Send one ``down`` as a terminal would and wait for the frame that shows it."""
        from textual import events

        done = asyncio.Event()
        self._waiting.update(cursor=screen.table.cursor + 1, done=done, sent=time.perf_counter())
        key = events.Key("down", None)
        key.set_sender(self.app)
        driver = self.app._driver
        assert driver is not None
        driver.send_message(key)
        await asyncio.wait_for(done.wait(), 10)


# -- keypress latency under an event stream ----------------------------------------------------------------


async def keypress_latency(path: Path, rate: int, presses: int) -> list[float]:

    from engine.config import load_config, resolve_model
    from engine.events import ModelDelta, ModelRequest, ToolCalled, ToolResult
    from store.workspace import Workspace
    from tui.app import ProofdeskApp
    from tui.messages import EngineEventReceived
    from tui.screens.chapter import ChapterScreen
    from tui.session import WorkspaceSession

    config = load_config()
    ws = WorkspaceSession(Workspace.for_chapter(path), config, resolve_model(config, model="demo"))
    session = ws.session(path)
    session.load()
    app = ProofdeskApp(ws, chapter=session, watch=False)
    timer = KeyTimer(app)

    def events_batch(n: int, counter: int) -> list[Any]:
        out: list[Any] = []
        for i in range(n):
            k = counter + i
            if k % 100 == 0:
                out.append(ModelRequest(run_id="b", chunk=1, turn=k, message_count=4, tool_names=("x",)))
            elif k % 50 == 0:
                out.append(
                    ToolCalled(
                        run_id="b",
                        chunk=1,
                        turn=1,
                        call_id=f"c{k}",
                        name="get_next_paragraphs",
                        arguments={"paragraph_id": "e58ed763", "count": 3},
                    )
                )
            elif k % 50 == 1:
                out.append(
                    ToolResult(
                        run_id="b",
                        chunk=1,
                        turn=1,
                        call_id=f"c{k}",
                        name="get_next_paragraphs",
                        success=False,
                        error_code="CHUNK_BOUNDARY",
                        result={"success": False, "error": "beyond the chunk"},
                    )
                )
            else:
                out.append(ModelDelta(run_id="b", chunk=1, turn=1, channel="text", text="word "))
        return out

    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        await pilot.pause(0.5)
        stop = asyncio.Event()

        async def feed() -> None:
            tick, counter = 0.01, 0
            per_tick = max(int(rate * tick), 1)
            next_at = time.perf_counter()
            while not stop.is_set():
                for event in events_batch(per_tick, counter):
                    screen.post_message(EngineEventReceived(event, path))
                counter += per_tick
                next_at += tick
                await asyncio.sleep(max(next_at - time.perf_counter(), 0))

        feeder = asyncio.create_task(feed()) if rate else None
        await asyncio.sleep(0.5)
        for _ in range(presses):
            await timer.press_down(screen)
            await asyncio.sleep(0.05)  # a person types a few keys a second
        stop.set()
        if feeder is not None:
            await feeder
    return timer.latencies


async def keypress_during_run(path: Path, latency: float, presses: int) -> tuple[list[float], int]:
    """Keypress to screen while a real translate run commits batch after batch into ``path``.

    The model is the scripted server answering each chunk after ``latency`` seconds with one call that
    submits the whole chunk; the app runs the run as the ``t`` key does (its worker, its store, the watcher
    on). Returns the latencies and how many batches were committed while the keys were timed.
    """

    from engine.config import load_config, resolve_model
    from engine.events import BatchCommitted
    from store.workspace import Workspace
    from tests.bench.bench_run import IdealModel
    from tests.support.model_server import ModelServer
    from tui.app import ProofdeskApp
    from tui.messages import EngineEventReceived
    from tui.screens.chapter import ChapterScreen
    from tui.session import WorkspaceSession

    server = ModelServer().start()
    server.responder = IdealModel(latency)
    try:
        config = load_config()
        model = resolve_model(config, model="bench", base_url=server.base_url)
        ws = WorkspaceSession(Workspace.for_chapter(path), config, model)
        session = ws.session(path)
        session.load()
        app = ProofdeskApp(ws, chapter=session)
        timer = KeyTimer(app)
        commits = {"n": 0}

        def hook(message: Any) -> None:
            if isinstance(message, EngineEventReceived) and isinstance(message.event, BatchCommitted):
                commits["n"] += 1

        async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
            screen = app.screen
            assert isinstance(screen, ChapterScreen)
            while app.seeding:
                await pilot.pause(0.05)
            await pilot.press("t")
            while commits["n"] < 1:  # the run is under way and has committed once
                await pilot.pause(0.05)
            counted_from = commits["n"]
            for _ in range(presses):
                await timer.press_down(screen)
                await asyncio.sleep(0.05)  # a person types a few keys a second
            committed = commits["n"] - counted_from
            await pilot.press("x")
            while screen.run_in_progress:
                await pilot.pause(0.05)
    finally:
        server.stop()
    return timer.latencies, committed


def first_paint(path: Path, paragraphs: int, starts: int, baseline: Path | None) -> None:
    """The first-paint row: this tree's starts (and the baseline's, in turns), medians."""
    trees = {"this tree": ROOT} if baseline is None else {"this tree": ROOT, "baseline": baseline.resolve()}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for n in range(starts):
        for name in trees if n % 2 == 0 else reversed(trees):
            runs[name].append(start_once(path, tree=trees[name]))
    size_mb = path.stat().st_size / 1e6
    for name, results in runs.items():
        times = [r["first_paint_s"] for r in results]
        cpu = statistics.median(r.get("cpu_s", 0.0) for r in results)
        print(
            f"first paint, {paragraphs:,} paragraphs ({size_mb:.1f} MB), {name}: median "
            f"{statistics.median(times) * 1000:.0f} ms over {starts} starts (min {min(times) * 1000:.0f}, "
            f"max {max(times) * 1000:.0f}; goal <= 800 ms); CPU time of every thread until then "
            f"{cpu * 1000:.0f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--paragraphs", type=int, default=10_000, help="chapter size for first paint and keys")
    parser.add_argument("--memory-paragraphs", type=int, default=100_000, help="chapter size for memory (0: skip)")
    parser.add_argument("--starts", type=int, default=5, help="fresh starts for the first-paint median")
    parser.add_argument("--rate", type=int, default=1000, help="engine events per second during the key test")
    parser.add_argument("--presses", type=int, default=60, help="key presses timed")
    parser.add_argument("--latency", type=float, default=0.3, help="model latency per answer during the run test")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--started", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--watch", default="on", help=argparse.SUPPRESS)
    parser.add_argument(
        "--settle",
        type=float,
        default=30.0,
        help="seconds after the first paint at which memory is taken, watcher on vs off",
    )
    parser.add_argument("--baseline", type=Path, help="another checkout: its first paint, started in turns with ours")
    parser.add_argument("--paint-only", action="store_true", help="first paint only")
    args = parser.parse_args()
    if args.child:
        child(args.child, args.started, args.watch == "on", args.settle)
        return

    from tests.bench.chapters import write_chapter

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "bench.json"
        write_chapter(path, args.paragraphs)
        first_paint(path, args.paragraphs, args.starts, args.baseline)
        if args.paint_only:
            return

        for rate in (0, args.rate):
            lat = asyncio.run(keypress_latency(path, rate, args.presses))
            print(
                f"keypress to screen, {rate:,} events/s: median {statistics.median(lat) * 1000:.1f} ms, "
                f"p90 {statistics.quantiles(lat, n=10)[-1] * 1000:.1f} ms over {len(lat)} presses"
            )

        untranslated = folder / "run.json"
        write_chapter(untranslated, args.paragraphs, translated=False)
        lat, committed = asyncio.run(keypress_during_run(untranslated, args.latency, args.presses))
        print(
            f"keypress to screen during a run that commits ({committed} batches committed while timing, model "
            f"latency {args.latency * 1000:.0f} ms): median {statistics.median(lat) * 1000:.1f} ms, "
            f"p90 {statistics.quantiles(lat, n=10)[-1] * 1000:.1f} ms over {len(lat)} presses "
            "(goal: median <= 30 ms, p90 <= 60 ms)"
        )

        if args.memory_paragraphs:
            big = folder / "big.json"
            write_chapter(big, args.memory_paragraphs)
            on = start_once(big, watch=True, settle=args.settle)
            off = start_once(big, watch=False, settle=args.settle)
            print(
                f"memory, {args.memory_paragraphs:,} paragraphs ({big.stat().st_size / 1e6:.0f} MB on disk), "
                f"{args.settle:.0f} s after first paint: watcher on {on['settled_rss_kb'] / 1024:.0f} MB, off "
                f"{off['settled_rss_kb'] / 1024:.0f} MB, ratio {on['settled_rss_kb'] / off['settled_rss_kb']:.2f} x "
                f"(goal <= 1.2x); at first paint {on['rss_kb'] / 1024:.0f} MB, peak {on['peak_kb'] / 1024:.0f} MB; "
                f"first paint {on['first_paint_s']:.1f} s"
            )


if __name__ == "__main__":
    main()
