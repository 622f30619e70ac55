"""The glossary's plain path (hand checks, :mod:`store.glossary`) and its careful path (pydantic,
:mod:`store.glossary_check`) describe the same records and agree on every entry: the same record, or the plain
path declines and the careful path accepts or names the problem."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from store import glossary_check
from store.glossary import Glossary, GlossaryEntry, GlossaryEntryError, GlossaryLoadError
from store.glossary_check import checked_entry, checked_glossary
from store.glossary_read import parse_glossary, plain_entry


def record_fields(record: type[msgspec.Struct]) -> list[tuple[str, Any]]:
    """Each key of the record and its default (``...`` when required, the factory when there is one)."""
    out = []
    for f in msgspec.structs.fields(record):
        if f.name != "extra":
            default = f.default_factory if f.default_factory is not msgspec.NODEFAULT else f.default
            out.append((f.name, ... if f.required else default))
    return out


def model_fields(model: type[BaseModel]) -> list[tuple[str, Any]]:
    return [
        (name, ... if f.is_required() else (f.default_factory or f.default)) for name, f in model.model_fields.items()
    ]


@pytest.mark.parametrize(
    ("record", "model"), [(GlossaryEntry, glossary_check.GlossaryEntry), (Glossary, glossary_check.Glossary)]
)
def test_the_careful_models_have_the_records_fields_and_defaults(record: Any, model: type[BaseModel]) -> None:
    assert record_fields(record) == model_fields(model)
    assert model.model_config.get("extra") == "allow"


LISTS = [[], ["a"], [""], ["a", 1], ("a",), {}, {"k": 1}]
# Values each key may take: the valid ones of every field and the usual wrong kinds.
VALUES = st.sampled_from(
    [None, "", " ", "e1", "下人", "term", "place", "female", "approved", "proposed", "x", 0, 1.5, True, *LISTS]
)
KEYS = ["id", "source", "target", "kind", "aliases", "target_aliases", "gender", "note", "status", "origin", "model"]
ENTRIES = st.dictionaries(st.sampled_from([*KEYS, "future"]), VALUES, max_size=12).map(
    lambda d: {**d, "created_at": "2026-11-27T00:00:00Z"}
)


def careful(data: dict[str, Any]) -> tuple[str, Any]:
    try:
        return "ok", checked_entry(data)
    except GlossaryEntryError as exc:
        return "error", exc.line


@settings(max_examples=500, deadline=None)
@given(ENTRIES)
def test_an_entry_the_plain_path_takes_is_the_careful_path_s(data: dict[str, Any]) -> None:
    plain = plain_entry(data)
    if plain is not None:
        assert careful(data) == ("ok", plain)
        assert [type(v) for v in msgspec.structs.astuple(plain)] == [
            type(v) for v in msgspec.structs.astuple(checked_entry(data))
        ]


def test_plainly_valid_entries_take_the_plain_path() -> None:
    full = {"id": "e1", "source": "下人", "target": "the servant", "aliases": ["下郎"], "gender": "male"}
    assert plain_entry({**full, "x-note": {"k": [1]}}) == checked_entry({**full, "x-note": {"k": [1]}})
    assert plain_entry({"id": "e1", "source": "s", "target": ""}) is not None


@settings(max_examples=200, deadline=None)
@given(st.lists(ENTRIES, max_size=4), st.dictionaries(st.sampled_from(["format", "future"]), VALUES, max_size=1))
def test_a_file_parses_as_the_careful_path_reads_it(entries: list[dict[str, Any]], top: dict[str, Any]) -> None:
    data = {**top, "format": "proofdesk.glossary/1", "entries": entries}
    raw = json.dumps(data).encode()
    try:
        want: tuple[str, Any] = ("ok", checked_glossary(json.loads(raw), "g.json"))
    except GlossaryLoadError as exc:
        want = ("error", exc.line)
    try:
        got: tuple[str, Any] = ("ok", parse_glossary(raw, "g.json"))
    except GlossaryLoadError as exc:
        got = ("error", exc.line)
    assert got == want
