"""The careful path of the configuration file: what the fast path could not take as it is, read by pydantic's lax
mode (the structs' twin, :mod:`engine.struct_twin`), accepted as pydantic accepts it or refused in one sentence
naming the key. Imported only for such a file.
"""

from __future__ import annotations

from typing import Any, TypeVar, get_args, get_type_hints

import msgspec
from pydantic import ValidationError

from engine.field_steps import is_struct
from engine.struct_twin import twin
from store.validation_text import first_error

C = TypeVar("C", bound=msgspec.Struct)


def careful_config(data: dict[str, Any], config: type[C]) -> C:
    """``data`` as ``config`` (``engine.config.Config``); raises ``ValueError`` with the sentence that refuses it
    (without the file's path)."""
    try:
        model = twin(config).model_validate(data)
    except ValidationError as exc:
        raise ValueError(_unknown_key(exc, config) or first_error(exc)) from None
    # The lax result has the declared types now: the strict conversion always fits.
    return msgspec.convert(model.model_dump(), config)


def _table(hint: Any) -> type[msgspec.Struct] | None:
    """The struct a top-level key holds: itself (``run``) or as the values of a table of tables (``profiles``)."""
    if is_struct(hint):
        return hint
    return next((table for arg in get_args(hint) if (table := _table(arg))), None)


def _unknown_key(exc: ValidationError, config: type[msgspec.Struct]) -> str | None:
    """For a key no table of the file has (a typo, a key from another tool): which one, and the nearest known key."""
    first = exc.errors(include_url=False)[0]
    if first["type"] != "extra_forbidden":
        return None
    import difflib  # here: only a broken config file needs it

    loc = tuple(str(part) for part in first["loc"])
    hints = get_type_hints(config, include_extras=True)
    table = (_table(hints.get(loc[0])) or config) if len(loc) > 1 else config
    known = sorted(f.name for f in msgspec.structs.fields(table))
    near = difflib.get_close_matches(loc[-1], known, n=1, cutoff=0.5)
    hint = f"did you mean {near[0]}?" if near else "the keys here are " + ", ".join(known)
    return f"{'.'.join(loc)}: not a key proofdesk knows ({hint})"
