"""The careful path of the configuration file: what the fast path could not take as it is, read by pydantic's lax
mode (the structs' twin, :mod:`engine.struct_twin`), accepted as pydantic accepts it or refused in one sentence
naming the key. Imported only for such a file.
"""

from __future__ import annotations

from typing import Any

import msgspec
from pydantic import ValidationError

from engine.config import Config, Profile, RunDefaults
from engine.struct_twin import twin
from store.validation_text import first_error


def careful_config(data: dict[str, Any]) -> Config:
    """``data`` as a :class:`Config`; raises ``ValueError`` with the sentence that refuses it (without the path)."""
    try:
        model = twin(Config).model_validate(data)
    except ValidationError as exc:
        raise ValueError(_unknown_key(exc) or first_error(exc)) from None
    # The lax result has the declared types now: the strict conversion always fits.
    return msgspec.convert(model.model_dump(), Config)


def _unknown_key(exc: ValidationError) -> str | None:
    """For a key no table of the file has (a typo, a key from another tool): which one, and the nearest known key."""
    first = exc.errors(include_url=False)[0]
    if first["type"] != "extra_forbidden":
        return None
    import difflib  # here: only a broken config file needs it

    loc = tuple(str(part) for part in first["loc"])
    tables: dict[str, type[msgspec.Struct]] = {"profiles": Profile, "run": RunDefaults}
    table = tables.get(loc[0], Config) if len(loc) > 1 else Config
    known = sorted(f.name for f in msgspec.structs.fields(table))
    near = difflib.get_close_matches(loc[-1], known, n=1, cutoff=0.5)
    hint = f"did you mean {near[0]}?" if near else "the keys here are " + ", ".join(known)
    return f"{'.'.join(loc)}: not a key proofdesk knows ({hint})"
