"""Reading the glossary file and entries given as data: what is plainly valid (each value of exactly its type, the
usual case) is checked here by hand and built into :mod:`store.glossary`'s records; anything else goes to the careful
path, :mod:`store.glossary_check` (pydantic, imported only then), which accepts it or names its first problem in one
line. The two agree on every input (``tests/store/test_glossary_check.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from store.glossary import (
    ENTRY_KEYS,
    GENDERS,
    GLOSSARY_FORMAT,
    KINDS,
    STATUSES,
    Glossary,
    GlossaryEntry,
    GlossaryLoadError,
    unique_problem,
)


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
_KNOWN = frozenset(ENTRY_KEYS)
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
