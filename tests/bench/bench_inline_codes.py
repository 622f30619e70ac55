"""Import and export of a book whose every paragraph holds inline markup (issue 29: inline codes), beside the same
book in plain paragraphs, at 2,000 and 20,000 paragraphs: what the codes cost, and that the cost is linear.

Run: .venv/bin/python tests/bench/bench_inline_codes.py
Goal: 10x the paragraphs within 12x the time. The coded/plain ratio is shown for information (a coded paragraph
here holds six inline elements and four times the markup of a plain one).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNS = 3
CODED = (
    '「おはよう」と<em class="e">彼女</em>は<a href="c1.xhtml#p{i}" id="a{n}_{i}">言った</a>'
    '<img src="pic.png" alt="※"/>。<span epub:type="pagebreak" id="pg{n}_{i}"/>'
    '<sup><a epub:type="noteref" href="c1.xhtml#n1">1</a></sup>'
)
PLAIN = "「おはよう」と彼女は言った。※ここで雨やみを待っていた1"


def _book(tmp: Path, coded: bool, paragraphs: int) -> Path:
    from tests.store.books.epub_builder import build_epub

    per_doc = 40
    docs = [
        (
            f"c{n}.xhtml",
            f"第{n}章",
            "".join(f"<p>{(CODED if coded else PLAIN).format(n=n, i=i)}</p>" for i in range(per_doc)),
        )
        for n in range(1, paragraphs // per_doc + 1)
    ]
    return build_epub(tmp / f"{'coded' if coded else 'plain'}-{paragraphs}.epub", docs)


def _translate(ws: Path) -> None:
    from store.loader import load_chapter
    from store.model import TranslationVersion
    from store.serialize import chapter_bytes

    for path in sorted(ws.glob("ch*.json")):
        ch = load_chapter(path)
        paras = []
        for p in ch.paragraphs:
            v = TranslationVersion(id="t" + p.id, text="EN " + p.text, origin="translation", created_at="2026-01-01")
            paras.append(p if p.is_empty else p.replace(translations=(v,), selected_translation_id=v.id))
        path.write_bytes(chapter_bytes(ch.replace(paragraphs=tuple(paras))))


def _median(action: object, runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        action()  # type: ignore[operator]
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _measure(tmp: Path, coded: bool, paragraphs: int) -> tuple[float, float]:
    import shutil

    from store.books.epub_import import import_epub
    from store.books.epub_write import export_epub
    from store.export_target import check_target

    book = _book(tmp, coded, paragraphs)
    ws = tmp / f"ws-{coded}-{paragraphs}"

    def do_import() -> None:
        shutil.rmtree(ws, ignore_errors=True)
        import_epub(book, ws, target_language="en")

    imported = _median(do_import)
    _translate(ws)
    exported = _median(lambda: export_epub(ws, check_target(tmp / "out.epub", force=True)))
    return imported, exported


def main() -> None:
    sys.path.insert(0, str(ROOT))
    rows: dict[tuple[bool, int], tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for paragraphs in (2_000, 20_000):
            for coded in (False, True):
                rows[coded, paragraphs] = _measure(Path(tmp), coded, paragraphs)
    print("paragraphs  kind    import ms  export ms   (median of 3)")
    for (coded, paragraphs), (imp, exp) in rows.items():
        print(f"{paragraphs:10,d}  {'coded' if coded else 'plain':5s}  {imp * 1000:9.0f}  {exp * 1000:9.0f}")
    for paragraphs in (2_000, 20_000):
        (pi, pe), (ci, ce) = rows[False, paragraphs], rows[True, paragraphs]
        print(f"{paragraphs:,} coded/plain: import {ci / pi:.2f}x, export {ce / pe:.2f}x")
    (si, se), (bi, be) = rows[True, 2_000], rows[True, 20_000]
    print(f"coded, 10x the paragraphs: import {bi / si:.1f}x, export {be / se:.1f}x the time (goal <= 12x)")


if __name__ == "__main__":
    main()
