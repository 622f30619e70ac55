"""Import and export of a 2,000-paragraph, 50-chapter EPUB: median time and peak memory; and whether import and
export are linear in the number of blocks (issue 29: a 125,000-``<p>`` document once kept import busy 229 s).

Run: .venv/bin/python tests/bench/bench_books.py [--linear-only]
Each measurement runs in a fresh subprocess (peak RSS from getrusage, so lxml's C allocations count). The linearity
part times one document of 12,500 blocks and one of 125,000 (every block translated, so the export rewrites each),
the median of a few passes each, and prints the ratio beside the goal: 10x the blocks in at most 12x the time.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNS = 5
LINEAR_RUNS = 3
SIZES = (12_500, 125_000)
GOAL = 12.0  # 10x the blocks in at most 12x the time

CHILD = r"""
import json, shutil, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from store.books.epub_import import import_epub
from store.books.epub_write import export_epub
from store.export_target import check_target
from store.input_limits import ParagraphLimits
book, ws, out, what = map(str, sys.argv[2:6])
t = time.perf_counter()
if what == "import":
    shutil.rmtree(ws, ignore_errors=True)
    import_epub(Path(book), Path(ws), target_language="en", limits=ParagraphLimits.at_most(10**6))
else:
    export_epub(Path(ws), check_target(Path(out), force=True), bilingual=what == "export-bilingual")
elapsed = time.perf_counter() - t
# The peak of this process's own address space (ru_maxrss would also count the process it was forked from).
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"s": elapsed, "rss_mb": hwm / 1024}))
"""


def _translate(ws: Path) -> None:
    from store.loader import load_chapter
    from store.model import TranslationVersion
    from store.serialize import chapter_bytes

    for path in sorted(ws.glob("ch*.json")):
        ch = load_chapter(path)
        paras = []
        for p in ch.paragraphs:
            v = TranslationVersion(
                id="t" + p.id, text="EN " + p.text, origin="translation", created_at="2026-01-01T00:00:00Z"
            )
            paras.append(p if p.is_empty else p.replace(translations=(v,), selected_translation_id=v.id))
        path.write_bytes(chapter_bytes(ch.replace(paragraphs=tuple(paras), title_translation="EN")))


def _measure(book: Path, ws: Path, out: Path, what: str, runs: int) -> list[dict[str, float]]:
    """``runs`` fresh processes doing ``what`` (import, export, export-bilingual); their figures."""
    results = []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(ROOT), str(book), str(ws), str(out), what],
            capture_output=True,
            text=True,
            check=True,
        )
        results.append(json.loads(done.stdout))
    return results


def _median_s(results: list[dict[str, float]]) -> float:
    return statistics.median(r["s"] for r in results)


def _one_document(tmp: Path, blocks: int) -> Path:
    from tests.store.books.epub_builder import build_epub

    body = "".join(f"<p>「おはよう」と彼女は言った。{i}</p>" for i in range(blocks))
    return build_epub(tmp / f"doc{blocks}.epub", [("a.xhtml", "一", body)])


def linearity() -> None:
    """Import and export of one document of each of :data:`SIZES` blocks, side by side, with the ratio."""
    medians: dict[str, list[float]] = {"import": [], "export": []}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for blocks in SIZES:
            book = _one_document(tmp, blocks)
            ws, out = tmp / f"ws{blocks}", tmp / f"out{blocks}.epub"
            medians["import"].append(_median_s(_measure(book, ws, out, "import", LINEAR_RUNS)))
            _translate(ws)
            medians["export"].append(_median_s(_measure(book, ws, out, "export", LINEAR_RUNS)))
    small, big = SIZES
    print(f"one document: {small:,} vs {big:,} blocks ({big // small}x), median of {LINEAR_RUNS} runs each")
    for what, (fast, slow) in medians.items():
        ratio = slow / fast
        verdict = "ok" if ratio <= GOAL else "OVER"
        print(
            f"{what:7s} {fast * 1000:8.1f} ms  {slow * 1000:9.1f} ms   ratio {ratio:5.2f}x  "
            f"(goal <= {GOAL:.0f}x: {verdict})"
        )


def main() -> None:
    sys.path.insert(0, str(ROOT))
    if "--linear-only" in sys.argv:
        linearity()
        return
    from tests.store.books.epub_builder import build_epub

    sentence = "「おはよう」と彼女は言った。<ruby>羅生門<rt>らしょうもん</rt></ruby>の下で雨やみを待っていた。" * 3
    docs = [
        (f"c{n}.xhtml", f"第{n}章", f"<h1>第{n}章</h1>" + "".join(f"<p>{sentence}{i}</p>" for i in range(39)))
        for n in range(1, 51)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        book = build_epub(Path(tmp) / "big.epub", docs)
        ws, out = Path(tmp) / "ws", Path(tmp) / "out.epub"
        print(f"book: 50 chapters, {50 * 40} paragraphs, {book.stat().st_size // 1024} KiB")
        for what in ("import", "export", "export-bilingual"):
            if what == "export":
                _translate(ws)  # every paragraph gets a selected translation, so export rewrites every block
            results = _measure(book, ws, out, what, RUNS)
            print(
                f"{what:17s} median {statistics.median(r['s'] for r in results) * 1000:7.1f} ms   "
                f"peak RSS median {statistics.median(r['rss_mb'] for r in results):6.1f} MB  ({RUNS} runs)"
            )
    linearity()


if __name__ == "__main__":
    main()
