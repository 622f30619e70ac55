"""Tool calls a model wrote as text: lifted from the content into calls (design section 19).

Many local servers leave a Hermes-style call in the message content (Qwen2.5 on llama.cpp does): a response with no
``tool_calls`` whose content holds JSON objects ``{"name": <a tool offered in this request>, "arguments": {…}}`` —
bare, inside ``<tool_call>…</tool_call>``, or in a code fence — is run as those calls (IDs generated), through the
same validation, boundaries, cut-off rule and atomic commit as any call. Nothing else in the content is guessed: an
object with another shape, or naming a tool the request did not offer, is left as text.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Collection, Iterator
from typing import Any

from engine.client.response import AssembledResponse, ToolCall
from engine.json_depth import too_deep

_DECODER = json.JSONDecoder()
# Where a JSON object with a key may start: only there is the decoder tried (a text of many "{" costs one scan).
_OBJECT_START = re.compile(r'\{\s*"')
MAX_LIFTED_CHARS = 2_000_000  # the tools' own argument limit: a longer content is not searched


def lift_text_calls(response: AssembledResponse, offered: Collection[str], turn: int) -> AssembledResponse | None:
    """``response`` with the calls its content writes as JSON made its tool calls, or None when it has calls
    already or its content writes none."""
    content = response.content
    if response.tool_calls or "{" not in content or len(content) > MAX_LIFTED_CHARS or too_deep(content):
        return None  # (text nesting deeper than any call would cost the decoder its depth at every object start)
    calls = [
        _call(name, arguments, f"text-{turn}-{number}")
        for number, (name, arguments) in enumerate(_written_calls(content, offered), start=1)
    ]
    if not calls:
        return None
    return dataclasses.replace(response, tool_calls=tuple(calls), lifted_from_content=True)


def _written_calls(content: str, offered: Collection[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(name, arguments)`` of every JSON object in ``content`` that is a call of an offered tool, in order."""
    end = 0
    for start in _OBJECT_START.finditer(content):
        if start.start() < end:
            continue  # inside the object just read: a call inside another object was not written as a call
        found = _object_at(content, start.start())
        if found is None:
            continue
        value, end = found
        call = _as_call(value, offered)
        if call is not None:
            yield call


def _object_at(content: str, at: int) -> tuple[Any, int] | None:
    try:
        return _DECODER.raw_decode(content, at)
    except (ValueError, RecursionError):
        return None


def _as_call(value: Any, offered: Collection[str]) -> tuple[str, dict[str, Any]] | None:
    """A call's name and arguments when ``value`` is exactly ``{"name": offered, "arguments": object}`` (arguments
    also as a string holding one JSON object, as the OpenAI wire format writes them)."""
    if not isinstance(value, dict) or set(value) != {"name", "arguments"}:
        return None
    name, arguments = value["name"], value["arguments"]
    if isinstance(arguments, str):
        found = _object_at(arguments.strip(), 0) if arguments.strip().startswith("{") else None
        arguments = found[0] if found is not None and found[1] == len(arguments.strip()) else None
    if not isinstance(name, str) or name not in offered or not isinstance(arguments, dict):
        return None
    return name, arguments


def _call(name: str, arguments: dict[str, Any], call_id: str) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments_raw=json.dumps(arguments, ensure_ascii=False), arguments=arguments)
