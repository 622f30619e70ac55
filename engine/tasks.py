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
    # The tools its requests offer (of those registered), in the registry's order. The chunk message already
    # carries the chunk, its context lines, memory and glossary lines, so the neighbour and position tools (which
    # cannot leave the chunk) and the version history would only repeat it; translating meets new names first
    # (propose_glossary_entry), revising checks the translation against the rest of the chapter
    # (find_paragraph_by_keywords). Every registered tool still answers a call, offered or not.
    tools: tuple[str, ...] = ("add_translation_batch",)


_TRANSLATE_TOOLS = ("add_translation_batch", "propose_glossary_entry")
_REVISE_TOOLS = ("find_paragraph_by_keywords", "add_translation_batch")

TASK_RULES: dict[TaskType, TaskRules] = {
    "translate": TaskRules(
        "translation", "translate_system.md", "chunk_translate.md", revises=False, tools=_TRANSLATE_TOOLS
    ),
    "polish": TaskRules("polish", "polish_system.md", "chunk_revise.md", revises=True, tools=_REVISE_TOOLS),
    "proofread": TaskRules(
        "proofreading", "proofread_system.md", "chunk_revise.md", revises=True, applies=False, tools=_REVISE_TOOLS
    ),
}
