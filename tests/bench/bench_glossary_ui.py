"""The workstation after a change to a big glossary: the first cursor move, and the event loop meanwhile.

Run: ``.venv/bin/python tests/bench/bench_glossary_ui.py`` (``--entries``, ``--repeats``). Prints medians of:

- ``first move``: keypress to the frame that shows the cursor on the next row, for the first key after the
  glossary file changed (another program's edit). Goal at 100,000 entries: <= 16 ms (the UI loop never parses).
- ``longest stall``: the longest the event loop went without running a 1 ms probe, from that key until the
  screens heard the glossary was read again (the parse runs in a thread worker; what remains is GIL sharing).
- ``reload``: from that key until the screens heard of the new glossary (the worker's read, parse and index).

The app runs headless (``run_test``) on a 2,000-paragraph chapter; frames are timed where Textual hands them to the
terminal (``tests/bench/bench_tui.py``'s ``KeyTimer``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from store.atomic import atomic_write
from store.glossary import Glossary, GlossaryEntry, glossary_bytes
from store.serialize import chapter_bytes
from tests.bench.bench_glossary import glossary_of
from tests.bench.bench_tui import KeyTimer
from tests.bench.chapters import make_chapter


class StallProbe:
    """The longest gap between two runs of a 1 ms sleep on the event loop, while running."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _probe(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            self.longest = max(self.longest, now - last)
            last = now

    def start(self) -> None:
        self.longest = 0.0
        self._task = asyncio.get_running_loop().create_task(self._probe())

    async def stop(self) -> float:
        assert self._task is not None
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        return self.longest


def write_glossary(path: Path, entries: list[GlossaryEntry], extra: int) -> None:
    """The glossary with ``extra`` more made-up entries (each repeat changes the file)."""
    more = [GlossaryEntry(id=f"x{n:07x}", source=f"追加{n}", target=f"extra {n}") for n in range(extra)]
    temp = path.with_name(".glossary.bench")  # as another program saves: a new file renamed into place
    temp.write_bytes(glossary_bytes(Glossary(entries=tuple(entries + more))))
    os.replace(temp, path)


async def settled(app: object) -> None:
    """Until no worker of the app runs (a re-check may cancel the one before it: not a failure here)."""
    while any(w.state.name in ("PENDING", "RUNNING") for w in app.workers):  # type: ignore[attr-defined]
        await asyncio.sleep(0.01)


async def measure(folder: Path, entries: int, repeats: int) -> dict[str, list[float]]:
    from engine.config import load_config, resolve_model
    from store.workspace import Workspace
    from tui.app import ProofdeskApp
    from tui.screens.chapter import ChapterScreen
    from tui.session import WorkspaceSession

    chapter_path = folder / "ch001.json"
    atomic_write(chapter_path, chapter_bytes(make_chapter(2_000)), expect=None)
    glossary_path = folder / "glossary.json"
    terms = glossary_of(entries)
    write_glossary(glossary_path, terms, 0)
    config = load_config()
    ws = WorkspaceSession(Workspace(folder), config, resolve_model(config, model="demo"))
    session = ws.session(chapter_path)
    session.load()
    app = ProofdeskApp(ws, chapter=session, watch=False)
    timer = KeyTimer(app)
    figures: dict[str, list[float]] = {"first move": [], "longest stall": [], "reload": []}
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        await timer.press_down(screen)  # whatever the first look costs, before the measured changes
        await settled(app)
        await pilot.pause()
        probe = StallProbe()
        for n in range(1, repeats + 1):
            write_glossary(glossary_path, terms, n)
            probe.start()
            started = time.perf_counter()
            await timer.press_down(screen)
            while len(ws.glossary.current().entries) != entries + n:  # the worker's read, parse and index
                await asyncio.sleep(0.005)
            figures["reload"].append(time.perf_counter() - started)
            await settled(app)
            figures["longest stall"].append(await probe.stop())
            await pilot.pause()
        figures["first move"] = timer.latencies[1:]
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        figures = asyncio.run(measure(Path(tmp), args.entries, args.repeats))
    print(f"glossary of {args.entries:,} entries, {args.repeats} changes, medians:")
    for name, values in figures.items():
        ms = [v * 1000 for v in values]
        print(f"  {name:14} {statistics.median(ms):9.1f} ms   (min {min(ms):.1f}, max {max(ms):.1f})")


if __name__ == "__main__":
    main()
