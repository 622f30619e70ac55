"""The input tokens context lines and memory add per chunk at the defaults, side by side with them off.

Run: ``.venv/bin/python tests/bench/bench_context_tokens.py``. Uses ``run --estimate``'s arithmetic
(``engine.estimate.estimate_run``: every chunk's first request built as a run builds it, tokens counted with the
character-class estimate). The chapter is the sample (Rashomon) with its first half translated and reviewed (clean
context for the second half) and a second chapter of the workspace holding the whole text reviewed (a memory entry
for every paragraph: the most memory a chunk can get). Prints, per task, the chunks, the input tokens of their first
requests and the extra per chunk: context off and memory off / context at the defaults / context and memory at the
defaults.
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.chunk_context import ContextSettings
from engine.config import ModelSettings
from engine.estimate import estimate_run
from engine.run_request import RunRequest
from store.loader import parse_chapter
from store.model import Chapter, append_version
from store.serialize import chapter_bytes
from tui.sample import sample_bytes


def _reviewed(chapter: Chapter, upto: int, word: str) -> Chapter:
    done = {
        pos: append_version(p, f"{word} {p.id}.", origin="translation", model="m")[0].replace(reviewed=True)
        for pos, p in enumerate(chapter.paragraphs[:upto])
        if not p.is_empty
    }
    return chapter.with_paragraphs(done)


def main() -> None:
    chapter = parse_chapter(sample_bytes(), "rashomon.json")
    demo = ModelSettings(model="demo", base_url="demo://offline")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "rashomon.json"
        half = _reviewed(chapter, len(chapter.paragraphs) // 2, "English")
        path.write_bytes(chapter_bytes(half))
        whole = _reviewed(chapter, len(chapter.paragraphs), "Earlier").replace(id="earlier")
        (folder / "earlier.json").write_bytes(chapter_bytes(whole))
        print("input tokens of every chunk's first request (estimate), the sample chapter, defaults otherwise")
        print(f"{'task':10} {'chunks':>6} {'off':>8} {'context':>8} {'+memory':>8}   extra per chunk: context, +memory")
        for task in ("translate", "polish"):
            base = RunRequest(path, task, demo)  # type: ignore[arg-type]
            runs = {
                "off": dataclasses.replace(base, context=ContextSettings(0, 0), memory_max=0),
                "context": dataclasses.replace(base, memory_max=0),
                "both": base,
            }
            totals = {name: estimate_run(request)["total"] for name, request in runs.items()}
            chunks = totals["off"]["chunks"]
            tokens = {name: total["input_tokens"][0] for name, total in totals.items()}
            per_context = (tokens["context"] - tokens["off"]) / max(chunks, 1)
            per_memory = (tokens["both"] - tokens["context"]) / max(chunks, 1)
            print(
                f"{task:10} {chunks:>6} {tokens['off']:>8,} {tokens['context']:>8,} {tokens['both']:>8,}"
                f"   +{per_context:,.0f}, +{per_memory:,.0f}"
            )


if __name__ == "__main__":
    main()
