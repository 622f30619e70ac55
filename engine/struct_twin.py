"""The pydantic twin of a msgspec struct: the careful path that accepts what pydantic's lax mode accepts and
explains a refusal in pydantic's words.

The twin is built from the struct's own annotations — types, defaults, ``msgspec.Meta`` bounds, and the
``Before``/``After`` steps of :mod:`engine.field_steps` — so the two can never describe a field differently.
Import this module only where a value was refused (or needs pydantic's lax types): pydantic costs a run ~9 MB
and tens of milliseconds of imports that a valid run never pays.
"""

from __future__ import annotations

import dataclasses
import functools
import types
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

import msgspec
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, create_model

from engine.field_steps import After, Before, CarefulOnly, is_struct

Extra = Literal["ignore", "forbid"]
_BOUNDS = ("ge", "le", "gt", "lt", "min_length", "max_length", "pattern")


def _bounds(meta: msgspec.Meta) -> Any:
    return Field(**{name: getattr(meta, name) for name in _BOUNDS if getattr(meta, name) is not None})


def _before(meta: Before) -> Any:
    return BeforeValidator(meta.run)


def _after(meta: After) -> Any:
    return AfterValidator(meta.run)


def _careful_only(meta: CarefulOnly) -> Any:
    return Field(**{k: v for k, v in dataclasses.asdict(meta).items() if v is not None})


_MARKERS: dict[type, Callable[[Any], Any]] = {
    msgspec.Meta: _bounds,
    Before: _before,
    After: _after,
    CarefulOnly: _careful_only,
}


def _annotated(tp: Any) -> Any:
    # In the declared order: bounds after a ``Before`` are checked on what it returns, whatever its type, in
    # pydantic's general words ("Value should have at most 200 items"); bounds before it are the type's own
    # ("String should have at most 200 characters"), the step still running first.
    base, *meta = get_args(tp)
    markers = (_MARKERS[type(m)](m) if type(m) in _MARKERS else m for m in meta)
    return Annotated[(_annotation(base), *markers)]


def _container(tp: Any) -> Any:
    return get_origin(tp)[tuple(_annotation(arg) for arg in get_args(tp))]


def _union(tp: Any) -> Any:
    return Union[tuple(_annotation(arg) for arg in get_args(tp))]  # noqa: UP007 (built from a tuple)


_BY_ORIGIN: dict[Any, Callable[[Any], Any]] = {
    Annotated: _annotated,
    list: _container,
    dict: _container,
    Union: _union,
    types.UnionType: _union,
}


def _annotation(tp: Any) -> Any:
    """``tp`` with every struct replaced by its twin and every ``Meta`` and step by pydantic's own."""
    if is_struct(tp):
        return twin(tp)
    converted = _BY_ORIGIN.get(get_origin(tp))
    return converted(tp) if converted else tp  # str, int, float, bool, Any, Literal[...], None as they are


def _factory(field: msgspec.structs.FieldInfo) -> Any:
    # A table left out takes the twin's defaults, as the struct's.
    return twin(field.default_factory) if is_struct(field.default_factory) else field.default_factory


def _default(field: msgspec.structs.FieldInfo) -> Any:
    """The field's default (or default factory, or none), under its name on the wire when it has another."""
    alias = field.encode_name if field.encode_name != field.name else None
    if field.default_factory is not msgspec.NODEFAULT:
        return Field(default_factory=_factory(field), alias=alias)
    return Field(... if field.default is msgspec.NODEFAULT else field.default, alias=alias)


@functools.cache
def twin(struct: type[msgspec.Struct]) -> type[BaseModel]:
    """The pydantic model of ``struct``, built once: unknown keys ignored, or refused as the struct's
    ``forbid_unknown_fields`` says; a field renamed on the wire (``msgspec.field(name=...)``) taken under either
    name."""
    extra: Extra = "forbid" if struct.__struct_config__.forbid_unknown_fields else "ignore"
    hints = get_type_hints(struct, include_extras=True)
    fields = {f.name: (_annotation(hints[f.name]), _default(f)) for f in msgspec.structs.fields(struct)}
    model: type[BaseModel] = create_model(  # type: ignore[call-overload]
        struct.__name__, __config__=ConfigDict(extra=extra, frozen=True, populate_by_name=True), **fields
    )
    return model
