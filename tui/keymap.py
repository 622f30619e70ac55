"""Key bindings as data: every binding has an ``id`` so the config's ``[keymap]`` can remap it.

``live_bindings`` reads the bindings the app really has now (after the keymap), for the help screen and
the command palette, so neither can drift from what the keys do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from textual.app import App
from textual.binding import Binding, BindingsMap
from textual.dom import DOMNode
from textual.screen import Screen


@dataclass(frozen=True)
class KeyInfo:
    """One binding as the help screen shows it."""

    group: str
    keys: str  # as displayed, e.g. "t" or "up, k"
    description: str
    action: str
    binding_id: str | None
    node: DOMNode


def binding_ids(classes: Iterable[type[DOMNode]]) -> dict[str, Binding]:
    """Every binding ID declared by ``classes`` (and their bases), mapped to its binding."""
    found: dict[str, Binding] = {}
    for cls in classes:
        for _key, binding in BindingsMap(
            [b for base in reversed(cls.__mro__) for b in base.__dict__.get("BINDINGS", [])]
        ):
            if binding.id:
                found.setdefault(binding.id, binding)
    return found


def check_keymap(keymap: dict[str, str], known: dict[str, Binding]) -> list[str]:
    """Problems with a ``[keymap]`` table: unknown binding IDs and empty keys, one sentence each."""
    problems = []
    for binding_id, keys in keymap.items():
        if binding_id not in known:
            problems.append(f"keymap.{binding_id}: no binding has this id (the help screen, ?, lists the ids)")
        elif not keys.strip() or any(not k.strip() for k in keys.split(",")):
            problems.append(f"keymap.{binding_id}: give one key or several separated by commas")
    return problems


def _group_of(node: DOMNode) -> str:
    if isinstance(node, App):
        return "Everywhere"
    return str(getattr(node, "HELP_GROUP", None) or type(node).__name__)


def _textual(binding: Binding) -> bool:
    return binding.id is None  # every binding of ours has an id


def _ours(binding: Binding) -> bool:
    return binding.id is not None


def _anything(binding: Binding) -> bool:
    return True


def _nodes(app: App, screen: Screen) -> list[tuple[DOMNode, Callable[[Binding], bool]]]:
    """The nodes whose bindings are listed, in order, each with which of its bindings: the screen's from Textual,
    the screen's parts (widgets in its help group, from the innermost out: the order a key is looked up from a
    pane), the screen's own, its other widgets, the app."""
    widgets = [
        w
        for w in screen.walk_children(with_self=False)
        if type(w).__dict__.get("BINDINGS") or getattr(type(w), "HELP_GROUP", None)
    ]
    group = _group_of(screen)
    parts = [(w, _anything) for w in reversed(widgets) if _group_of(w) == group]
    others = [(w, _anything) for w in widgets if _group_of(w) != group]
    return [(screen, _textual), *parts, (screen, _ours), *others, (app, _anything)]


def live_bindings(app: App, screen: Screen) -> list[KeyInfo]:
    """The bindings of ``screen``, its widgets and the app, after the keymap, grouped, one entry per action."""
    keymap = app._keymap  # Textual keeps the applied keymap here; there is no public getter
    infos: list[KeyInfo] = []
    seen_groups: set[tuple[str, str]] = set()
    for node, listed in _nodes(app, screen):
        bindings = node._bindings.copy()
        if keymap:
            bindings.apply_keymap(keymap)
        by_action: dict[tuple[str, str], list[tuple[str, Binding]]] = {}
        for key, binding in bindings:
            if binding.system or not listed(binding):
                continue
            by_action.setdefault((binding.action, binding.id or ""), []).append((key, binding))
        group = _group_of(node)
        for (action, _id), pairs in by_action.items():
            if (group, action) in seen_groups:
                continue
            seen_groups.add((group, action))
            binding = pairs[0][1]
            keys = ", ".join(app.get_key_display(b.with_key(k)) for k, b in pairs)
            infos.append(KeyInfo(group, keys, binding.description or action, action, binding.id, node))
    return infos
