r"""Steps a msgspec struct's fields take around msgspec's own checks, and the fast path that applies them.

``Before(step)`` makes a raw value usable (an ID's ``[ID: …]`` wrapper stripped, one keyword as a list, a setting
checked in its own words) and ``After(check)`` refuses what a ``msgspec.Meta`` cannot say (a blank keyword). They
ride in a field's ``Annotated`` metadata, which msgspec ignores, so one declaration serves both paths:
:func:`fast_convert` applies them around a strict ``msgspec.convert``, and the careful path's pydantic twin
(``engine.struct_twin``) turns them into ``BeforeValidator`` / ``AfterValidator``.

The fast path only ever accepts: anything it cannot take as it is (a looser type, a bound crossed, a step that
raises) is left to the careful path, which accepts it as pydantic does or explains the refusal. Where Python's
regular expressions and pydantic's (Rust's) differ, the fast path must be the stricter one: Python's ``\S`` is (it
also refuses U+001C-U+001F); Python's ``$`` is not (it matches before a final newline), hence ``_whole_text``.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin, get_type_hints

import msgspec

S = TypeVar("S", bound=msgspec.Struct)


@dataclass(frozen=True)
class Before:
    """A step on the raw value before the type and the bounds are checked (it may raise ``ValueError``)."""

    run: Callable[[Any], Any]


@dataclass(frozen=True)
class After:
    """A check on the typed value; raises ``ValueError`` with the sentence that refuses it."""

    run: Callable[[Any], Any]


@dataclass(frozen=True)
class CarefulOnly:
    """Options only the careful path's pydantic ``Field`` states (``strict=True``, ``allow_inf_nan=False``), for
    what the fast path's strict types and bounds refuse anyway (a bool or a string for a number; NaN and infinity
    outside any ``ge``/``le``)."""

    strict: bool | None = None
    allow_inf_nan: bool | None = None


def _whole_text(value: Any) -> None:
    # Python's ``$`` also matches before a final newline; pydantic's (Rust's) only at the end: leave those to it.
    if isinstance(value, str) and value.endswith("\n"):
        raise ValueError("a final newline")


@dataclass(frozen=True)
class Plan:
    """The steps of one kind (``Before`` or ``After``) a value of one type goes through: its own, then its items'
    (list items, dict values) or its fields' (a struct). A type without any step of that kind has no plan."""

    steps: tuple[Callable[[Any], Any], ...] = ()
    items: Plan | None = None
    fields: tuple[tuple[str, Plan], ...] = ()

    def prepare(self, value: Any) -> Any:
        """``value`` after the ``Before`` steps, its own and then those inside it."""
        for step in self.steps:
            value = step(value)
        if self.items is not None:
            return _items_prepared(self.items, value)
        if self.fields and isinstance(value, dict):
            return _fields_prepared(self.fields, value)
        return value

    def check(self, value: Any) -> None:
        """Run the ``After`` checks on the converted ``value`` and inside it; raises ``ValueError``."""
        for step in self.steps:
            step(value)
        if self.items is not None:
            for item in value.values() if isinstance(value, dict) else value:
                self.items.check(item)
        for name, plan in self.fields:
            plan.check(getattr(value, name))


def _items_prepared(plan: Plan, value: Any) -> Any:
    if isinstance(value, list):
        return [plan.prepare(item) for item in value]
    if isinstance(value, dict):
        return {key: plan.prepare(item) for key, item in value.items()}
    return value


def _fields_prepared(fields: tuple[tuple[str, Plan], ...], value: dict[str, Any]) -> dict[str, Any]:
    prepared = value
    for name, plan in fields:
        if name in value:
            prepared = dict(value) if prepared is value else prepared
            prepared[name] = plan.prepare(value[name])
    return prepared


Kind = type[Before] | type[After]


def _struct_plan(struct: type[msgspec.Struct], kind: Kind) -> Plan | None:
    hints = get_type_hints(struct, include_extras=True)
    fields = tuple((f.name, plan) for f in msgspec.structs.fields(struct) if (plan := plan_of(hints[f.name], kind)))
    return Plan(fields=fields) if fields else None


def is_struct(tp: Any) -> bool:
    """Whether the annotation ``tp`` is a msgspec struct type."""
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)


def _own_steps(meta: list[Any], kind: Kind) -> tuple[Callable[[Any], Any], ...]:
    return tuple(m.run for m in meta if isinstance(m, kind)) + _pattern_checks(meta, kind)


def _pattern_checks(meta: list[Any], kind: Kind) -> tuple[Callable[[Any], Any], ...]:
    patterned = any(isinstance(m, msgspec.Meta) and m.pattern for m in meta)
    return (_whole_text,) if kind is After and patterned else ()


def _annotated_plan(tp: Any, kind: Kind) -> Plan | None:
    base, *meta = get_args(tp)
    inner = plan_of(base, kind) or Plan()
    plan = Plan(_own_steps(meta, kind) + inner.steps, inner.items, inner.fields)
    return plan if plan != Plan() else None


def _items_plan(tp: Any, kind: Kind) -> Plan | None:
    items = plan_of(get_args(tp)[-1], kind)  # a list's items, a dict's values
    return Plan(items=items) if items else None


def _union_plan(tp: Any, kind: Kind) -> Plan | None:
    if any(plan_of(arg, kind) for arg in get_args(tp)):  # which member a value is for is the converter's choice
        raise TypeError(f"{tp}: steps inside a union are not supported")
    return None


_PLANS_BY_ORIGIN: dict[Any, Callable[[Any, Kind], Plan | None]] = {
    Annotated: _annotated_plan,
    list: _items_plan,
    dict: _items_plan,
    Union: _union_plan,
    types.UnionType: _union_plan,
}


def plan_of(tp: Any, kind: Kind) -> Plan | None:
    """The plan of the ``kind`` steps in a type annotation (None when it has none)."""
    if is_struct(tp):
        return _struct_plan(tp, kind)
    planned = _PLANS_BY_ORIGIN.get(get_origin(tp))
    return planned(tp, kind) if planned else None


@dataclass(frozen=True)
class _FastPath:
    """One struct's fast path: its steps, and its fields' own names where the wire has another (msgspec reads
    only the wire's, so a value under the own name is left to the careful path)."""

    before: Plan | None
    after: Plan | None
    own_names: frozenset[str]


@functools.cache
def _fast_path(struct: type[msgspec.Struct]) -> _FastPath:
    renamed = frozenset(f.name for f in msgspec.structs.fields(struct) if f.encode_name != f.name)
    return _FastPath(plan_of(struct, Before), plan_of(struct, After), renamed)


def fast_convert(struct: type[S], raw: dict[str, Any]) -> S | None:
    """``raw`` as ``struct`` when it fits as it is (strict types, every bound and step passed); else None."""
    fast = _fast_path(struct)
    if fast.own_names and not fast.own_names.isdisjoint(raw):
        return None
    try:
        value = msgspec.convert(fast.before.prepare(raw) if fast.before else raw, struct)
        if fast.after:
            fast.after.check(value)
    except (msgspec.ValidationError, ValueError, TypeError):
        return None
    return value
