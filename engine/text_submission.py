"""A text answer submitted as ``add_translation_batch`` calls (design section 19).

The items of the answer (``engine/text_answers.py``) are checked as a whole, like one batch: an ID outside the
chunk, unknown or repeated, or a blank text refuses the whole answer with that tool's own result. A valid answer is
cut into consecutive batches of at most ``--max-batch`` items, each run as a call of its own; since the answer made
no call, each result goes back to the model as a user message.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from engine.chunks import Chunk
from engine.client.response import ToolCall
from engine.context import ToolContext
from engine.scope import ChunkScope
from engine.text_answers import TextItem
from engine.tools.batch_validation import TOOL, validate_batch

ANSWER_NOTE = "Your [ID: …] lines were submitted as add_translation_batch; its result: {result}"


@dataclasses.dataclass(frozen=True, slots=True)
class TextBatches:
    """The calls a text answer is run as. ``refusal``, when set, is the whole answer's result: then ``calls`` holds
    the one call of every item, which must not run."""

    calls: tuple[ToolCall, ...]
    refusal: dict[str, Any] | None = None


def text_batches(items: Sequence[TextItem], chunk: Chunk, scope: ChunkScope, turn: int) -> TextBatches:
    """The answer's items as calls of at most ``scope.max_batch`` items, or its refusal as a whole."""
    whole = [{"paragraph_id": item.paragraph_id, "translated_text": item.text} for item in items]
    as_one = ToolContext(chunk.chapter, dataclasses.replace(scope, max_batch=max(len(whole), 1)))
    checked = validate_batch(as_one, {"paragraphs": whole})
    if isinstance(checked, dict):
        return TextBatches((_call(whole, turn, 1),), checked)
    size = scope.max_batch
    starts = range(0, len(whole), size)
    return TextBatches(tuple(_call(whole[at : at + size], turn, n) for n, at in enumerate(starts, start=1)))


def _call(items: list[dict[str, Any]], turn: int, number: int) -> ToolCall:
    arguments = {"paragraphs": items}
    return ToolCall(
        id=f"answer-{turn}-{number}",
        name=TOOL,
        arguments_raw=json.dumps(arguments, ensure_ascii=False),
        arguments=arguments,
    )


def cut_answer_text(paragraph_id: str) -> str:
    """What the model is told of the last item of a text answer cut off by the output limit."""
    return (
        f"Your answer was cut off by the output limit while [ID: {paragraph_id}] was being written, so that item "
        "was not saved (the items before it were submitted, see above). Send it and the paragraphs still missing "
        "again, a few at a time."
    )


def answer_message(tool_message: dict[str, Any]) -> dict[str, Any]:
    """The user message that carries one text-answer call's result (the answer made no call to answer)."""
    return {"role": "user", "content": ANSWER_NOTE.format(result=tool_message["content"])}
