"""Benchmark: what reading a text answer and a cut batch costs, beside ``json.loads`` of the same amount of JSON.

Run on demand (pytest does not collect tests/bench):

    .venv/bin/python tests/bench/bench_text_answers.py [--repeat 15]

Prints medians of interleaved repeats for a typical answer (20 paragraphs of ~300 characters: ~6 KB) and a
hostile-sized one (just under the tools' 2,000,000-character argument limit; a longer one is not read):
- ``text_items``: ``[index] [ID: …] text`` lines of that size (one line per paragraph, a fence around them);
- ``closed_part`` / ``cut_batch``: an ``add_translation_batch`` argument text of that size cut inside its last item;
- ``json.loads`` of the whole (uncut) argument text, the floor any reading of it pays.
Goal: linear in the size; a typical answer well under 1 ms, the limit-sized one under 100 ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.client.response import ToolCall
from engine.closed_json import closed_part
from engine.cut_batch import cut_batch
from engine.text_answers import text_items

SENTENCE = "The servant sat on the top step and watched the rain fall, thinking of nothing at all. "


def sample(count: int, chars: int) -> tuple[str, str]:
    """A text answer and an argument text of ``count`` paragraphs of ~``chars`` characters each."""
    text = (SENTENCE * (chars // len(SENTENCE) + 1))[:chars]
    ids = [f"{n:08x}" for n in range(count)]
    answer = "```\n" + "\n".join(f"[{n + 1}] [ID: {pid}] {text}" for n, pid in enumerate(ids)) + "\n```"
    arguments = json.dumps({"paragraphs": [{"paragraph_id": pid, "translated_text": text} for pid in ids]})
    return answer, arguments


def median_ms(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    repeat = parser.parse_args().repeat
    sizes = (("typical: 20 x 300 chars", 20, 300), ("near the limit: 5,600 x 300 chars", 5_600, 300))
    for label, count, chars in sizes:
        answer, arguments = sample(count, chars)
        cut = arguments[: len(arguments) - chars // 2]
        call = ToolCall("c", "add_translation_batch", cut, None, "cut", error_code="ARGUMENTS_TRUNCATED")
        assert len(text_items(answer) or []) == count and len(cut_batch(call).items) == count - 1
        rows = {
            "text_items": median_ms(lambda: text_items(answer), repeat),  # noqa: B023
            "closed_part": median_ms(lambda: closed_part(cut), repeat),  # noqa: B023
            "cut_batch": median_ms(lambda: cut_batch(call), repeat),  # noqa: B023
            "json.loads (whole)": median_ms(lambda: json.loads(arguments), repeat),  # noqa: B023
        }
        print(f"{label} (answer {len(answer):,} chars, arguments {len(arguments):,} chars)")
        for name, ms in rows.items():
            print(f"  {name:<20} {ms:8.3f} ms")


if __name__ == "__main__":
    main()
