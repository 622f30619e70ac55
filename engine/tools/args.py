"""Tool arguments: msgspec structs (validation, and the JSON schemas the model sees) and their parsing.

Anything a model sends is hostile input: every count and length is bounded, and a bad value becomes
an ``INVALID_ARGUMENTS`` result that names the field, never an exception. A call's arguments take the fast path
(:func:`engine.field_steps.fast_convert`); whatever it cannot take as it is goes to the careful path
(:mod:`engine.tools.args_careful`, pydantic's lax mode and its words), imported only then.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, TypeVar

import msgspec

from engine.field_steps import After, Before, fast_convert
from store.model import Category

MAX_ID_CHARS = 200
MAX_TEXT_CHARS = 200_000
MAX_KEYWORDS = 20
MAX_KEYWORD_CHARS = 200
MAX_COUNT = 50

_ID_WRAPPED = re.compile(r"^\[?\s*ID:\s*([^\]\s]+)\s*\]?$", re.I)


def normalise_paragraph_id(value: Any) -> Any:
    """Strip whitespace, and the ``[ID: …]`` wrapper a model may copy along with the ID."""
    if not isinstance(value, str):
        return value
    value = value.strip()
    wrapped = _ID_WRAPPED.match(value)
    return wrapped.group(1) if wrapped else value


def _keywords_list(value: Any) -> Any:
    # Models often send one keyword as a bare string; accept it as a one-item list.
    return [value] if isinstance(value, str) else value


ParagraphId = Annotated[
    str,
    Before(normalise_paragraph_id),
    msgspec.Meta(min_length=1, max_length=MAX_ID_CHARS, pattern=r"^\S+$", description="From [ID: …]."),
]
Count = Annotated[int, msgspec.Meta(ge=1, le=MAX_COUNT)]


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


Keyword = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_KEYWORD_CHARS), After(_not_blank)]


class _Args(msgspec.Struct, frozen=True):
    """Unknown extra keys are ignored (msgspec's default): a harmless extra field should not cost the model a turn."""


# The schemas are what every request of a run carries: a description only where the name does not say it all.


class NeighbourArgs(_Args, frozen=True):
    """Arguments of ``get_previous_paragraphs`` and ``get_next_paragraphs``."""

    paragraph_id: ParagraphId
    count: Count = 3


class PositionArgs(_Args, frozen=True):
    """Arguments of ``get_paragraph_position``."""

    paragraph_id: ParagraphId
    include_previous: bool = False
    previous_count: Count = 3
    include_next: bool = False
    next_count: Count = 3


class InfoArgs(_Args, frozen=True):
    """Arguments of ``get_paragraph_info``."""

    paragraph_id: ParagraphId


class SearchArgs(_Args, frozen=True):
    """Arguments of ``find_paragraph_by_keywords``."""

    keywords: Annotated[
        list[Keyword],
        Before(_keywords_list),
        msgspec.Meta(min_length=1, max_length=MAX_KEYWORDS, description="Any of them matches."),
    ]
    max_results: Count = 5
    in_translation: Annotated[bool, msgspec.Meta(description="Search the translations instead of the sources.")] = False


class BatchItemArgs(_Args, frozen=True):
    """One submitted result, as a translation shows it (schema only: the batch tool validates items itself, in
    design order, and also takes ``original_text_prefix``, ``reason`` and ``category``). ``original_text_prefix`` is
    accepted but not shown: Qwen2.5-Coder 1.5B filled it with its translation in every batch (refused three times,
    PREFIX_MISMATCH, tests/bench/bench_real_model.py), and a model that names the paragraph_id needs no guard."""

    paragraph_id: ParagraphId
    translated_text: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_TEXT_CHARS)]


class ReviseItemArgs(BatchItemArgs, frozen=True):
    """One submitted result, as polish and proofread show it: why and what kind of change."""

    reason: Annotated[str, msgspec.Meta(description="What was wrong, in one short sentence.")] | None = None
    category: Category | None = None


class BatchArgs(_Args, frozen=True):
    """Arguments of ``add_translation_batch`` (translate)."""

    paragraphs: list[BatchItemArgs]  # an empty list is EMPTY_BATCH


class ReviseBatchArgs(_Args, frozen=True):
    """Arguments of ``add_translation_batch`` (polish, proofread)."""

    paragraphs: list[ReviseItemArgs]


A = TypeVar("A", bound=msgspec.Struct)


def parse_arguments(struct: type[A], tool: str, raw: dict[str, Any]) -> A:
    """``raw`` (decoded) as ``struct``; raises :class:`BadArguments` with the ``INVALID_ARGUMENTS`` result naming
    the first bad field. What the fast path cannot take is judged by the careful path, as pydantic would."""
    args = fast_convert(struct, raw)
    if args is not None:
        return args
    from engine.tools.args_careful import careful_convert  # only here: a valid call never imports pydantic

    return careful_convert(struct, tool, raw)
