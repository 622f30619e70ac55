"""The tool calls of a finished response: ids made unique, arguments parsed (or refused with a reason), objects
glued under one index split, and OpenAI's hallucinated ``multi_tool_use.parallel`` wrapper unpacked."""

from __future__ import annotations

import json
import secrets
import string
from typing import Any

from engine.client.arguments import parse_arguments, split_concatenated, unwrap_parallel
from engine.client.call_in_progress import CallInProgress
from engine.client.finish import FinishReason
from engine.client.response import ToolCall
from engine.client.text_stream import fix_surrogates

_ID_ALPHABET = string.ascii_letters + string.digits

# Why a call of a response that did not end normally is not run, by finish reason (others: an error).
_NOT_RUN = {
    "length": (
        "ARGUMENTS_TRUNCATED",
        "the response was cut off by the output token limit, so this call may be incomplete and did not run",
    ),
    "content_filter": ("INVALID_ARGUMENTS", "the response was stopped by the content filter, so this call did not run"),
}
_ENDED_IN_ERROR = ("INVALID_ARGUMENTS", "the response ended with an error, so this call did not run")


def new_tool_call_id() -> str:
    """A fresh call id: 9 characters of [A-Za-z0-9], the only shape Mistral accepts back."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(9))


def final_calls(
    calls: list[CallInProgress], *, executable: bool, finish: FinishReason
) -> tuple[list[ToolCall], list[ToolCall]]:
    """The calls to run, and (only when a wrapper was expanded) the calls as the model made them.

    ``executable`` is false when the response did not end normally: then no call runs, each says why.
    """
    ids = _FreshIds()
    run: list[ToolCall] = []
    received: list[ToolCall] = []
    expanded = False
    for call in calls:
        for made in _made_calls(call, ids, executable=executable, finish=finish):
            received.append(made)
            inner = _inner_calls(made, ids)
            if inner is None:
                run.append(made)
            else:
                expanded = True
                run.extend(inner)
    return run, (received if expanded else [])


class _FreshIds:
    """Call ids unique within one response: the model's own when it gave one not used yet, else a new one."""

    def __init__(self) -> None:
        self._used: set[str] = set()

    def take(self, candidate: str | None) -> str:
        """``candidate`` when it is free, else a fresh id; either way it is taken now."""
        call_id = candidate if candidate and candidate not in self._used else new_tool_call_id()
        while call_id in self._used:
            call_id = new_tool_call_id()
        self._used.add(call_id)
        return call_id


def _made_calls(call: CallInProgress, ids: _FreshIds, *, executable: bool, finish: FinishReason) -> list[ToolCall]:
    """``call`` as the model made it: one call per argument object (the first keeps the model's id)."""
    return [
        _finished_call(ids.take(None if number else call.id), call.name, text, call.extra, executable, finish)
        for number, text in enumerate(_argument_texts(call, executable))
    ]


def _argument_texts(call: CallInProgress, executable: bool) -> list[str]:
    """The argument texts of ``call``: none for an empty shell, several when objects were glued under one index
    (only split when the calls may run)."""
    raw = fix_surrogates("".join(call.args))
    if _is_empty_shell(call, raw):
        return []
    glued = split_concatenated(raw) if executable else None
    return glued or [raw]


def _is_empty_shell(call: CallInProgress, raw: str) -> bool:
    """A call with no name, no arguments and no metadata (e.g. an id-only delta with nothing after it)."""
    return not (call.name or raw.strip() or call.extra)


def _finished_call(
    call_id: str, name: str, raw: str, extra: dict[str, Any] | None, executable: bool, finish: FinishReason
) -> ToolCall:
    parsed = parse_arguments(raw, allow_repair=executable)
    if not executable:
        code, why = _NOT_RUN.get(finish, _ENDED_IN_ERROR)
        return ToolCall(call_id, name, raw, parsed.arguments, why, False, extra, code)
    if not name:
        why = "the tool call has no function name"
        return ToolCall(call_id, name, raw, parsed.arguments, why, False, extra, "INVALID_ARGUMENTS")
    return ToolCall(call_id, name, raw, parsed.arguments, parsed.error, parsed.repaired, extra, parsed.error_code)


def _inner_calls(made: ToolCall, ids: _FreshIds) -> list[ToolCall] | None:
    """The inner calls of a ``multi_tool_use.parallel`` wrapper, each under a fresh id (the wrapper itself is kept
    for the trace and check-model); None when ``made`` is not one."""
    inner = unwrap_parallel(made.name, made.arguments) if made.executable else None
    if inner is None:
        return None
    return [
        ToolCall(
            ids.take(None),
            name,
            json.dumps(arguments, ensure_ascii=False, separators=(",", ":")),
            arguments,
            extra_content=made.extra_content,
        )
        for name, arguments in inner
    ]
