"""Benchmark: the QA checks. ``proofdesk check`` on a big translated chapter and on workspaces, and the cost per
paragraph of the checks a run makes after every committed batch.

Run on demand (pytest does not collect tests/bench):

    .venv/bin/python tests/bench/bench_check.py [--sizes 10000,100000] [--chapters 10,100] [--repeat 5]

Chapters cycle Rashomon's paragraphs (tests/bench/chapters.py), translated two ways:

- clean (ja → en): English-like text of the length the ratio table expects, quotes and end marks mirrored, so
  almost nothing fires: what checking a finished translation costs.
- noisy (ja → zh-Hans, chapters.make_chapter): "訳：" + the Japanese source, so kana and traditional characters
  fire on every paragraph: the cost of finding, formatting and printing thousands of warnings.

Rows (medians; the candidates of a row run in turns, so a busy machine slows them alike):

- ``proofdesk check FILE`` in a fresh process, the way a person runs it (start-up, load, checks, output to a pipe),
  at each size, and the ratio of the largest to the smallest size (linear: about their size ratio);
- the same on a workspace folder of N chapters of 1,000 paragraphs (INCONSISTENT compares them all);
- in process, what the time is made of: loading the files, and ``check_workspace``;
- in the loop: ``batch_warnings`` on batches of 20 paragraphs, per paragraph (goal: < 1 ms), and on the longest
  paragraph of Rashomon alone.
- in the workstation: ``ChapterChecks.update`` (what the chapter view's checks thread computes) after one edited
  translation, after a batch of 20 committed paragraphs, after a dismissal and for the same state again, each
  beside the checks of that state from scratch.
- with a glossary (``--glossary 0,8000,100000``): ``ChapterChecks.of`` of a clean chapter of
  ``--glossary-paragraphs`` paragraphs with that many approved entries (the sample's real terms, then made-up
  kanji terms: ``bench_glossary.glossary_of``), per paragraph, and ``batch_warnings`` of batches of 20 with them;
  the terms are prepared first, as a glossary snapshot prepares them (that time is printed beside).
  ``--only glossary`` runs this row alone.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.checks import GlossaryTerm, batch_warnings, check_workspace, dismiss
from engine.checks.incremental import ChapterChecks
from engine.checks.length_ratio import letters
from store.atomic import atomic_write
from store.loader import load_chapter
from store.model import Chapter, Paragraph, TranslationVersion
from store.serialize import chapter_bytes
from tests.bench.chapters import make_chapter, paragraph_id, source_lines

ROOT = Path(__file__).resolve().parents[2]
_WORDS = (
    "the",
    "servant",
    "waited",
    "under",
    "wide",
    "gate",
    "while",
    "cold",
    "rain",
    "fell",
    "on",
    "Suzaku",
    "avenue",
    "and",
    "nobody",
    "came",
    "near",
    "old",
    "woman",
    "held",
    "pine",
    "torch",
    "above",
    "corpses",
    "pulling",
    "long",
    "hair",
    "one",
    "by",
    "one",
    "from",
    "dead",
    "heads",
    "until",
    "his",
    "heart",
    "turned",
    "hard",
    "as",
    "steel",
    "night",
)
_STAMP = "2026-11-21T10:00:00Z"


def english_like(source: str) -> str:
    """Deterministic English-like text for ``source`` at the ja → en ratio, with its quotes and end mark."""
    body = source.strip("\u3000 ")
    want = round(letters(body) * 2.2)
    start = sum(map(ord, body)) % len(_WORDS)
    sentences: list[str] = []
    words: list[str] = []
    count = 0
    k = start
    while count < want:
        word = _WORDS[k % len(_WORDS)]
        k += 7
        words.append(word)
        count += len(word)
        if len(words) == 9:
            sentences.append(" ".join(words).capitalize())
            words = []
    if words:
        sentences.append(" ".join(words).capitalize())
    if "「" in body and not body.startswith("「"):  # narration quoting words: quote some words too
        first = sentences[0].split(" ")
        sentences[0] = " ".join([*first[:2], "“" + " ".join(first[2:5]) + "”", *first[5:]])
    text = ". ".join(sentences)
    end = body.rstrip("」』）")[-1:] if body else ""
    text += {"？": "?", "！": "!", "…": "…"}.get(end, ".")
    if body.startswith("「") and body.endswith("」"):
        text = f"“{text}”"
    return text


def clean_chapter(n: int, chapter_id: str = "bench") -> Chapter:
    """``n`` paragraphs of Rashomon, ja → en, each non-empty one with an English-like translation."""
    lines = source_lines()
    made: dict[str, str] = {}
    paragraphs = []
    for i in range(n):
        text = lines[i % len(lines)]
        if not text.strip():
            paragraphs.append(Paragraph(id=paragraph_id(i), text=text))
            continue
        translation = made.get(text) or made.setdefault(text, english_like(text))
        version = TranslationVersion(
            id=f"{(i * 40503 + 7) % 2**32:08x}",
            text=translation,
            origin="translation",
            model="bench-model",
            created_at=_STAMP,
        )
        paragraphs.append(
            Paragraph(id=paragraph_id(i), text=text, translations=(version,), selected_translation_id=version.id)
        )
    return Chapter(
        id=chapter_id, title="羅生門", source_language="ja", target_language="en", paragraphs=tuple(paragraphs)
    )


def build(kind: str, n: int, chapter_id: str = "bench") -> Chapter:
    return clean_chapter(n, chapter_id) if kind == "clean" else make_chapter(n, chapter_id=chapter_id)


def write(path: Path, chapter: Chapter) -> None:
    atomic_write(path, chapter_bytes(chapter), expect=None)


def cli(*argv: str) -> tuple[float, int, int]:
    """``proofdesk check ARGV`` in a fresh process: wall ms, exit code, lines printed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tui.cli", "check", *argv], capture_output=True, env=env, check=False)
    wall = (time.perf_counter() - start) * 1000
    if done.returncode not in (0, 1):
        raise SystemExit(done.stderr.decode())
    return wall, done.returncode, done.stdout.count(b"\n")


def in_turns(candidates: dict[str, Callable[[], float]], repeat: int) -> dict[str, float]:
    """Median of each candidate's figure, the candidates taking turns (an untimed gc.collect() before each)."""
    samples: dict[str, list[float]] = {name: [] for name in candidates}
    for _ in range(repeat):
        for name, run in candidates.items():
            gc.collect()
            samples[name].append(run())
    return {name: statistics.median(values) for name, values in samples.items()}


def timed_ms(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def bench_cli(folder: Path, sizes: list[int], chapter_counts: list[int], repeat: int) -> None:
    for kind in ("clean", "noisy"):
        paths: dict[str, Path] = {}
        for n in sizes:
            path = folder / f"{kind}-{n}.json"
            write(path, build(kind, n))
            paths[f"chapter of {n:,}"] = path
        for count in chapter_counts:
            ws = folder / f"{kind}-ws-{count}"
            ws.mkdir()
            for c in range(count):
                write(ws / f"ch{c + 1:03d}.json", build(kind, 1000, f"ch{c + 1:03d}"))
            paths[f"workspace of {count} x 1,000"] = ws
        lines: dict[str, int] = {}

        def runner(name: str, path: Path, lines: dict[str, int] = lines) -> Callable[[], float]:
            def run() -> float:
                wall, _, printed = cli(str(path))
                lines[name] = printed
                return wall

            return run

        medians = in_turns({name: runner(name, path) for name, path in paths.items()}, repeat)
        print(f"proofdesk check, {kind} translations (fresh process; wall ms)")
        for name, wall in medians.items():
            print(f"  {name:<28} {wall:>9.0f} ms   {lines[name]:>9,} warnings printed")
        chapters = [k for k in medians if k.startswith("chapter")]
        workspaces = [k for k in medians if k.startswith("workspace")]
        for group, scale in ((chapters, sizes), (workspaces, chapter_counts)):
            if len(group) >= 2:
                print(
                    f"  linearity: {group[-1]} / {group[0]} = {medians[group[-1]] / medians[group[0]]:.1f}x "
                    f"(size {scale[-1] / scale[0]:.0f}x)"
                )
        bench_split(paths, repeat)
        print(flush=True)


def bench_split(paths: dict[str, Path], repeat: int) -> None:
    """In process: loading the files vs checking them."""
    print("  in process: load | check_workspace (ms)")
    for name, path in paths.items():
        files = sorted(path.glob("*.json")) if path.is_dir() else [path]
        chapters: list[Chapter] = []

        def load(files: list[Path] = files, chapters: list[Chapter] = chapters) -> float:
            return timed_ms(lambda: chapters.__setitem__(slice(None), [load_chapter(f) for f in files]))

        def check(files: list[Path] = files, chapters: list[Chapter] = chapters) -> float:
            return timed_ms(lambda: check_workspace(chapters, names=[str(f) for f in files]))

        load()
        medians = in_turns({"load": load, "check": check}, max(3, repeat // 2))
        paragraphs = sum(len(c.paragraphs) for c in chapters)
        print(
            f"    {name:<26} {medians['load']:>8.0f} | {medians['check']:>8.0f}   "
            f"({medians['check'] * 1000 / paragraphs:.1f} µs per paragraph)"
        )


def bench_in_loop(repeat: int) -> None:
    """batch_warnings per paragraph, on batches of 20, as add_translation_batch runs it after a commit."""
    print("in the loop: batch_warnings per paragraph (µs; goal < 1,000)")
    longest = max(source_lines(), key=len)
    for kind in ("clean", "noisy"):
        chapter = build(kind, 2000)
        items = [(p.id, p.selected_text) for p in chapter.paragraphs if p.selected_text is not None]
        batches = [items[i : i + 20] for i in range(0, len(items), 20)]
        long_para = next(p for p in chapter.paragraphs if p.text == longest)
        long_batch = [(long_para.id, long_para.selected_text or "")]

        def every(chapter: Chapter = chapter, batches: list = batches, items: list = items) -> float:
            return timed_ms(lambda: [batch_warnings(chapter, b) for b in batches]) * 1000 / len(items)

        def single(chapter: Chapter = chapter, batch: list = long_batch) -> float:
            return timed_ms(lambda: [batch_warnings(chapter, batch) for _ in range(50)]) * 1000 / 50

        every()
        medians = in_turns({"all": every, "longest": single}, repeat)
        found = sum(len(batch_warnings(chapter, b)) for b in batches)
        print(
            f"  {kind:<6} {medians['all']:>7.1f} µs per paragraph ({len(items):,} paragraphs, {found:,} warnings); "
            f"the longest paragraph ({len(longest)} characters): {medians['longest']:.1f} µs"
        )


def _edited(chapter: Chapter, positions: range, text: str) -> Chapter:
    """``chapter`` with a new selected translation ``text`` at ``positions`` (each keeps its other versions)."""
    changed = {}
    for pos in positions:
        para = chapter.paragraphs[pos]
        version = TranslationVersion(id=f"e{pos:07d}", text=text, origin="manual", created_at=_STAMP)
        changed[pos] = para.replace(translations=(*para.translations, version), selected_translation_id=version.id)
    return chapter.with_paragraphs(changed)


def _timer(fn: Callable[[Chapter], object], chapter: Chapter) -> Callable[[], float]:
    return lambda: timed_ms(lambda: fn(chapter))


def bench_incremental(sizes: list[int], repeat: int) -> None:
    """ChapterChecks.of and its updates, as the chapter view's checks thread runs them."""
    print("in the workstation: ChapterChecks (ms; the update reuses the checks of the state before)")
    for kind in ("clean", "noisy"):
        for n in sizes:
            chapter = build(kind, n)
            checks = ChapterChecks.of(chapter)
            middle = n // 2
            first = chapter.paragraphs[middle]
            states = {
                "one edit": _edited(chapter, range(middle, middle + 1), "The servant waited under the gate."),
                "batch of 20": _edited(chapter, range(middle, middle + 20), "The servant waited under the gate."),
                "dismissal": chapter.with_paragraphs(
                    {middle: dismiss(first, "LENGTH_RATIO", first.selected_text or "")}
                ),
                "same state": chapter,
            }
            candidates: dict[str, Callable[[], float]] = {}
            for name, state in states.items():
                candidates[name] = _timer(checks.update, state)
                candidates[f"{name}, from scratch"] = _timer(ChapterChecks.of, state)
            medians = in_turns(candidates, repeat)
            print(f"  {kind:<6} {n:>7,} paragraphs, update (from scratch):")
            for name in states:
                print(f"    {name:<12} {medians[name]:>8.1f} ({medians[f'{name}, from scratch']:.1f})")


_REAL_TARGETS = {
    "下人": "the servant",
    "老婆": "the old woman",
    "羅生門": "Rashomon",
    "死骸": "the corpse",
    "太刀": "the sword",
    "梯子": "the ladder",
}


def bench_terms(size: int) -> tuple[GlossaryTerm, ...]:
    """``size`` approved terms: the sample's real ones with their English targets, then made-up kanji terms."""
    from tests.bench.bench_glossary import glossary_of

    return tuple(GlossaryTerm(e.source, _REAL_TARGETS.get(e.source, e.target), e.aliases) for e in glossary_of(size))


def prepared(terms: tuple[GlossaryTerm, ...]) -> tuple[GlossaryTerm, ...]:
    """The terms as a glossary snapshot hands them to the checks (with their automata built, where the checks have
    them: a snapshot builds them once per version of the file, in the thread that parsed it)."""
    try:
        from engine.checks.glossary import as_terms  # type: ignore[attr-defined,unused-ignore]
    except ImportError:  # before GlossaryTerms: a plain tuple, looked at term by term
        return terms
    return as_terms(terms).prepared()  # type: ignore[no-any-return,unused-ignore]


def bench_with_glossary(sizes: list[int], paragraphs: int, repeat: int) -> None:
    """The checks of a chapter with glossaries of each size (GLOSSARY_NOT_APPLIED looks at every entry)."""
    print(
        f"with a glossary: ChapterChecks.of of a clean {paragraphs:,}-paragraph chapter | batch_warnings (µs per "
        "paragraph; goal for either < 1,000: no check holds the event loop 1 ms a paragraph)"
    )
    chapter = clean_chapter(paragraphs)
    items = [(p.id, p.selected_text) for p in chapter.paragraphs if p.selected_text is not None]
    batches = [items[i : i + 20] for i in range(0, len(items), 20)]
    for size in sizes:
        made = bench_terms(size)
        started = time.perf_counter()
        terms = prepared(made)
        built = (time.perf_counter() - started) * 1000

        def whole(terms: tuple[GlossaryTerm, ...] = terms) -> float:
            return timed_ms(lambda: ChapterChecks.of(chapter, terms)) * 1000 / paragraphs

        def batched(terms: tuple[GlossaryTerm, ...] = terms) -> float:
            return timed_ms(lambda: [batch_warnings(chapter, b, terms) for b in batches]) * 1000 / len(items)

        medians = in_turns({"whole": whole, "batched": batched}, repeat)
        found = ChapterChecks.of(chapter, terms).warnings.paragraphs_per_code().get("GLOSSARY_NOT_APPLIED", 0)
        print(
            f"  {size:>7,} entries: {medians['whole']:>9.1f} | {medians['batched']:>9.1f}   "
            f"({found} paragraphs with GLOSSARY_NOT_APPLIED; terms prepared once in {built:.0f} ms)",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000", help="paragraphs per chapter file (comma-separated)")
    parser.add_argument("--chapters", default="10,100", help="chapters of 1,000 paragraphs per workspace")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure")
    parser.add_argument("--dir", default=None, help="where to write the chapters (default: a temp folder)")
    parser.add_argument("--glossary", default="0,8000,100000", help="approved glossary entries (comma-separated)")
    parser.add_argument("--glossary-paragraphs", type=int, default=500, help="paragraphs checked with a glossary")
    parser.add_argument("--only", choices=("glossary",), help="run only this row")
    args = parser.parse_args()
    print(f"medians; candidates of a row run in turns; load average {os.getloadavg()[0]:.1f}\n")
    bench_with_glossary([int(s) for s in args.glossary.split(",")], args.glossary_paragraphs, args.repeat)
    if args.only == "glossary":
        return
    print()
    bench_in_loop(args.repeat)
    print()
    bench_incremental([int(s) for s in args.sizes.split(",")], args.repeat)
    print()
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="bench-check-") as tmp:
        bench_cli(
            Path(tmp), [int(s) for s in args.sizes.split(",")], [int(s) for s in args.chapters.split(",")], args.repeat
        )


if __name__ == "__main__":
    main()
