"""The three tasks, and what sets each apart: one row of data per task, read by chunks, prompts, services and loop.

Everything else about a run (chunks, tools, the loop, commits) is the same for every task.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from store.model import Origin

TaskType = Literal["translate", "polish", "proofread"]
TASKS: tuple[TaskType, ...] = ("translate", "polish", "proofread")


@dataclass(frozen=True, slots=True)
class TaskRules:
    """What one task does differently."""

    origin: Origin  # of the versions its submissions create
    system_template: str  # prompt files under engine/prompts/
    chunk_template: str
    # Works on the selected translations: its work set is the translated paragraphs, its entries show the
    # translation, and a chunk is also complete when the model answers `no changes` (what needs none is not
    # submitted). Otherwise it works on the untranslated source, needs a target language, and a chunk is complete
    # when every paragraph has a submission.
    revises: bool
    # Whether its new texts are selected (for unprotected paragraphs) unless the run says otherwise; a proofread
    # suggests by default (config ``[run] proofread_apply``, flags ``--apply`` / ``--suggest``).
    applies: bool = True


TASK_RULES: dict[TaskType, TaskRules] = {
    "translate": TaskRules("translation", "translate_system.md", "chunk_translate.md", revises=False),
    "polish": TaskRules("polish", "polish_system.md", "chunk_revise.md", revises=True),
    "proofread": TaskRules("proofreading", "proofread_system.md", "chunk_revise.md", revises=True, applies=False),
}
