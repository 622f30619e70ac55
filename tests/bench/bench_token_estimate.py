"""The character-class token estimate (engine.token_estimate) against a real tokenizer, on the bundled sample.

Run: ``.venv/bin/python tests/bench/bench_token_estimate.py [--server http://127.0.0.1:PORT]``.

Without ``--server`` it starts the real-model server of ``tests/real_model/serve.py`` (llama.cpp with Gemma 3 270M;
needs the ``real-model`` extra) and stops it at the end; it skips when that is not installed. For every chunk of a
``translate`` run of the sample (the default chunk size) it counts the first request's tokens — system prompt, chunk
message, and the tool definitions as JSON — with the server's ``/tokenize`` and with ``estimate_tokens``, and
prints the ratio estimate/real per part and in total, plus the Japanese paragraph text alone and an English text.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import urllib.request
from pathlib import Path

from engine.services import TaskService
from engine.token_estimate import estimate_tokens
from store.loader import parse_chapter
from tui.sample import sample_bytes

ENGLISH = (
    "It was one evening. A servant was waiting for the rain to stop under the Rashomon gate. There was no "
    "one else under the wide gate but this man, only a cricket clinging to a round pillar whose red lacquer "
    "had peeled here and there."
)


def tokenize(base: str, text: str) -> int:
    request = urllib.request.Request(
        f"{base}/tokenize", data=json.dumps({"content": text}).encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return len(json.loads(response.read())["tokens"])


def start_server() -> tuple[subprocess.Popen[str], str] | None:
    if importlib.util.find_spec("xllamacpp") is None:
        print("skipped: the real-model extra is not installed (pip install -e '.[real-model]')")
        return None
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.real_model.serve"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    return proc, line.removesuffix("/v1")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", help="a running llama.cpp server, e.g. http://127.0.0.1:8765")
    args = parser.parse_args()
    proc = None
    base = args.server
    if base is None:
        started = start_server()
        if started is None:
            return 0
        proc, base = started
    base = base.rstrip("/").removesuffix("/v1")
    try:
        chapter = parse_chapter(sample_bytes(), "rashomon.json")
        service = TaskService(chapter, "translate", target_language="en")
        rows: dict[str, list[int]] = {"system prompt": [0, 0], "chunk messages": [0, 0], "tools (JSON)": [0, 0]}
        configs = service.loop_configs()
        for config in configs:
            tools = json.dumps(list(config.tools), ensure_ascii=False)
            for key, text in (
                ("system prompt", config.system_prompt),
                ("chunk messages", config.user_message),
                ("tools (JSON)", tools),
            ):
                rows[key][0] += estimate_tokens(text)
                rows[key][1] += tokenize(base, text)
        paragraphs = "\n".join(p.text for p in chapter.paragraphs if p.text.strip())
        rows["Japanese paragraphs alone"] = [estimate_tokens(paragraphs), tokenize(base, paragraphs)]
        rows["an English paragraph"] = [estimate_tokens(ENGLISH), tokenize(base, ENGLISH)]
        print(f"token estimate vs Gemma 3's tokenizer, the sample's {len(configs)} translate chunks' first requests")
        total = [0, 0]
        for key, (est, real) in rows.items():
            print(f"  {key:28} estimate {est:7,}  real {real:7,}  ratio {est / real:.2f}")
            if key in ("system prompt", "chunk messages", "tools (JSON)"):
                total[0] += est
                total[1] += real
        print(
            f"  {'first requests, in total':28} estimate {total[0]:7,}  real {total[1]:7,}  "
            f"ratio {total[0] / total[1]:.2f}"
        )
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
