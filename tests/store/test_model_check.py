"""The careful path's pydantic models describe the same records as :mod:`store.model`: the same fields, in the same
order, with the same defaults (the records are what is built; the models only check)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from pydantic import BaseModel

from store import model_check
from store.model import Chapter, Paragraph, TranslationVersion


def record_fields(record: type[msgspec.Struct]) -> list[tuple[str, Any]]:
    """Each file key of the record and its default (``...`` when required); ``extra`` holds the unknown keys."""
    out = []
    for f in msgspec.structs.fields(record):
        if f.name != "extra":
            out.append((f.name, ... if f.required else f.default))
    return out


def model_fields(model: type[BaseModel]) -> list[tuple[str, Any]]:
    return [(name, ... if f.is_required() else f.default) for name, f in model.model_fields.items()]


@pytest.mark.parametrize(
    ("record", "model"),
    [
        (TranslationVersion, model_check.TranslationVersion),
        (Paragraph, model_check.Paragraph),
        (Chapter, model_check.Chapter),
    ],
)
def test_the_careful_models_have_the_records_fields_and_defaults(record: Any, model: type[BaseModel]) -> None:
    assert record_fields(record) == model_fields(model)
    assert model.model_config.get("extra") == "allow"
