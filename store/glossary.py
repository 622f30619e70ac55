"""The workspace glossary file (``<workspace>/glossary.json``, format ``proofdesk.glossary/1``): its records (frozen
msgspec structs), its errors, and the bytes it is written as. Reading it: ``store.glossary_read``.

One entry per source term, unique case-insensitively for Latin letters (``Tokyo`` and ``tokyo`` are one term).
Unknown keys of the file and of entries are kept as they are, as the chapter format keeps them. Writing goes
through ``store.glossary_commit`` (locked, merged onto the file on disk).
"""

from __future__ import annotations

import secrets
from typing import Any, Final, Literal

import msgspec
import orjson

from store.errors import StoreError
from store.model import utc_now

GLOSSARY_FORMAT: Final = "proofdesk.glossary/1"
Kind = Literal["term", "character", "place", "do_not_translate"]
KINDS: tuple[str, ...] = ("term", "character", "place", "do_not_translate")
Status = Literal["approved", "proposed"]
STATUSES: tuple[str, ...] = ("approved", "proposed")
Gender = Literal["female", "male", "other"]
GENDERS: tuple[str | None, ...] = (None, "female", "male", "other")


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


class GlossaryEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One term: its source, the target to use, and what the translator should know.

    Building an entry checks nothing: :func:`store.glossary_read.entry_from` checks data (a file's, a command's),
    with the words of :mod:`store.glossary_check` for what it refuses. ``extra`` holds the entry's unknown keys
    (never changed in place).
    """

    id: str  # non-empty, as source and each alias
    source: str
    target: str
    kind: Kind = "term"
    aliases: tuple[str, ...] = ()
    target_aliases: tuple[str, ...] = ()  # other renderings the QA check accepts (written only when there are some)
    gender: Gender | None = None
    note: str = ""
    status: Status = "approved"
    origin: str = "manual"
    model: str | None = None
    created_at: str = msgspec.field(default_factory=utc_now)
    extra: dict[str, Any] = {}

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
        data = {name: getattr(self, name) for name in ENTRY_KEYS}
        data["aliases"] = list(self.aliases)
        data["target_aliases"] = list(self.target_aliases)
        return _written({**data, **self.extra})


ENTRY_KEYS = tuple(name for name in GlossaryEntry.__struct_fields__ if name != "extra")


class Glossary(msgspec.Struct, frozen=True, kw_only=True):
    """The whole file: entries with unique IDs and sources (:func:`unique_problem`); ``extra``: unknown keys."""

    format: Literal["proofdesk.glossary/1"] = GLOSSARY_FORMAT
    entries: tuple[GlossaryEntry, ...] = ()
    extra: dict[str, Any] = {}

    def by_id(self, entry_id: str) -> GlossaryEntry | None:
        """The entry with ``entry_id``."""
        return next((e for e in self.entries if e.id == entry_id), None)

    def by_source(self, source: str) -> GlossaryEntry | None:
        """The entry whose source is ``source`` (case-insensitively for Latin letters)."""
        key = source_key(source)
        return next((e for e in self.entries if source_key(e.source) == key), None)


def unique_problem(entries: tuple[Any, ...] | list[Any]) -> str | None:
    """``entries.3: the id 'e1' is used twice`` (or the same source): what breaks the file's uniqueness, or None."""
    seen: dict[str, str] = {}
    ids: set[str] = set()
    for number, entry in enumerate(entries):
        if entry.id in ids:
            return f"entries.{number}: the id {entry.id!r} is used twice"
        ids.add(entry.id)
        key = source_key(entry.source)
        if key in seen:
            return (
                f"entries.{number}: the source {entry.source!r} is already entry {seen[key]!r} "
                "(sources are unique, Latin letters compared case-insensitively)"
            )
        seen[key] = entry.id
    return None


class GlossaryEntryError(ValueError):
    """Data that is no glossary entry: ``line`` is its first problem (``field: what is wrong``)."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


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
    data = {"format": glossary.format, "entries": [e.to_json() for e in glossary.entries], **glossary.extra}
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"
