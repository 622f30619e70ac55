"""What the tool-call loop tells a model that stopped short of a complete chunk, and when it stops telling.

An answer without a call while paragraphs are missing gets a reminder naming them (two in a chunk at most, then
the chunk ends ``NO_SUBMISSION``); in polish and proofread, ``no changes`` completes the chunk, and an echo of the
chunk (``engine.echoes``) is reminded once. When the batch that completes a chunk carries error-severity warnings
(``engine.fix_turn``), the model gets one more turn with them, when the turn limit leaves one; after that turn the
chunk ends complete, whatever the model did.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from engine.echoes import chunk_entries, classify
from engine.fix_turn import error_warnings, fix_turn_text
from engine.loop_config import ToolCallLoopConfig
from engine.loop_texts import reminder_text
from engine.tasks import TASK_RULES

MAX_REMINDERS = 2
COMPLETE: Literal["complete"] = "complete"


@dataclass
class ChunkNudges:
    """One chunk's reminders and fix turn (the loop asks; this decides and words)."""

    config: ToolCallLoopConfig
    reminders: int = 0
    echoes: int = 0
    fix_turn: int | None = None  # the turn whose answer was the fix-turn message
    entries: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        self.revises = TASK_RULES[self.config.task].revises
        self.entries = chunk_entries(self.config.paragraph_ids, self.config.chunk.entries)

    def after_text(self, content: str | None, missing: list[str]) -> str | None:
        """After an answer without a call: ``COMPLETE``, a reminder to send, or None (the chunk ends
        ``NO_SUBMISSION``)."""
        answer = classify(content, self.entries, self.revises, self.config.user_message)
        if not missing or answer == "no_changes":
            return COMPLETE
        echo = answer == "echo"
        if self.reminders >= MAX_REMINDERS or (echo and self.echoes > 0):
            return None
        self.reminders += 1
        self.echoes += echo
        return reminder_text(missing, answer, self.revises)

    def echoed(self, content: str | None) -> bool:
        """Whether ``content`` is an echo of a polish/proofread chunk (never to be read as ``[ID: …]`` text
        answers: it is reminded, not submitted)."""
        return self.revises and classify(content, self.entries, True, self.config.user_message) == "echo"

    def after_completion(self, submission: dict[str, Any] | None, turn: int) -> str | None:
        """Every paragraph has a submission after ``turn``: the fix-turn message when the completing batch (its
        ``submission`` result) carries errors and there is a turn to give, else None (the chunk is complete)."""
        errors = error_warnings(submission)
        if self.fix_turn is not None or not errors or turn >= self.config.max_turns:
            return None
        self.fix_turn = turn
        return fix_turn_text(errors)

    def fix_turn_over(self, turn: int) -> bool:
        """Whether ``turn`` answered the fix-turn message (the chunk ends complete after it)."""
        return self.fix_turn is not None and turn > self.fix_turn
