"""Glossary speed: selecting a chunk's entries, building the automaton, a change to a big glossary, extraction.

Run: ``.venv/bin/python tests/bench/bench_glossary.py``. Prints medians:

1. Selecting the entries of a 4,000-character chunk of the sample from a 10,000-entry glossary (goal <= 2 ms),
   side by side with the naive way (a substring search per entry and alias) — the reference the automaton replaces.
2. Building the automaton of 10,000 and of 100,000 entries.
3. A change (one proposal) to a 100,000-entry glossary file: read, apply, write atomically.
4. ``glossary extract`` over a 100,000-paragraph workspace (the sample cycled; ``tests/bench/chapters.py``).
5. ``search_glossary`` in a 100,000-entry glossary: the one folded text (``engine/glossary/search_text.py``) beside
   scanning every entry's fields, for a query found early, one found in the last entry, and one found nowhere
   (each call runs on the event loop).
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.glossary.extract import extract_candidates
from engine.glossary.index import GlossaryIndex, fold
from engine.glossary.search_text import SearchText
from store.glossary import Glossary, GlossaryEntry, glossary_bytes
from store.glossary_commit import GlossaryStore, add_entry
from store.loader import parse_chapter
from store.workspace import Workspace
from tests.bench.chapters import make_chapter
from tui.sample import sample_bytes


def median_ms(run, repeat: int = 50) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def glossary_of(size: int, seed: int = 7) -> list[GlossaryEntry]:
    """``size`` entries: the sample's real terms, then made-up 2–4 character kanji terms."""
    rng = random.Random(seed)
    kanji = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
    real = ["下人", "老婆", "羅生門", "死骸", "太刀", "面皰", "蟋蟀", "京都", "朱雀大路", "梯子"]
    sources = list(
        dict.fromkeys(real + ["".join(rng.choice(kanji) for _ in range(rng.randint(2, 4))) for _ in range(size * 2)])
    )[:size]
    return [
        GlossaryEntry(id=f"{n:08x}", source=s, target=f"term {n}", created_at="2026-11-23T00:00:00Z")
        for n, s in enumerate(sources)
    ]


def main() -> None:
    chapter = parse_chapter(sample_bytes(), "rashomon.json")
    chunk = "".join(p.text for p in chapter.paragraphs)[:4000]
    entries = glossary_of(10_000)
    index = GlossaryIndex(entries)
    found = index.occurring(chunk)

    def naive() -> list[GlossaryEntry]:
        text = fold(chunk)
        hits = [
            (min(p for p in (text.find(fold(t)) for t in (e.source, *e.aliases)) if p >= 0), e)
            for e in entries
            if any(fold(t) in text for t in (e.source, *e.aliases))
        ]
        return [e for _, e in sorted(hits, key=lambda h: h[0])]

    assert {e.id for e in naive()} == {e.id for e in found}  # the same entries, found the slow way
    print(
        f"1. entries of a 4,000-character chunk from 10,000 entries ({len(found)} found): "
        f"automaton {median_ms(lambda: index.occurring(chunk)):.3f} ms (goal <= 2 ms), "
        f"substring search per entry {median_ms(naive, 10):.1f} ms"
    )
    big = glossary_of(100_000)
    print(
        f"2. automaton build: 10,000 entries {median_ms(lambda: GlossaryIndex(entries), 5):.1f} ms, "
        f"100,000 entries {median_ms(lambda: GlossaryIndex(big), 3):.0f} ms"
    )
    folder = Path(tempfile.mkdtemp())
    store = GlossaryStore(Workspace(folder))
    store.path.write_bytes(glossary_bytes(Glossary(entries=tuple(big))))
    counter = iter(range(10**6))
    change = median_ms(
        lambda: store.change(
            add_entry(GlossaryEntry(id=f"n{next(counter)}", source=f"新語{next(counter)}", target="x"))
        ),
        3,
    )
    print(f"3. one change to a 100,000-entry glossary ({store.path.stat().st_size / 1e6:.1f} MB): {change:.0f} ms")
    book = make_chapter(100_000)
    texts = [p.text for p in book.paragraphs]
    started = time.perf_counter()
    candidates = extract_candidates(texts)
    print(
        f"4. extract over 100,000 paragraphs ({sum(map(len, texts)) / 1e6:.1f} M characters): "
        f"{time.perf_counter() - started:.2f} s, {len(candidates)} candidates"
    )
    search(big)


def search(entries: list[GlossaryEntry]) -> None:
    text = SearchText(entries)

    def scanned(query: str) -> list[GlossaryEntry]:
        needle = fold(query)
        return [e for e in entries if any(needle in fold(t) for t in (e.source, e.target, *e.aliases))][:5]

    rows = []
    for label, query in (("found early", "下人"), ("the last entry", f"term {len(entries) - 1}"), ("nowhere", "zzz")):
        assert text.find(query, 5) == scanned(query)
        fast = median_ms(lambda q=query: text.find(q, 5))  # type: ignore[misc]
        slow = median_ms(lambda q=query: scanned(q), 3)  # type: ignore[misc]
        rows.append(f"{label} {fast:.2f} ms vs {slow:.0f} ms")
    print(f"5. search_glossary, 100,000 entries, one text vs a scan: {'; '.join(rows)}")


if __name__ == "__main__":
    main()
