"""Exchange formats speed (design section 18): exporting a chapter and reading it back, per format.

Run: ``.venv/bin/python tests/bench/bench_exchange.py [--paragraphs 10000]``. Prints the median of 5 for a chapter of
N paragraphs (the sample cycled, every non-empty one translated; ``tests/bench/chapters.py``): rendering XLIFF 2.1,
XLIFF 1.2, PO and TMX, reading the XLIFF 2.1 and PO back into units, and applying the units to the chapter (an
unchanged round trip, which writes nothing). No goal is set in the design; the figures say what a book costs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from store.formats.import_apply import apply_units
from store.formats.po_read import read_po
from store.formats.po_write import po_text
from store.formats.tmx_write import tmx_bytes
from store.formats.xliff2_write import xliff2_bytes
from store.formats.xliff12_write import xliff12_bytes
from store.formats.xliff_read import read_xliff
from tests.bench.chapters import make_chapter


def median_ms(run: Callable[[], object], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--paragraphs", type=int, default=10_000)
    n = parser.parse_args().paragraphs
    chapter = make_chapter(n)
    named = [("bench.json", chapter)]
    with tempfile.TemporaryDirectory(prefix="bench-exchange-") as folder:
        xlf, po = Path(folder) / "bench.xlf", Path(folder) / "bench.po"
        xlf.write_bytes(xliff2_bytes(named))
        po.write_text(po_text(chapter), "utf-8")
        units = read_xliff(xlf)[0].units
        rows = [
            ("export XLIFF 2.1", lambda: xliff2_bytes(named)),
            ("export XLIFF 1.2", lambda: xliff12_bytes(named)),
            ("export PO", lambda: po_text(chapter)),
            ("export TMX (reviewed pairs)", lambda: tmx_bytes([chapter])),
            ("read XLIFF 2.1 back", lambda: read_xliff(xlf)),
            ("read PO back", lambda: read_po(po)),
            ("apply the units (no change)", lambda: apply_units(chapter, units, suggest=False, reason="bench")),
        ]
        print(f"{n:,} paragraphs; {xlf.stat().st_size / 1e6:.1f} MB of XLIFF 2.1, {po.stat().st_size / 1e6:.1f} MB PO")
        for name, run in rows:
            print(f"  {name:32} {median_ms(run):8.1f} ms")


if __name__ == "__main__":
    main()
