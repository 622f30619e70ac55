"""The plain-prompt baseline of ``bench_real_model.py``: one chat request without tools asking for the sample's
lines translated as JSON lines, and how many came back parsable, each one's length against the expected length (the
source's letters times the pair's ratio, ``engine.checks.length_ratio``).
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from engine.checks.languages import languages
from engine.checks.length_ratio import expected_ratio, letters

BASELINE_MAX_TOKENS = 4096
TIMEOUT_S = 3600
SHORT = 0.6  # a line under this share of its expected length was summarised, not translated
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never through a proxy


def baseline_prompt(paragraphs: list[dict[str, Any]]) -> str:
    numbered = "\n".join(f"{n}. {p['text']}" for n, p in enumerate(paragraphs, 1))
    return (
        f"Translate these {len(paragraphs)} numbered lines from Japanese into English. Answer as JSON lines, one per "
        'input line and nothing else: {"n": <line number>, "text": "<the English translation>"}\n\n' + numbered
    )


def chat(base_url: str, model: str, body: dict[str, Any], prompt: str) -> tuple[str, dict[str, Any], float]:
    """One non-streaming chat request: the answer's text, its usage and the wall time."""
    payload = {**body, "model": model, "max_tokens": BASELINE_MAX_TOKENS, "stream": False}
    payload["messages"] = [{"role": "user", "content": prompt}]
    payload.pop("stop", None)  # a tool-call stop string has no place in a plain answer
    request = urllib.request.Request(
        base_url.rstrip("/") + "/chat/completions",
        data=json.dumps(payload).encode(),
        headers={"Content-Type": "application/json"},
    )
    started = time.perf_counter()
    with DIRECT.open(request, timeout=TIMEOUT_S) as response:
        answer = json.loads(response.read())
    return (
        answer["choices"][0]["message"].get("content") or "",
        answer.get("usage") or {},
        time.perf_counter() - started,
    )


JSON_LINE = re.compile(r"\{.*\}")


def parsed_lines(text: str, count: int) -> dict[int, str]:
    """Line number -> translation for each JSON line ``{"n": N, "text": "..."}`` with N in 1..count (first wins)."""
    found: dict[int, str] = {}
    for line in text.splitlines():
        match = JSON_LINE.search(line)
        try:
            value = json.loads(match.group(0)) if match else None
        except ValueError:
            continue
        if isinstance(value, dict) and _numbered(value, count):
            found.setdefault(value["n"], value["text"])
    return found


def _numbered(value: dict[str, Any], count: int) -> bool:
    if not isinstance(value.get("n"), int) or not isinstance(value.get("text"), str):
        return False
    return 1 <= value["n"] <= count and bool(value["text"].strip())


def baseline(base_url: str, model: str, body: dict[str, Any], paragraphs: list[dict[str, Any]], work: Path) -> str:
    """The baseline's line of the report (its answer is kept in ``work/baseline.txt``)."""
    print("  baseline: one plain request ...", file=sys.stderr, flush=True)
    text, usage, wall = chat(base_url, model, body, baseline_prompt(paragraphs))
    (work / "baseline.txt").write_text(text, encoding="utf-8")
    lines = parsed_lines(text, len(paragraphs))
    ratio = expected_ratio(languages("ja", "en")) or 1.0
    shares = sorted(letters(t) / max(1.0, letters(paragraphs[n - 1]["text"]) * ratio) for n, t in lines.items())
    spread = f"{shares[0]:.2f}-{shares[-1]:.2f}, median {statistics.median(shares):.2f}" if shares else "-"
    short = sum(s < SHORT for s in shares)
    tokens = f"{usage.get('prompt_tokens', '?')}+{usage.get('completion_tokens', '?')}"
    return (
        f"plain prompt (1 request, no tools): {len(lines)}/{len(paragraphs)} lines parsable; length vs expected "
        f"{spread}; {short} under {SHORT}x; tokens {tokens}; {wall:.0f} s"
    )
