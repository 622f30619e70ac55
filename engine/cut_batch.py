"""A cut-off ``add_translation_batch`` (design section 19): the items that closed before the cut are a batch of their
own; the cut item and anything after it never are, and the result names them.

Any other cut-off call is never run. Every cut call is shown back to the model as what closed of it
(``shown_closed``), never as ``{}``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from engine.client.response import AssembledResponse, ToolCall
from engine.closed_json import ClosedPart, closed_part
from engine.tools.batch_validation import TOOL as BATCH_TOOL
from engine.tools.raw_arguments import MAX_ARGUMENT_CHARS, invalid_arguments

TRUNCATED = "ARGUMENTS_TRUNCATED"
_CUT_ID = re.compile(r'"paragraph_id"\s*:\s*("(?:[^"\\]|\\.)*")')
_CUT_TEXT = re.compile(r'"translated_text"\s*:\s*"((?:[^"\\]|\\.)*)')
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*|\n+")
MIN_SENTENCE_CHARS = 8  # shorter pieces ("Yes.", "…") repeat in honest text
LOOP_REPEATS = 3  # a sentence written this many times in one cut text is a repetition loop
_CARRIED = ("unchanged", "suggested", "kept_selection", "note", "warnings", "remaining")


@dataclass(frozen=True, slots=True)
class CutBatch:
    """What a cut batch call holds: its closed items, and the cut item's ID (when that string closed) and text."""

    items: tuple[Any, ...]
    cut_paragraph_id: str | None
    cut_text: str

    @property
    def repeats(self) -> bool:
        """Whether the cut text repeats one sentence: the model was in a repetition loop."""
        return repeats_one_sentence(self.cut_text)


def cut_batch(call: ToolCall) -> CutBatch:
    """The closed items of a cut ``add_translation_batch`` call, and what can be read of the cut one."""
    closed = _closed(call.arguments_raw)
    items = closed.members.get("paragraphs")
    cut_id = _CUT_ID.search(closed.rest)
    cut_text = _CUT_TEXT.search(closed.rest)
    return CutBatch(
        tuple(items) if isinstance(items, list) else (),
        None if cut_id is None else _decoded(cut_id.group(1)),
        "" if cut_text is None else _decoded(f'"{cut_text.group(1).rstrip(chr(92))}"'),
    )


def _decoded(quoted: str) -> str:
    try:
        value = json.loads(quoted)
    except ValueError:
        return quoted.strip('"')
    return value if isinstance(value, str) else ""


def repeats_one_sentence(text: str) -> bool:
    """Whether one sentence of ``text`` (of at least ``MIN_SENTENCE_CHARS``) comes ``LOOP_REPEATS`` times or more."""
    sentences = (s.strip() for s in _SENTENCE_END.split(text))
    counts = Counter(s for s in sentences if len(s) >= MIN_SENTENCE_CHARS)
    return bool(counts) and max(counts.values()) >= LOOP_REPEATS


def shown_closed(response: AssembledResponse) -> AssembledResponse:
    """``response`` with each cut call's arguments as what closed of them: the history shows the model its own cut
    call as what it really sent, never as a stand-in ``{}`` (the call stays unusable: it keeps its error)."""
    if not any(call.error_code == TRUNCATED for call in response.tool_calls):
        return response
    calls = tuple(_closed_call(call) if call.error_code == TRUNCATED else call for call in response.tool_calls)
    return dataclasses.replace(response, tool_calls=calls)


def _closed_call(call: ToolCall) -> ToolCall:
    why = call.error or "the arguments were cut off before they ended"  # whatever it shows, it never runs
    members = _closed(call.arguments_raw).members
    if call.name == BATCH_TOOL and not isinstance(members.get("paragraphs"), list):
        members = {**members, "paragraphs": []}  # a batch cut before any item closed: still a batch, not {}
    return dataclasses.replace(call, arguments=members, error=why)


def _closed(raw: str) -> ClosedPart:
    """What closed of ``raw``; nothing of a text longer than the tools' argument limit is read."""
    return closed_part(raw) if len(raw) <= MAX_ARGUMENT_CHARS else ClosedPart()


def closed_items_call(call: ToolCall, cut: CutBatch) -> ToolCall:
    """The call that submits only the closed items of the cut ``call``."""
    arguments = {"paragraphs": list(cut.items)}
    return ToolCall(call.id, call.name, json.dumps(arguments, ensure_ascii=False), arguments)


def cut_result(cut: CutBatch, batch: dict[str, Any] | None) -> dict[str, Any]:
    """What the model is told about its cut batch: ``ARGUMENTS_TRUNCATED`` with what was ``committed`` of the closed
    items (``batch`` is their result, None when none closed) and the ``cut_paragraph_id``."""
    committed = list(batch.get("accepted", ())) if batch is not None and _saved(batch) else []
    return {
        **invalid_arguments(BATCH_TOOL, _cut_sentence(cut, batch, committed), _cut_hint(cut)),
        "error_code": TRUNCATED,
        "committed": committed,
        "cut_paragraph_id": cut.cut_paragraph_id,
        **_batch_fields(batch),
    }


def _saved(batch: dict[str, Any] | None) -> bool:
    return batch is not None and batch.get("success") is True


def _batch_fields(batch: dict[str, Any] | None) -> dict[str, Any]:
    """What the closed items' own result adds: its warnings and what remains, or why it was refused."""
    if batch is None:
        return {}
    if not _saved(batch):
        return {"closed_items_refused": {k: batch[k] for k in ("error_code", "error", "hint") if k in batch}}
    return {k: batch[k] for k in _CARRIED if k in batch}


def _cut_sentence(cut: CutBatch, batch: dict[str, Any] | None, committed: list[str]) -> str:
    which = f"the item for '{cut.cut_paragraph_id}'" if cut.cut_paragraph_id else "an item"
    head = f"The arguments of add_translation_batch were cut off (the output limit) while {which} was being written."
    closed = f" The {len(cut.items)} items that closed before it"
    if batch is None:
        done = " No item had closed before the cut, so nothing was saved."
    elif not _saved(batch):
        done = f"{closed} were refused as a batch (see closed_items_refused)."
    else:
        done = f"{closed} were checked as a batch and saved ({len(committed)} written)."
    loop = " The cut text repeats one sentence: a repetition loop, not a translation." if cut.repeats else ""
    return f"{head}{done} The cut item and anything after it were not saved.{loop}"


def _cut_hint(cut: CutBatch) -> str:
    again = "Send the cut paragraph and the ones after it again, in a new call with fewer paragraphs."
    return again + (" Write each sentence once." if cut.repeats else "")
