"""The workspace glossary file (``<workspace>/glossary.json``, format ``proofdesk.glossary/1``): its records,
loading with one-line errors, and the bytes it is written as.

One entry per source term, unique case-insensitively for Latin letters (``Tokyo`` and ``tokyo`` are one term).
Unknown keys of the file and of entries are kept as they are, as the chapter format keeps them. Writing goes
through ``store.glossary_commit`` (locked, merged onto the file on disk).
"""

from __future__ import annotations

import json
import secrets
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Final, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError, model_validator

from store.errors import StoreError
from store.model import utc_now
from store.validation_text import first_error

GLOSSARY_FORMAT: Final = "proofdesk.glossary/1"
Kind = Literal["term", "character", "place", "do_not_translate"]
KINDS: tuple[str, ...] = ("term", "character", "place", "do_not_translate")
Status = Literal["approved", "proposed"]
Gender = Literal["female", "male", "other"]
Text = Annotated[str, StringConstraints(strip_whitespace=False, min_length=1)]


class GlossaryLoadError(StoreError):
    """The glossary file cannot be used: ``line`` is one sentence naming the file and the place."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


def source_key(text: str) -> str:
    """What makes two sources the same term: the text, case-folded (Latin ``Tokyo`` = ``tokyo``), trimmed."""
    return text.strip().casefold()


def new_entry_id() -> str:
    """A fresh entry ID: 8 hex digits."""
    return secrets.token_hex(4)


class GlossaryEntry(BaseModel):
    """One term: its source, the target to use, and what the translator should know."""

    model_config = ConfigDict(frozen=True, extra="allow")

    id: Text
    source: Text
    target: str
    kind: Kind = "term"
    aliases: tuple[Text, ...] = ()
    target_aliases: tuple[Text, ...] = ()  # other renderings the QA check accepts (written only when there are some)
    gender: Gender | None = None
    note: str = ""
    status: Status = "approved"
    origin: str = "manual"
    model: str | None = None
    created_at: str = Field(default_factory=utc_now)

    def line(self) -> str:
        """``下人 → the servant (term; the story's protagonist is never named)``, ``(proposed)`` when proposed."""
        details: list[str] = [self.kind]
        if self.gender:
            details.append(self.gender)
        if self.note.strip():
            details.append(" ".join(self.note.split()))
        text = f"{self.source} → {self.target} ({'; '.join(details)})"
        return text + " (proposed)" if self.status == "proposed" else text

    def to_json(self) -> dict[str, Any]:
        """The entry as written in the file (unknown keys kept, after the known ones; no ``gender``/``model``
        when unset, no ``target_aliases`` when empty)."""
        return _written(self.model_dump(mode="json"))


class Glossary(BaseModel):
    """The whole file."""

    model_config = ConfigDict(frozen=True, extra="allow")

    format: Literal["proofdesk.glossary/1"] = GLOSSARY_FORMAT
    entries: tuple[GlossaryEntry, ...] = ()

    @model_validator(mode="after")
    def _unique(self) -> Glossary:
        seen: dict[str, str] = {}
        ids: set[str] = set()
        for number, entry in enumerate(self.entries):
            if entry.id in ids:
                raise ValueError(f"entries.{number}: the id {entry.id!r} is used twice")
            ids.add(entry.id)
            key = source_key(entry.source)
            if key in seen:
                raise ValueError(
                    f"entries.{number}: the source {entry.source!r} is already entry {seen[key]!r} "
                    "(sources are unique, Latin letters compared case-insensitively)"
                )
            seen[key] = entry.id
        return self

    def by_id(self, entry_id: str) -> GlossaryEntry | None:
        """The entry with ``entry_id``."""
        return next((e for e in self.entries if e.id == entry_id), None)

    def by_source(self, source: str) -> GlossaryEntry | None:
        """The entry whose source is ``source`` (case-insensitively for Latin letters)."""
        key = source_key(source)
        return next((e for e in self.entries if source_key(e.source) == key), None)


# Entries are validated this many at a time: each validation is one call into pydantic-core that holds the GIL, and
# a glossary is parsed in a worker thread beside the workstation's event loop (100,000 entries at once held it
# for ~1 s; a slice takes a few milliseconds).
_SLICE = 1_000


@cache
def _entry_list() -> TypeAdapter[list[GlossaryEntry]]:
    return TypeAdapter(list[GlossaryEntry])


def parse_glossary(raw: bytes, source: str | Path) -> Glossary:
    """Parse glossary bytes; raise :class:`GlossaryLoadError` naming ``source`` and the place."""
    name = str(source)
    data = _json_object(raw, name)
    if data.get("format") != GLOSSARY_FORMAT:
        raise GlossaryLoadError(f"{name}: format must be {GLOSSARY_FORMAT!r}, not {data.get('format')!r}")
    try:
        return Glossary.model_validate({**data, "entries": _entries(data.get("entries", ()))})
    except ValidationError:
        pass
    try:  # a bad entry: validated whole again, for the error's place in the file
        return Glossary.model_validate(data)
    except ValidationError as exc:
        raise GlossaryLoadError(f"{name}: {first_error(exc)}") from None


def _json_object(raw: bytes, name: str) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise GlossaryLoadError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GlossaryLoadError(f"{name}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise GlossaryLoadError(f"{name}: nested too deeply to be a glossary") from None
    if not isinstance(data, dict):
        raise GlossaryLoadError(f'{name}: expected a JSON object with "format" and "entries"')
    return data


def _entries(items: object) -> object:
    """The entries validated a slice at a time (what is not a list is left for the glossary's own error)."""
    if not isinstance(items, list) or len(items) <= _SLICE:
        return items
    entries: list[GlossaryEntry] = []
    for start in range(0, len(items), _SLICE):
        entries += _entry_list().validate_python(items[start : start + _SLICE])
    return entries


_UNSET_OMITTED = ("gender", "model")  # written only when set
_EMPTY_OMITTED = ("target_aliases",)  # written only when not empty (a file without them stays as it was)


def _written(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry's JSON as the file holds it: the unset and empty optional keys left out."""
    for key in _UNSET_OMITTED:
        if entry.get(key, 0) is None:
            del entry[key]
    for key in _EMPTY_OMITTED:
        if entry.get(key) == []:
            del entry[key]
    return entry


def glossary_bytes(glossary: Glossary) -> bytes:
    """The file's bytes: indented JSON, non-ASCII kept, a final newline (the whole file dumped in one pass)."""
    data = glossary.model_dump(mode="json")
    for entry in data["entries"]:
        _written(entry)
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"
