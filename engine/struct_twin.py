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
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

import msgspec
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, create_model

from engine.field_steps import After, Before, CarefulOnly

Extra = Literal["ignore", "forbid"]
_BOUNDS = ("ge", "le", "gt", "lt", "min_length", "max_length", "pattern")


def _bounds(meta: msgspec.Meta) -> Any:
    return Field(**{name: getattr(meta, name) for name in _BOUNDS if getattr(meta, name) is not None})


def _marker(meta: Any) -> Any:
    if isinstance(meta, msgspec.Meta):
        return _bounds(meta)
    if isinstance(meta, Before):
        return BeforeValidator(meta.run)
    if isinstance(meta, After):
        return AfterValidator(meta.run)
    if isinstance(meta, CarefulOnly):
        return Field(**{k: v for k, v in dataclasses.asdict(meta).items() if v is not None})
    return meta


def _annotation(tp: Any) -> Any:
    """``tp`` with every struct replaced by its twin and every ``Meta`` and step by pydantic's own."""
    origin = get_origin(tp)
    if origin is Annotated:
        base, *meta = get_args(tp)
        # In the declared order: bounds after a ``Before`` are checked on what it returns, whatever its type, in
        # pydantic's general words ("Value should have at most 200 items"); bounds before it are the type's own
        # ("String should have at most 200 characters"), the step still running first.
        return Annotated[(_annotation(base), *(_marker(m) for m in meta))]
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return twin(tp)
    args = tuple(_annotation(arg) for arg in get_args(tp))
    if origin is list or origin is dict:
        return origin[args]
    if origin is Union or origin is types.UnionType:
        return Union[args]  # noqa: UP007 (built from a tuple)
    return tp  # str, int, float, bool, Any, Literal[...], None


def _default(field: msgspec.structs.FieldInfo) -> Any:
    """The field's default (or default factory, or none), under its name on the wire when it has another."""
    alias = field.encode_name if field.encode_name != field.name else None
    factory = field.default_factory
    if isinstance(factory, type) and issubclass(factory, msgspec.Struct):
        factory = twin(factory)  # a table left out is the twin's defaults, as the struct's
    if factory is not msgspec.NODEFAULT:
        return Field(default_factory=factory, alias=alias)
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
