"""A tool's parameters as the model sees them: the JSON schema of its argument struct, trimmed.

Every request of a run carries these, so they say only what a model needs: no titles, no defaults (an omitted
argument takes it), no string bounds (they only guard against hostile input; the tools check them and name the
field), ``Optional[X]`` shown as ``X``. Keys are sorted within each node, as the schemas have always been sent.
"""

from __future__ import annotations

import copy
import functools
from typing import Any, Literal, get_args, get_origin, get_type_hints

import msgspec

from engine.field_steps import is_struct

_DROPPED = frozenset({"title", "$defs", "default", "pattern", "minLength", "maxLength"})


def _resolved(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """A ``$ref`` node merged over the definition it names."""
    # A referenced struct's description is its docstring, written for developers: leave it out.
    target = {k: v for k, v in defs[node["$ref"].rsplit("/", 1)[-1]].items() if k != "description"}
    return {**target, **{k: v for k, v in node.items() if k != "$ref"}}


def _literals(tp: Any, seen: set[Any]) -> list[tuple[Any, ...]]:
    """Every ``Literal``'s values in ``tp`` and the structs inside it, in the order they are declared."""
    if get_origin(tp) is Literal:
        return [get_args(tp)]
    inside = _struct_hints(tp, seen) if is_struct(tp) else get_args(tp)
    return [found for hint in inside for found in _literals(hint, seen)]


def _struct_hints(struct: type[msgspec.Struct], seen: set[Any]) -> list[Any]:
    if struct in seen:
        return []
    seen.add(struct)
    return list(get_type_hints(struct, include_extras=True).values())


def _typed_enum(node: dict[str, Any], declared: dict[frozenset[Any], list[Any]]) -> dict[str, Any]:
    """A ``Literal`` of strings in its declared order (msgspec sorts it), saying its type too."""
    values = node.get("enum")
    if isinstance(values, list) and all(isinstance(v, str) for v in values):
        return {**node, "enum": declared.get(frozenset(values), values), "type": "string"}
    return node


def _without_null(node: dict[str, Any]) -> dict[str, Any]:
    """``anyOf: [X, null]`` collapsed to ``X``, its description after it."""
    variants = node.get("anyOf")
    non_null = [v for v in variants if v != {"type": "null"}] if isinstance(variants, list) else []
    if len(non_null) != 1 or len(non_null) == len(variants or ()):
        return node
    rest = {k: v for k, v in node.items() if k != "anyOf"}
    return {**_described_last(non_null[0]), **rest}


def _described_last(node: dict[str, Any]) -> dict[str, Any]:
    return {**{k: v for k, v in node.items() if k != "description"}, **{k: node[k] for k in node if k == "description"}}


def _dropped(key: str, value: Any) -> bool:
    return key in _DROPPED or (key == "required" and not value)


def _inline(node: Any, defs: dict[str, Any], declared: dict[frozenset[Any], list[Any]]) -> Any:
    """Resolve ``$ref``s, drop what a model needs no word of (``_DROPPED``), sort keys, collapse ``Optional[X]``."""
    if isinstance(node, list):
        return [_inline(v, defs, declared) for v in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _inline(_resolved(node, defs), defs, declared)
    out = {
        key: {name: _inline(sub, defs, declared) for name, sub in value.items()}
        if key == "properties"
        else _inline(value, defs, declared)
        for key, value in sorted(_typed_enum(node, declared).items())
        if not _dropped(key, value)
    }
    return _without_null(out)


def parameters_schema(struct: type[msgspec.Struct], *, max_items: dict[str, int] | None = None) -> dict[str, Any]:
    """The JSON schema of ``struct`` for a tool definition: self-contained, no titles.

    ``max_items`` sets ``maxItems`` on list fields (the batch size limit is a run setting). Built once per process
    for each struct (paid once, not by every chapter of a ``--jobs`` run); each caller gets its own copy.
    """
    schema = copy.deepcopy(_base_schema(struct))
    for name, limit in (max_items or {}).items():
        schema["properties"][name]["maxItems"] = limit
    return schema


@functools.cache
def _base_schema(struct: type[msgspec.Struct]) -> dict[str, Any]:
    raw = msgspec.json.schema(struct)
    declared = {frozenset(values): list(values) for values in _literals(struct, set())}
    schema = _inline(raw, raw.get("$defs", {}), declared)
    schema.pop("description", None)  # the docstring is for developers; the tool description is for the model
    return schema
