"""What the tool-call loop tells the model besides the tools' own results: reminders, notes on calls that did not
run or changed nothing, and the tool message itself."""

from __future__ import annotations

import json
from typing import Any

from engine.client.response import ToolCall
from engine.counted import counted
from engine.tools.raw_arguments import MAX_ARGUMENT_CHARS, invalid_arguments


def reminder_text(missing: list[str], answer: str = "other", revises: bool = False) -> str:
    """The reminder sent when the model answers without a call while paragraphs of its chunk have no submission
    (``answer``: what the answer was, see ``engine.echoes.classify``)."""
    if answer == "echo":
        return ECHO_TEXT
    empty = "Your answer was empty. " if answer == "empty" else ""
    return empty + (_unreviewed(missing) if revises else _unsubmitted(missing))


def _unsubmitted(missing: list[str]) -> str:
    have = "has" if len(missing) == 1 else "have"
    return (
        f"{counted(len(missing), 'paragraph')} of this chunk still {have} no accepted submission: "
        f"{', '.join(missing)}. Submit them with add_translation_batch, using each paragraph_id exactly as shown "
        "in [ID: …]."
    )


def _unreviewed(missing: list[str]) -> str:
    were = "was" if len(missing) == 1 else "were"
    return (
        f"{counted(len(missing), 'paragraph')} of this chunk {were} neither submitted nor declared unchanged: "
        f"{', '.join(missing)}. Submit what you change with add_translation_batch (paragraph_id as shown in "
        "[ID: …]), or answer `no changes`."
    )


ECHO_TEXT = (
    "You repeated the chunk without changing it, so nothing was submitted. Submit what you change with "
    "add_translation_batch, or answer `no changes`."
)
OUTPUT_LIMIT_TEXT = (
    "Your last response was cut off (it reached the token limit) before it made any tool call, so "
    "nothing was submitted. Do not write explanations or repeat the text: call "
    "add_translation_batch right away, with a few paragraphs per call."
)
UNCHANGED_NOTE = (
    "Nothing was written: every text you sent is identical to the paragraph's current text. Do not "
    "resend results that were already accepted."
)
TOO_MANY_CALLS_TEXT = (
    "Your last response made {made} tool calls; only the first {limit} were run (the others were "
    "dropped, unanswered). Make at most {limit} tool calls per response."
)
REPEATED_NOTE = "This call is identical to one you already made in this chunk; repeating it changes nothing."


def tool_message(call: ToolCall, result: dict[str, Any]) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result, ensure_ascii=False)}


def oversized_call(call: ToolCall) -> dict[str, Any]:
    return invalid_arguments(
        call.name,
        f"The arguments of {call.name} are {len(call.arguments_raw):,} characters "
        f"long, more than the limit of {MAX_ARGUMENT_CHARS:,}.",
        "Send fewer or shorter items per call.",
    )


def unusable_call(call: ToolCall) -> dict[str, Any]:
    if call.error_code == "ARGUMENTS_TRUNCATED":
        result = invalid_arguments(
            call.name,
            f"The arguments of {call.name or 'this tool call'} were cut off before "
            "they ended, so the call did not run and nothing was saved.",
            "Send the call again with fewer paragraphs, so it fits in one response.",
        )
        return {**result, "error_code": "ARGUMENTS_TRUNCATED"}
    what = f"The arguments of {call.name or 'this tool call'} could not be used: {call.error or 'no arguments'}."
    return invalid_arguments(
        call.name, what, "Send the arguments again as one JSON object that matches the tool's schema."
    )


def judged_submission(
    result: dict[str, Any], ok: bool, accepted: tuple[str, ...], repeated: bool
) -> tuple[dict[str, Any], bool]:
    """A submission's result with a note when it changed nothing, and whether it moved the chunk on."""
    if repeated:
        return {**result, "note": REPEATED_NOTE}, False
    if ok and not accepted:
        return {**result, "note": UNCHANGED_NOTE}, False
    return result, True  # accepted something, or a new attempt the tools refused: not a stall


STALLED_WHY = {
    "OUTPUT_LIMIT": "two responses were cut off before they ended (finish reason length, or tool arguments cut off)",
    "NO_PROGRESS": "in two turns the model only repeated earlier calls or resent texts that were already saved",
}
REPAIRED_WARNING = (
    "Your arguments were not valid JSON and were repaired automatically; check that they say what you meant."
)
