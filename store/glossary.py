"""The workspace glossary file (``<workspace>/glossary.json``, format ``proofdesk.glossary/1``): its records,
loading with one-line errors, and the bytes it is written as.

One entry per source term, unique case-insensitively for Latin letters (``Tokyo`` and ``tokyo`` are one term).
Unknown keys of the file and of entries are kept as they are, as the chapter format keeps them. Writing goes
through ``store.glossary_commit`` (locked, merged onto the file on disk).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from pathlib import Path
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

    Building an entry checks nothing: :func:`entry_from` checks data (a file's, a command's), with the words of
    :mod:`store.glossary_check` for what it refuses. ``extra`` holds the entry's unknown keys (never changed in
    place).
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
        data = {name: getattr(self, name) for name in _ENTRY_KEYS}
        data["aliases"] = list(self.aliases)
        data["target_aliases"] = list(self.target_aliases)
        return _written({**data, **self.extra})


_ENTRY_KEYS = tuple(name for name in GlossaryEntry.__struct_fields__ if name != "extra")


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


def entry_from(data: dict[str, Any]) -> GlossaryEntry:
    """The entry of ``data`` (its unknown keys kept); raises :class:`GlossaryEntryError` naming its first problem."""
    entry = plain_entry(data)
    if entry is not None:
        return entry
    from store.glossary_check import checked_entry  # pydantic: only for what is not plainly valid

    return checked_entry(data)


def parse_glossary(raw: bytes, source: str | Path) -> Glossary:
    """Parse glossary bytes; raise :class:`GlossaryLoadError` naming ``source`` and the place."""
    name = str(source)
    data = _json_object(raw, name)
    if data.get("format") != GLOSSARY_FORMAT:
        raise GlossaryLoadError(f"{name}: format must be {GLOSSARY_FORMAT!r}, not {data.get('format')!r}")
    glossary = _plain_glossary(data)
    if glossary is not None:
        return glossary
    from store.glossary_check import checked_glossary  # pydantic: only for a file that is not plainly valid

    return checked_glossary(data, name)


def _plain_glossary(data: dict[str, Any]) -> Glossary | None:
    """The glossary when every entry is plainly valid and unique; None when the careful path must decide."""
    items = data.get("entries", [])
    if type(items) is not list:
        return None
    entries = []
    for item in items:
        entry = plain_entry(item)
        if entry is None:
            return None
        entries.append(entry)
    if unique_problem(entries) is not None:
        return None
    extra = {k: v for k, v in data.items() if k not in _GLOSSARY_KEYS}
    return Glossary(entries=tuple(entries), extra=extra)


_GLOSSARY_KEYS = frozenset(("format", "entries"))
_KNOWN = frozenset(_ENTRY_KEYS)
_MISSING = object()


def _text(value: Any) -> bool:
    return type(value) is str and value != ""


def _string(value: Any) -> bool:
    return type(value) is str


def _optional_string(value: Any) -> bool:
    return value is None or type(value) is str


def _texts(value: Any) -> bool:
    """A list (or tuple) of non-empty strings."""
    return type(value) in (list, tuple) and all(type(v) is str and v for v in value)


def _one_of(allowed: tuple[str | None, ...]) -> Callable[[Any], bool]:
    return lambda value: _optional_string(value) and value in allowed


# What a plainly valid entry holds: each key, its value when missing, and the check of its value.
_PLAIN_RULES: tuple[tuple[str, object, Callable[[Any], bool]], ...] = (
    ("id", _MISSING, _text),
    ("source", _MISSING, _text),
    ("target", _MISSING, _string),
    ("kind", "term", _one_of(KINDS)),
    ("aliases", (), _texts),
    ("target_aliases", (), _texts),
    ("gender", None, _one_of(GENDERS)),
    ("note", "", _string),
    ("status", "approved", _one_of(STATUSES)),
    ("origin", "", _string),
    ("model", None, _optional_string),
    ("created_at", "", _string),
)


def plain_entry(item: Any) -> GlossaryEntry | None:
    """The entry of ``item`` when it is plainly valid (each value of exactly its type); None otherwise (the careful
    path, :mod:`store.glossary_check`, then accepts or names the problem)."""
    if type(item) is not dict or not all(check(item.get(key, missing)) for key, missing, check in _PLAIN_RULES):
        return None
    values: dict[str, Any] = {k: tuple(v) if k in _LISTS else v for k, v in item.items() if k in _KNOWN}
    return GlossaryEntry(**values, extra=_unknown(item) if len(values) < len(item) else {})


_LISTS = frozenset(("aliases", "target_aliases"))


def _unknown(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k not in _KNOWN}


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
