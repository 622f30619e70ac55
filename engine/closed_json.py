"""What a cut-off JSON object said before the cut: its members that closed, never a guess at a cut value.

A tool call's arguments cut off by the output limit (``{"paragraphs": [{…}, {…}, {"paragraph_id": "x",
"translated_text": "Th``) still hold members and list items that closed before the cut. Only values the decoder
reads whole are kept — an object, list or string is whole when it closed (every string in it closed), a number, true,
false or null only when a delimiter follows it (``12`` may be the start of ``123``). A member whose value is a list
cut inside keeps the items that closed; whatever is cut is left in ``rest``, for naming only.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from engine.json_depth import too_deep

_DECODER = json.JSONDecoder()
_FENCE_OPEN = re.compile(r"(?:\s*```[A-Za-z0-9_-]*[ \t]*\n?)?")
_SPACE = re.compile(r"\s*")
_SELF_CLOSING = (dict, list, str)


@dataclass(frozen=True, slots=True)
class ClosedPart:
    """The members of a cut object that closed (a cut list member with its closed items), and the text from where
    the cut value starts (empty when the object itself closed, or nothing could be read)."""

    members: dict[str, Any] = field(default_factory=dict)
    rest: str = ""


def closed_part(raw: str) -> ClosedPart:
    """The closed members of the JSON object ``raw`` starts (after an optional code fence line)."""
    text = raw[_FENCE_OPEN.match(raw).end() :]  # type: ignore[union-attr]  # the pattern matches the empty string
    at = _skip(text, 0)
    if not text.startswith("{", at) or too_deep(text):
        return ClosedPart()
    return _members(text, at + 1)


def _members(text: str, at: int) -> ClosedPart:
    members: dict[str, Any] = {}
    while not isinstance(step := _next_member(text, at, members), ClosedPart):
        at = step
    return step


def _next_member(text: str, at: int, members: dict[str, Any]) -> int | ClosedPart:
    """Read the member at ``at`` into ``members``: where the next one starts, or how the object ended."""
    start = _skip(text, at)
    key = _key_at(text, start)
    if key is None:
        return ClosedPart(members, "" if text.startswith("}", start) else text[start:])
    name, at = key
    value = _whole_value(text, at)
    if value is None:
        return _cut_member(members, name, text, at)
    members[name] = value[0]
    at = _skip(text, value[1])
    return at + 1 if text.startswith(",", at) else ClosedPart(members)  # "}" or anything else: it ended here


def _key_at(text: str, at: int) -> tuple[str, int] | None:
    """The member key at ``at`` and where its value starts (after the colon), or None."""
    key = _whole_value(text, at)
    if key is None or not isinstance(key[0], str):
        return None
    colon = _skip(text, key[1])
    return (key[0], _skip(text, colon + 1)) if text.startswith(":", colon) else None


def _cut_member(members: dict[str, Any], key: str, text: str, at: int) -> ClosedPart:
    """The member ``key`` whose value was cut: a list keeps its closed items; any other value is left out."""
    if not text.startswith("[", at):
        return ClosedPart(members, text[at:])
    items, rest = _closed_items(text, at + 1)
    return ClosedPart({**members, key: items}, rest)


def _closed_items(text: str, at: int) -> tuple[list[Any], str]:
    """The items of a list cut inside that closed, and the text of the cut item."""
    items: list[Any] = []
    while True:
        at = _skip(text, at)
        value = _whole_value(text, at)
        if value is None:
            return items, text[at:]
        items.append(value[0])
        at = _skip(text, value[1])
        if not text.startswith(",", at):
            return items, text[at:].lstrip("]")
        at += 1


def _whole_value(text: str, at: int) -> tuple[Any, int] | None:
    """The JSON value at ``at`` and where it ends, when it is whole (see the module docstring)."""
    try:
        value, end = _DECODER.raw_decode(text, at)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, _SELF_CLOSING) or text[_skip(text, end) : _skip(text, end) + 1] in (",", "}", "]"):
        return value, end
    return None


def _skip(text: str, at: int) -> int:
    return _SPACE.match(text, at).end()  # type: ignore[union-attr]  # the pattern matches the empty string
