"""The one sentence a refused value gets: pydantic's first validation error, where and what."""

from __future__ import annotations

from pydantic import ValidationError


def first_error(exc: ValidationError) -> str:
    """``entries.2.target: String should have at least 1 character``: the dotted field path of the first error and
    its message (a validator's own sentence, without pydantic's ``Value error,`` prefix); only the message when the
    error is about the value as a whole."""
    first = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"])
    said = first["msg"].removeprefix("Value error, ")
    return f"{where}: {said}" if where else said
