"""Real-model benchmark: translate, polish and proofread on a fixed sample with the shipped defaults (design §19).

Opt-in: it needs a running OpenAI-compatible server, e.g. ``python -m tests.real_model.serve --model qwen-1.5b``::

    PROOFDESK_REAL_BASE_URL=http://127.0.0.1:PORT/v1 .venv/bin/python tests/bench/bench_real_model.py
    .venv/bin/python tests/bench/bench_real_model.py --base-url http://127.0.0.1:PORT/v1 [--model NAME]

The sample is the first 14 paragraphs of the bundled chapter (Rashomon, Japanese; 12 of them non-empty), target
English. The three tasks run one after another on the same chapter file through the real ``proofdesk run`` (this
tree's CLI in a subprocess, its own config and folders), with no ``--chunk-chars``, ``--max-batch``,
``--max-turns`` or prompt override: only the profile says where the server is, ``read_timeout`` (a CPU server is
slow to its first byte) and the request body the served model needs (``tests/real_model/models.py``). Per task it
prints, from the run's trace: paragraphs submitted and changed (a submission identical to the text already there
is submitted, not changed), how many committed texts the model never sent for that paragraph (must be 0), turns
(model responses), calls the model wrote as text, prompt + completion tokens, failures by code (tool errors and
chunk end codes), the run's status (exit code) and wall time. ``--task-budget S`` stops a run after S seconds as
ctrl+c does (a slow CPU); ``--keep DIR`` keeps everything and ``--report DIR`` prints the table of a kept folder
again, also of a run stopped from outside.

Beside it, the plain-prompt baseline: one chat request without tools ("translate these numbered lines, answer as
JSON lines"), and how many of the 12 lines came back parsable, with each one's length against the expected length
(the source's letters times the pair's ratio, ``engine.checks.length_ratio``).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.real_model_baseline import baseline  # noqa: E402
from tests.real_model.models import MODELS  # noqa: E402

SAMPLE = ROOT / "tui" / "samples" / "rashomon.json"
SAMPLE_PARAGRAPHS = 14
TASKS = ("translate", "polish", "proofread")
READ_TIMEOUT_S = 600
RUN_TIMEOUT_S = 3600
MODEL_ORIGINS = ("translation", "polish", "proofreading")
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never through a proxy


@dataclass
class TaskRow:
    """One task's figures, read from its trace."""

    task: str
    in_run: int = 0  # paragraphs the run worked on (polish and proofread: those with a translation)
    submitted: set[str] = field(default_factory=set)
    changed: set[str] = field(default_factory=set)
    unsent: int = 0
    turns: int = 0
    as_text: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    status: str = "?"
    exit_code: int | None = None
    wall_s: float = 0.0


# -- the sample and the environment -----------------------------------------------------------------------------------


def write_sample(path: Path) -> list[dict[str, Any]]:
    """The sample chapter at ``path``; returns its non-empty paragraphs."""
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    data["paragraphs"] = data["paragraphs"][:SAMPLE_PARAGRAPHS]
    data["target_language"] = "en"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    return [p for p in data["paragraphs"] if p["text"].strip()]


def toml_value(value: Any) -> str:
    """A JSON-like value as TOML (inline tables for dicts)."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


def proofdesk_env(
    home: Path, base_url: str, model: str, body: dict[str, Any], max_tokens: int | None
) -> dict[str, str]:
    """Environment for the CLI subprocesses: this tree first on the path, a config with the ``real`` profile."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[var] = str(home / var.lower())
        (home / var.lower()).mkdir(parents=True, exist_ok=True)
    lines = ['default_profile = "real"', "", "[profiles.real]", f"base_url = {json.dumps(base_url)}"]
    lines += [f"model = {json.dumps(model)}", f"read_timeout = {READ_TIMEOUT_S}", f"body = {toml_value(body)}"]
    if max_tokens is not None:
        lines.append(f"max_tokens = {max_tokens}")
    config = home / "config.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env.update(PROOFDESK_CONFIG=str(config), NO_COLOR="1", PYTHONPATH=str(ROOT))
    return env


# -- one task ---------------------------------------------------------------------------------------------------------


def run_task(task: str, chapter: Path, env: dict[str, str], work: Path, budget_s: float) -> TaskRow:
    """``proofdesk run CHAPTER --task TASK`` with the shipped defaults; the row read from its trace. A run still
    going after ``budget_s`` is stopped as ctrl+c stops it (it reports how it ended: ``cancelled``)."""
    trace = work / f"{task}.jsonl"
    command = [sys.executable, "-m", "tui.cli", "run", str(chapter), "--task", task, "--profile", "real"]
    command += ["--json", "--trace", str(trace)]
    print(f"  {task}: running ...", file=sys.stderr, flush=True)
    with open(work / f"{task}.out", "wb") as out:
        child = subprocess.Popen(command, env=env, cwd=work, stdout=out, stderr=subprocess.STDOUT)
        code = _finished(child, budget_s)
    (work / f"{task}.exit").write_text(f"{code}\n", encoding="utf-8")
    return task_row(task, work, chapter)


def _finished(child: subprocess.Popen[bytes], budget_s: float) -> int:
    """The child's exit code; past the budget it gets SIGINT, and SIGKILL a minute later."""
    try:
        return child.wait(timeout=budget_s)
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGINT)
    try:
        return child.wait(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        return child.wait()


def task_row(task: str, work: Path, chapter: Path) -> TaskRow:
    """One task's row from what its run left in ``work``: the trace and the exit code."""
    trace = work / f"{task}.jsonl"
    row = read_trace(task, trace)
    exit_file = work / f"{task}.exit"
    row.exit_code = int(exit_file.read_text(encoding="utf-8")) if exit_file.is_file() else None
    row.unsent = unsent_commits(chapter, trace)
    return row


def trace_events(trace: Path) -> list[dict[str, Any]]:
    if not trace.is_file():
        return []
    return [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines() if line.strip()]


def read_trace(task: str, trace: Path) -> TaskRow:
    """Submitted/changed paragraphs, turns, tokens, failures and status of one run's trace."""
    row = TaskRow(task)
    events = trace_events(trace)
    if events:
        row.wall_s = events[-1]["ts"] - events[0]["ts"]
    for event in events:
        add_event(row, event)
    return row


def add_event(row: TaskRow, event: dict[str, Any]) -> None:
    """Count one trace event into the row (a run stopped midway still counts what it did)."""
    kind = event.get("kind")
    if kind == "batch_committed":
        row.changed.update(event["paragraph_ids"])
        row.submitted.update(event["paragraph_ids"], event.get("unchanged") or ())
    elif kind == "model_response":
        add_response(row, event)
    elif kind == "tool_result" and event.get("error_code"):
        row.failures[event["error_code"]] += 1
    elif kind == "chunk_finished" and event.get("end_code"):
        row.failures[event["end_code"]] += 1
    elif kind == "run_started":
        row.in_run = event.get("paragraph_count", 0)
    elif kind == "run_finished":
        row.status = event["status"]


def add_response(row: TaskRow, event: dict[str, Any]) -> None:
    usage = event.get("usage") or {}
    row.turns += 1
    row.as_text += bool(event.get("lifted_from_content"))
    row.prompt_tokens += usage.get("prompt_tokens", 0)
    row.completion_tokens += usage.get("completion_tokens", 0)


def sent_texts(trace: Path) -> set[tuple[str, str]]:
    """``(paragraph_id, text)`` of every item the model sent in an ``add_translation_batch``."""
    sent = set()
    for event in trace_events(trace):
        if event.get("kind") == "tool_called" and event.get("name") == "add_translation_batch":
            arguments = event.get("arguments")
            items = arguments.get("paragraphs") if isinstance(arguments, dict) else None
            for item in items if isinstance(items, list) else ():
                if isinstance(item, dict):
                    sent.add((str(item.get("paragraph_id")), str(item.get("translated_text"))))
    return sent


def unsent_commits(chapter: Path, trace: Path) -> int:
    """AI versions this run added whose text the model never sent for that paragraph (must be 0)."""
    started = min((e["ts"] for e in trace_events(trace) if e.get("kind") == "run_started"), default=None)
    if started is None:
        return 0
    sent = sent_texts(trace)
    data = json.loads(chapter.read_text(encoding="utf-8"))
    return sum(
        (p["id"], v["text"]) not in sent
        for p in data["paragraphs"]
        for v in p.get("translations") or ()
        if v.get("origin") in MODEL_ORIGINS and _created(v) >= started - 1
    )


def _created(version: dict[str, Any]) -> float:
    """A version's creation time in seconds since the epoch (ISO text or a number), 0 when unknown."""
    value = version.get("created_at")
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


# -- the report -------------------------------------------------------------------------------------------------------

HEADER = "| task | paragraphs in run | submitted | changed | unsent | turns | calls as text | tokens (prompt+completion) | failures | status (exit) | wall |"  # noqa: E501


def table_line(row: TaskRow) -> str:
    failures = ", ".join(f"{code} x{n}" for code, n in row.failures.most_common()) or "-"
    return (
        f"| {row.task} | {row.in_run} | {len(row.submitted)} | {len(row.changed)} | {row.unsent} | {row.turns} "
        f"| {row.as_text} | {row.prompt_tokens:,}+{row.completion_tokens:,} | {failures} "
        f"| {row.status} ({row.exit_code}) | {row.wall_s:.0f} s |"
    )


def served_model(base_url: str) -> str:
    with DIRECT.open(base_url.rstrip("/") + "/models", timeout=30) as response:
        listed = json.loads(response.read()).get("data") or []
    if not listed:
        raise SystemExit(f"{base_url}/models lists no model; pass --model")
    return str(listed[0]["id"])


def print_table(model: str, rows: list[TaskRow], total: int) -> None:
    print(f"\n{model}, sample: {SAMPLE_PARAGRAPHS} paragraphs of {SAMPLE.name} ({total} non-empty), ja -> en\n")
    print(HEADER)
    print("|" + "---|" * HEADER.count(" | ") + "---|")
    for row in rows:
        print(table_line(row))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default=os.environ.get("PROOFDESK_REAL_BASE_URL", "").strip() or None)
    parser.add_argument("--model", default=os.environ.get("PROOFDESK_REAL_MODEL", "").strip() or None)
    parser.add_argument("--tasks", default=",".join(TASKS), help="comma-separated, run in this order")
    parser.add_argument("--max-tokens", type=int, default=None, help="the profile's max_tokens (default: shipped)")
    parser.add_argument("--task-budget", type=float, default=RUN_TIMEOUT_S, help="seconds before a run is stopped")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--keep", type=Path, default=None, help="keep the chapter, traces and outputs in this folder")
    parser.add_argument("--report", type=Path, default=None, help="only print the table of a --keep folder's runs")
    args = parser.parse_args(argv)
    if args.report:
        return report_only(args.report, args.model or "?", args.tasks.split(","))
    if not args.base_url:
        parser.error("give --base-url or set PROOFDESK_REAL_BASE_URL (python -m tests.real_model.serve prints it)")
    model = args.model or served_model(args.base_url)
    known = MODELS.get(model)
    body = known.profile_body if known else {"temperature": 0}
    work = args.keep or Path(tempfile.mkdtemp(prefix="proofdesk-bench-real-"))
    work.mkdir(parents=True, exist_ok=True)
    chapter = work / "chapter.json"
    paragraphs = write_sample(chapter)
    env = proofdesk_env(work / "home", args.base_url, model, body, args.max_tokens)
    print(f"model {model} at {args.base_url}; body {json.dumps(body)}; work in {work}", file=sys.stderr)
    rows = [run_task(task, chapter, env, work, args.task_budget) for task in args.tasks.split(",")]
    print_table(model, rows, len(paragraphs))
    if not args.no_baseline:
        print("\n" + baseline(args.base_url, model, body, paragraphs, work))
    return 0


def report_only(work: Path, model: str, tasks: list[str]) -> int:
    """The table of the runs a ``--keep`` folder holds (a run stopped from outside included)."""
    chapter = work / "chapter.json"
    total = sum(bool(p["text"].strip()) for p in json.loads(chapter.read_text(encoding="utf-8"))["paragraphs"])
    print_table(model, [task_row(task, work, chapter) for task in tasks if (work / f"{task}.jsonl").is_file()], total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
