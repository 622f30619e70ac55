"""Tool arguments: pydantic models (validation and the JSON schemas the model sees) and their parsing.

Anything a model sends is hostile input: every count and length is bounded, and a bad value becomes
an ``INVALID_ARGUMENTS`` result that names the field, never an exception.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

from engine.json_depth import MAX_JSON_DEPTH, too_deep
from engine.tools.results import ErrorCode, failure
from store.model import Category
from store.validation_text import field_path

MAX_ARGUMENT_CHARS = 2_000_000  # raw JSON; a 20-item batch of long paragraphs stays far below
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
    BeforeValidator(normalise_paragraph_id),
    Field(min_length=1, max_length=MAX_ID_CHARS, pattern=r"^\S+$", description="From [ID: …]."),
]
Count = Annotated[int, Field(ge=1, le=MAX_COUNT)]


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


Keyword = Annotated[str, Field(min_length=1, max_length=MAX_KEYWORD_CHARS), AfterValidator(_not_blank)]


class _Args(BaseModel):
    # Unknown extra keys are ignored: a harmless extra field should not cost the model a turn.
    model_config = ConfigDict(extra="ignore", frozen=True)


# The schemas are what every request of a run carries: a description only where the name does not say it all.


class NeighbourArgs(_Args):
    """Arguments of ``get_previous_paragraphs`` and ``get_next_paragraphs``."""

    paragraph_id: ParagraphId
    count: Count = 3


class PositionArgs(_Args):
    """Arguments of ``get_paragraph_position``."""

    paragraph_id: ParagraphId
    include_previous: bool = False
    previous_count: Count = 3
    include_next: bool = False
    next_count: Count = 3


class InfoArgs(_Args):
    """Arguments of ``get_paragraph_info``."""

    paragraph_id: ParagraphId


class SearchArgs(_Args):
    """Arguments of ``find_paragraph_by_keywords``."""

    keywords: Annotated[
        list[Keyword],
        BeforeValidator(_keywords_list),
        Field(min_length=1, max_length=MAX_KEYWORDS, description="Any of them matches."),
    ]
    max_results: Count = 5
    in_translation: bool = Field(False, description="Search the translations instead of the sources.")


class BatchItemArgs(_Args):
    """One submitted result, as a translation shows it (schema only: the batch tool validates items itself, in
    design order, and also takes ``original_text_prefix``, ``reason`` and ``category``). ``original_text_prefix`` is
    accepted but not shown: Qwen2.5-Coder 1.5B filled it with its translation in every batch (refused three times,
    PREFIX_MISMATCH, tests/bench/bench_real_model.py), and a model that names the paragraph_id needs no guard."""

    paragraph_id: ParagraphId
    translated_text: str = Field(min_length=1, max_length=MAX_TEXT_CHARS)


class ReviseItemArgs(BatchItemArgs):
    """One submitted result, as polish and proofread show it: why and what kind of change."""

    reason: str | None = Field(None, description="What was wrong, in one short sentence.")
    category: Category | None = None


class BatchArgs(_Args):
    """Arguments of ``add_translation_batch`` (translate)."""

    paragraphs: list[BatchItemArgs]  # an empty list is EMPTY_BATCH


class ReviseBatchArgs(_Args):
    """Arguments of ``add_translation_batch`` (polish, proofread)."""

    paragraphs: list[ReviseItemArgs]


# ---------------------------------------------------------------------------------------------------
# JSON schemas as the model sees them


def _resolved(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """A ``$ref`` node merged over the definition it names."""
    # A referenced model's description is its docstring, written for developers: leave it out.
    target = {k: v for k, v in defs[node["$ref"].rsplit("/", 1)[-1]].items() if k != "description"}
    return {**target, **{k: v for k, v in node.items() if k != "$ref"}}


# What a model needs no word of: titles, defaults (an omitted argument takes it), and the string bounds, which
# only guard against hostile input (the tools check them and name the field).
_DROPPED = frozenset({"title", "$defs", "default", "pattern", "minLength", "maxLength"})


def _dropped(key: str) -> bool:
    return key in _DROPPED


def _without_null(node: dict[str, Any]) -> dict[str, Any]:
    """``anyOf: [X, null]`` (pydantic's ``Optional[X]``) collapsed to ``X``."""
    variants = node.get("anyOf")
    if not isinstance(variants, list):
        return node
    non_null = [v for v in variants if v != {"type": "null"}]
    if len(non_null) != 1 or len(non_null) == len(variants):
        return node
    rest = {k: v for k, v in node.items() if k != "anyOf"}
    return {**non_null[0], **rest}


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """Resolve ``$ref``s, drop what a model needs no word of (``_DROPPED``), and collapse ``Optional[X]`` to ``X``."""
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _inline(_resolved(node, defs), defs)
    out = {
        key: {name: _inline(sub, defs) for name, sub in value.items()} if key == "properties" else _inline(value, defs)
        for key, value in node.items()
        if not _dropped(key)
    }
    return _without_null(out)


def parameters_schema(model: type[BaseModel], *, max_items: dict[str, int] | None = None) -> dict[str, Any]:
    """The JSON schema of ``model`` for a tool definition: self-contained, no titles.

    ``max_items`` sets ``maxItems`` on list fields (the batch size limit is a run setting). Built once per process
    for each model (pydantic's schema generation costs ~0.25 ms a tool, paid by every chapter of a ``--jobs`` run);
    each caller gets its own copy.
    """
    schema = copy.deepcopy(_base_schema(model))
    for name, limit in (max_items or {}).items():
        schema["properties"][name]["maxItems"] = limit
    return schema


@functools.cache
def _base_schema(model: type[BaseModel]) -> dict[str, Any]:
    raw = model.model_json_schema()
    schema = _inline(raw, raw.get("$defs", {}))
    schema.pop("description", None)  # the docstring is for developers; the tool description is for the model
    return schema


# ---------------------------------------------------------------------------------------------------
# Parsing raw arguments


def invalid_arguments(tool: str, error: str, hint: str, **extra: Any) -> dict[str, Any]:
    """An ``INVALID_ARGUMENTS`` result for ``tool``."""
    return failure(ErrorCode.INVALID_ARGUMENTS, error, hint, tool=tool, **extra)


class BadArguments(Exception):
    """Raw arguments that cannot be used; ``result`` is the ``INVALID_ARGUMENTS`` result to return."""

    def __init__(self, result: dict[str, Any]) -> None:
        super().__init__(result["error"])
        self.result = result


def decode_arguments(tool: str, raw: object) -> dict[str, Any]:
    """The arguments as a dict; raises :class:`BadArguments` for anything but one JSON object.

    ``None`` and an empty string mean no arguments (some providers send ``""`` for a call without any).
    """
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    if not isinstance(raw, str):
        raise BadArguments(
            invalid_arguments(
                tool,
                f"The arguments of {tool} must be a JSON object.",
                "Send the arguments as one JSON object matching the tool's schema.",
                field="arguments",
            )
        )
    return _json_object(tool, raw) if raw.strip() else {}


def _json_object(tool: str, raw: str) -> dict[str, Any]:
    """Non-blank argument text parsed: bounded in length and depth, and one JSON object."""
    if len(raw) > MAX_ARGUMENT_CHARS:
        raise BadArguments(
            invalid_arguments(
                tool,
                f"The arguments of {tool} are {len(raw):,} characters long, more than the limit of "
                f"{MAX_ARGUMENT_CHARS:,}.",
                "Send fewer or shorter items per call.",
                field="arguments",
            )
        )
    if too_deep(raw):
        raise BadArguments(
            invalid_arguments(
                tool,
                f"The arguments of {tool} nest more than {MAX_JSON_DEPTH} levels deep.",
                "Send the arguments again as one flat JSON object.",
                field="arguments",
            )
        )
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise BadArguments(
            invalid_arguments(
                tool,
                f"The arguments of {tool} are not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}).",
                "Send the arguments again as one complete, valid JSON object (check quotes and escapes).",
                field="arguments",
            )
        ) from None
    except RecursionError:
        raise BadArguments(
            invalid_arguments(
                tool,
                f"The arguments of {tool} are nested too deeply.",
                "Send a flat JSON object matching the tool's schema.",
                field="arguments",
            )
        ) from None
    if not isinstance(value, dict):
        raise BadArguments(
            invalid_arguments(
                tool,
                f"The arguments of {tool} must be a JSON object, not {type(value).__name__}.",
                "Send the arguments as one JSON object matching the tool's schema.",
                field="arguments",
            )
        )
    return value


def _describe(err: ErrorDetails) -> str:
    msg = str(err.get("msg", "is invalid"))
    if err.get("type") == "missing":
        return "is required"
    return msg[0].lower() + msg[1:] if msg else "is invalid"


def validation_failure(tool: str, exc: ValidationError) -> dict[str, Any]:
    """``INVALID_ARGUMENTS`` naming the first bad field (all of them under ``invalid_fields``)."""
    errors = exc.errors(include_url=False, include_input=False)
    fields = [{"field": field_path(tuple(e["loc"]), "arguments"), "problem": _describe(e)} for e in errors]
    first = fields[0]
    hint = "Fix that field and call the tool again; see the tool's parameter descriptions."
    if first["field"].endswith("paragraph_id"):
        hint = (
            'Pass paragraph_id as the string shown in [ID: …] in the chunk text (e.g. "e58ed763"); '
            "the [n] index is not accepted."
        )
    return invalid_arguments(
        tool,
        f"Invalid arguments for {tool}: field '{first['field']}' {first['problem']}.",
        hint,
        field=first["field"],
        invalid_fields=fields,
    )
