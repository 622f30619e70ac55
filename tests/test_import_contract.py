"""The import contract, read from the source (``.ci/run`` runs it as its own step before the suite).

- Layers: ``tui -> engine -> store``. ``store`` imports nothing of ``engine`` or ``tui``; ``engine`` nothing of ``tui``,
  ``textual`` or ``rich`` (type-only imports included).
- Widgets are parts: a module under ``tui/widgets`` imports no screen and not the app (type-only imports included).
- No cycle of runtime imports between our modules. A runtime import is any import not under ``if TYPE_CHECKING:``,
  at module level or inside a function.

``tests/test_layering.py`` checks the layers once more by importing every engine and store module in a fresh
interpreter.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("store", "engine", "tui", "themes")


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    runtime: bool  # False under ``if TYPE_CHECKING:``


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _all_modules() -> dict[str, Path]:
    return {_module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}


MODULES = _all_modules()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _targets(node: ast.Import | ast.ImportFrom, importer: str) -> Iterator[str]:
    """The modules an import statement names: ``from a.b import c`` is ``a.b.c`` when that is a module."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        package = importer.split(".")
        if MODULES[importer].name != "__init__.py":
            package = package[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, base] if base else package)
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        yield submodule if submodule in MODULES else base


def _imports_of(name: str) -> Iterator[Import]:
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))

    def walk(node: ast.AST, runtime: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for part in child.body:
                    yield from walk_one(part, False)
                for part in child.orelse:
                    yield from walk_one(part, runtime)
            else:
                yield from walk_one(child, runtime)

    def walk_one(node: ast.AST, runtime: bool) -> Iterator[Import]:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield from (Import(name, target, node.lineno, runtime) for target in _targets(node, name))
        else:
            yield from walk(node, runtime)

    yield from walk(tree, True)


IMPORTS = [imp for name in MODULES for imp in _imports_of(name)]


def _top(module: str) -> str:
    return module.split(".")[0]


FORBIDDEN = {
    "store": {"engine", "tui", "textual", "rich"},
    "engine": {"tui", "textual", "rich"},
}


def test_the_contract_sees_every_package() -> None:
    assert {"store.model", "engine.run", "tui.app", "tui.widgets.log_pane"} <= set(MODULES)
    assert len(IMPORTS) > 500


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layers_point_one_way(layer: str) -> None:
    wrong = [
        f"{i.importer}:{i.line} imports {i.imported}"
        for i in IMPORTS
        if _top(i.importer) == layer and _top(i.imported) in FORBIDDEN[layer]
    ]
    assert not wrong, "\n".join(wrong)


def test_widgets_import_no_screen_and_not_the_app() -> None:
    wrong = [
        f"{i.importer}:{i.line} imports {i.imported}"
        for i in IMPORTS
        if i.importer.startswith("tui.widgets.")
        and (i.imported.startswith("tui.screens") or i.imported in {"tui.app", "tui.cli"})
    ]
    assert not wrong, "\n".join(wrong)


def _runtime_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for i in IMPORTS:
        if i.runtime and i.imported in MODULES and i.imported != i.importer:
            graph[i.importer].add(i.imported)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_no_cycle_of_runtime_imports() -> None:
    cycles = _cycles(_runtime_graph())
    assert not cycles, "runtime import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
