"""The summary a headless run ends with: a translation counts paragraphs done, a polish or proofread counts what the
model really did (reviewed, submitted, changed), never chunks that merely ended."""

from __future__ import annotations

from engine.summaries import ChunkSummary, RunSummary
from tui.run_progress import summary_lines


def summary(task: str, **counts: int) -> RunSummary:
    return RunSummary(
        chapter="/w/ch01.json",
        task=task,
        status="incomplete",
        chunks=[ChunkSummary(index=1, status="incomplete", missing=["a", "b"], end_code="NO_SUBMISSION")],
        paragraphs_total=12,
        **counts,
    )


def test_a_translation_counts_the_paragraphs_done() -> None:
    (line, unfinished) = summary_lines([summary("translate", paragraphs_done=10, paragraphs_submitted=10)])
    assert line.startswith("ch01.json: incomplete · 10/12 paragraphs · 0/1 chunks complete · ")
    assert unfinished == "  chunk 1: incomplete NO_SUBMISSION (missing: a, b)"


def test_a_polish_counts_paragraphs_reviewed_submitted_and_changed() -> None:
    counts = {"paragraphs_done": 10, "paragraphs_submitted": 4, "paragraphs_changed": 3}
    (line, _) = summary_lines([summary("polish", **counts)])
    assert line.startswith("ch01.json: incomplete · 10/12 paragraphs reviewed: 4 submitted, 3 changed · 0/1 chunks")
    (line, _) = summary_lines([summary("proofread")])
    assert line.startswith("ch01.json: incomplete · 0/12 paragraphs reviewed: 0 submitted, 0 changed · ")
