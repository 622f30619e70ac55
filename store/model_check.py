"""The careful path's check of a chapter's parsed JSON: pydantic models of the format, imported only when the fast
path (:mod:`store.fast_load`) declines a file, that accept every valid chapter and name the first problem.

The models mirror the records of :mod:`store.model` field for field (``tests/store/test_model_check.py`` holds them
to it); what passes is built into those records, unknown keys kept in the order they were read.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, StrictBool, StringConstraints, ValidationError

from store import model as records
from store.model import FORMAT, Origin
from store.validation_text import field_path

# Imported data may carry any non-empty identifier without whitespace; IDs we mint are 8 hex chars.
Identifier = Annotated[str, StringConstraints(min_length=1, pattern=r"^\S+$")]


class TranslationVersion(BaseModel):
    """What :class:`store.model.TranslationVersion` holds (named as it is: pydantic's words may name the class)."""

    model_config = ConfigDict(frozen=True, extra="allow")

    id: Identifier
    text: str
    origin: Origin
    model: str | None = None
    created_at: str


class Paragraph(BaseModel):
    """What :class:`store.model.Paragraph` holds."""

    model_config = ConfigDict(frozen=True, extra="allow")

    id: Identifier
    text: str
    translations: tuple[TranslationVersion, ...] = ()
    selected_translation_id: str | None = None
    reviewed: StrictBool = False


class Chapter(BaseModel):
    """What :class:`store.model.Chapter` holds."""

    model_config = ConfigDict(frozen=True, extra="allow")

    format: Literal["proofdesk.chapter/1"] = FORMAT
    id: Identifier
    title: str | None = None
    title_translation: str | None = None
    source_language: str | None = None
    target_language: str | None = None
    paragraphs: tuple[Paragraph, ...]


class ChapterInvalid(Exception):
    """The data is no chapter: ``line`` is the first problem, ``field path: what was expected``."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


def checked_chapter(data: dict[str, Any]) -> records.Chapter:
    """The chapter record of ``data`` (parsed JSON); raises :class:`ChapterInvalid` naming its first problem."""
    try:
        checked = Chapter.model_validate(data)
    except ValidationError as exc:
        raise ChapterInvalid(_described(exc)) from None
    paragraphs = tuple(_paragraph(p) for p in checked.paragraphs)
    return records.Chapter(**_fields(checked, records.Chapter), paragraphs=paragraphs, extra=_extra(checked))


def _paragraph(checked: Paragraph) -> records.Paragraph:
    versions = tuple(_version(v) for v in checked.translations)
    return records.Paragraph(**_fields(checked, records.Paragraph), translations=versions, extra=_extra(checked))


def _version(checked: TranslationVersion) -> records.TranslationVersion:
    return records.TranslationVersion(**_fields(checked, records.TranslationVersion), extra=_extra(checked))


def _fields(checked: BaseModel, record: type[Any]) -> dict[str, Any]:
    """The checked model's values of the record's plain fields (not ``extra``, not the nested records)."""
    nested = ("extra", "paragraphs", "translations")
    return {name: getattr(checked, name) for name in record.__struct_fields__ if name not in nested}


def _extra(checked: BaseModel) -> dict[str, Any]:
    return dict(checked.__pydantic_extra__ or {})


def _shown(got: Any) -> str:
    """A refused value as an error shows it: its kind for an object or a list, else its first 40 characters."""
    if isinstance(got, dict):
        return "an object"
    if isinstance(got, list):
        return "a list"
    return json.dumps(got, ensure_ascii=False)[:40]


# What was expected, by pydantic's error type; ``{shown}`` is the refused value, ``{expected}`` the literal's.
_EXPECTED = {
    "missing": "required field is missing",
    "string_type": "expected a string, got {shown}",
    "bool_type": "expected true or false, got {shown}",
    "bool_parsing": "expected true or false, got {shown}",
    "tuple_type": "expected a list, got {shown}",
    "list_type": "expected a list, got {shown}",
    "model_type": "expected an object, got {shown}",
    "model_attributes_type": "expected an object, got {shown}",
    "dict_type": "expected an object, got {shown}",
    "literal_error": "expected {expected}, got {shown}",
    "string_too_short": "expected a non-empty string",
    "string_pattern_mismatch": "expected an identifier without whitespace, got {shown}",
}


def _described(err: ValidationError) -> str:
    first = err.errors(include_url=False)[0]
    path = field_path(tuple(first["loc"]), "(top level)")
    template = _EXPECTED.get(first["type"])
    if template is None:
        return f"{path}: {first['msg'].removeprefix('Value error, ')}"
    expected = first.get("ctx", {}).get("expected", "another value")
    return f"{path}: {template.format(shown=_shown(first.get('input')), expected=expected)}"
