"""The careful path of the glossary file: pydantic models of ``proofdesk.glossary/1``, imported only for data that
:mod:`store.glossary` does not find plainly valid, that accept what is valid and name the first problem.

The models mirror the records of :mod:`store.glossary` field for field (``tests/store/test_glossary_check.py`` holds
them to it); what passes is built into those records, unknown keys kept.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError, model_validator

from store import glossary as records
from store.glossary import GLOSSARY_FORMAT, Gender, GlossaryEntryError, GlossaryLoadError, Kind, Status, unique_problem
from store.model import utc_now
from store.validation_text import first_error

Text = Annotated[str, StringConstraints(strip_whitespace=False, min_length=1)]


class GlossaryEntry(BaseModel):
    """What :class:`store.glossary.GlossaryEntry` holds (named as it is: pydantic's words name the class)."""

    model_config = ConfigDict(frozen=True, extra="allow")

    id: Text
    source: Text
    target: str
    kind: Kind = "term"
    aliases: tuple[Text, ...] = ()
    target_aliases: tuple[Text, ...] = ()
    gender: Gender | None = None
    note: str = ""
    status: Status = "approved"
    origin: str = "manual"
    model: str | None = None
    created_at: str = Field(default_factory=utc_now)


class Glossary(BaseModel):
    """What :class:`store.glossary.Glossary` holds: entries with unique IDs and sources."""

    model_config = ConfigDict(frozen=True, extra="allow")

    format: Literal["proofdesk.glossary/1"] = GLOSSARY_FORMAT
    entries: tuple[GlossaryEntry, ...] = ()

    @model_validator(mode="after")
    def _unique(self) -> Glossary:
        problem = unique_problem(self.entries)
        if problem is not None:
            raise ValueError(problem)
        return self


# Entries are validated this many at a time: each validation is one call into pydantic-core that holds the GIL, and
# a glossary is parsed in a worker thread beside the workstation's event loop (100,000 entries at once held it
# for ~1 s; a slice takes a few milliseconds).
_SLICE = 1_000


@cache
def _entry_list() -> TypeAdapter[list[GlossaryEntry]]:
    return TypeAdapter(list[GlossaryEntry])


def checked_glossary(data: dict[str, Any], name: str) -> records.Glossary:
    """The glossary of ``data`` (a JSON object of the right format); raises :class:`GlossaryLoadError` naming
    ``name`` and the first problem."""
    try:
        checked = Glossary.model_validate({**data, "entries": _entries(data.get("entries", ()))})
    except ValidationError:
        checked = None
    if checked is None:
        try:  # a bad entry: validated whole again, for the error's place in the file
            checked = Glossary.model_validate(data)
        except ValidationError as exc:
            raise GlossaryLoadError(f"{name}: {first_error(exc)}") from None
    entries = tuple(_entry(e) for e in checked.entries)
    return records.Glossary(entries=entries, extra=dict(checked.__pydantic_extra__ or {}))


def checked_entry(data: dict[str, Any]) -> records.GlossaryEntry:
    """The entry of ``data``; raises :class:`GlossaryEntryError` with its first problem."""
    try:
        return _entry(GlossaryEntry.model_validate(data))
    except ValidationError as exc:
        raise GlossaryEntryError(first_error(exc)) from None


def _entry(checked: GlossaryEntry) -> records.GlossaryEntry:
    values = {name: getattr(checked, name) for name in GlossaryEntry.model_fields}
    return records.GlossaryEntry(**values, extra=dict(checked.__pydantic_extra__ or {}))


def _entries(items: object) -> object:
    """The entries validated a slice at a time (what is not a list is left for the glossary's own error)."""
    if not isinstance(items, list) or len(items) <= _SLICE:
        return items
    entries: list[GlossaryEntry] = []
    for start in range(0, len(items), _SLICE):
        entries += _entry_list().validate_python(items[start : start + _SLICE])
    return entries
