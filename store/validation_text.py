"""How a refused value is named: the path of the field, and the one sentence of pydantic's first error."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported by a headless run, which never imports pydantic
    from pydantic import ValidationError


def field_path(loc: tuple[int | str, ...], whole: str) -> str:
    """``("paragraphs", 2, "paragraph_id")`` -> ``paragraphs[2].paragraph_id``; ``whole`` names an empty path."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or whole


def first_error(exc: ValidationError) -> str:
    """``entries.2.target: String should have at least 1 character``: the dotted field path of the first error and
    its message (a validator's own sentence, without pydantic's ``Value error,`` prefix); only the message when the
    error is about the value as a whole."""
    first = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"])
    said = first["msg"].removeprefix("Value error, ")
    return f"{where}: {said}" if where else said
