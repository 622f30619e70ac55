"""How deeply a JSON text nests, found without parsing it.

Python's ``json`` and msgspec parse recursively: a thousand nested brackets in a tool call's arguments or in one
field of a streamed chunk raise ``RecursionError`` (and pydantic validation of a barely-parsable value may too).
Nothing a model or a provider legitimately sends nests deeper than a few levels, so text nesting deeper than
``MAX_JSON_DEPTH`` is refused before any parser sees it.
"""

from __future__ import annotations

import re

MAX_JSON_DEPTH = 64
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def too_deep(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether ``text`` opens more than ``limit`` brackets at once (outside strings); linear in its length."""
    if text.count("[") + text.count("{") <= limit:  # the usual case: too few brackets to nest that deep
        return False
    depth = 0
    for match in _BRACKET.finditer(_STRING.sub("", text)):
        if match.group() in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth = max(0, depth - 1)
    return False
