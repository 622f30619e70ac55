"""One describer per event kind, for the log pane, the trace inspector and the CLI's progress, and nothing heavy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest

from engine.events import EVENT_TYPES, EngineEventT, ErrorEvent, Retry, TextSubmission
from tui.event_text import DESCRIBERS, Describer, describer

ROOT = Path(__file__).resolve().parents[2]


def test_every_kind_of_the_union_has_its_describer() -> None:
    kinds = get_args(EngineEventT)
    assert set(kinds) == set(EVENT_TYPES.values()) == set(DESCRIBERS)
    assert all(isinstance(DESCRIBERS[kind], Describer) for kind in kinds)


@pytest.mark.parametrize(
    ("event", "log", "step", "progress"),
    [
        (
            Retry(run_id="r", attempt=2, reason="HTTP 503\nbusy", delay=1.5),
            ("warning", "↻ retry 2 in 1.5 s: HTTP 503 busy"),
            ("retry", "retry 2: HTTP 503\nbusy"),
            ("warning", "retry 2 in 1.5 s (HTTP 503\nbusy)"),
        ),
        (
            ErrorEvent(run_id="r", message="the trace could not be written", code="TRACE_FAILED"),
            ("error", "✗ TRACE_FAILED the trace could not be written"),
            ("error", "✗ TRACE_FAILED: the trace could not be written"),
            ("error", "error: the trace could not be written"),
        ),
        (
            TextSubmission(run_id="r", chunk=1, turn=2, paragraph_ids=("a1", "a2", "a3", "a4", "a5")),
            ("accent", "✎ text answer: 5 paragraphs submitted as add_translation_batch: a1, a2, a3, a4 …"),
            ("text_answer", "text answer: 5 paragraphs submitted"),
            None,
        ),
    ],
)
def test_one_describer_words_a_kind_for_the_log_the_inspector_and_the_cli(
    event: Retry | ErrorEvent | TextSubmission,
    log: tuple[str, str],
    step: tuple[str, str],
    progress: tuple[str, str] | None,
) -> None:
    words = describer(event).log(event)
    assert words is not None and (words.level, words.line) == log
    steps = describer(event).step(event)
    assert steps is not None and (steps.kind, steps.title) == step
    assert describer(event).progress(event, _Tally()) == progress


class _Tally:
    chunks, total, errors = 3, 10, 0
    done: set[str] = set()

    def spent(self, short: bool = True) -> str:
        return "0 tok"


def test_the_cli_words_its_progress_without_textual_or_rich() -> None:
    probe = (
        "import json, sys\n"
        "import tui.event_text, tui.run_progress, tui.commands.run\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert not set(json.loads(done.stdout)) & {"textual", "rich"}
