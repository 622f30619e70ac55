"""The careful path of a tool call's arguments: what the fast path could not take, judged by pydantic's lax mode
(the struct's twin, :mod:`engine.struct_twin`), accepted as pydantic accepts it or refused in its words.

Imported only when a call's arguments are refused or of a looser type than declared (``"count": "3"``).
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from engine.struct_twin import twin
from engine.tools.raw_arguments import BadArguments, invalid_arguments
from store.validation_text import field_path

A = TypeVar("A", bound=msgspec.Struct)


def careful_convert(struct: type[A], tool: str, raw: dict[str, Any]) -> A:
    """``raw`` as ``struct`` (a flat struct: no struct inside it), as pydantic's lax mode takes it; raises
    :class:`BadArguments` naming the first bad field."""
    try:
        model = twin(struct).model_validate(raw)
    except ValidationError as exc:
        raise BadArguments(validation_failure(tool, exc)) from None
    return struct(**dict(model))


def _describe(err: ErrorDetails) -> str:
    msg = str(err.get("msg", "is invalid"))
    if err.get("type") == "missing":
        return "is required"
    return msg[0].lower() + msg[1:] if msg else "is invalid"


def validation_failure(tool: str, exc: ValidationError) -> dict[str, Any]:
    """``INVALID_ARGUMENTS`` naming the first bad field (all of them under ``invalid_fields``)."""
    errors = exc.errors(include_url=False, include_input=False)
    fields = [{"field": field_path(tuple(e["loc"]), "arguments"), "problem": _describe(e)} for e in errors]
    first = fields[0]
    hint = "Fix that field and call the tool again; see the tool's parameter descriptions."
    if first["field"].endswith("paragraph_id"):
        hint = (
            'Pass paragraph_id as the string shown in [ID: …] in the chunk text (e.g. "e58ed763"); '
            "the [n] index is not accepted."
        )
    return invalid_arguments(
        tool,
        f"Invalid arguments for {tool}: field '{first['field']}' {first['problem']}.",
        hint,
        field=first["field"],
        invalid_fields=fields,
    )
