"""Finding a block again by the path the import recorded (``source_ref.path``, made by lxml's ``getpath``).

The path comes from a chapter file, which anyone may edit: it is never handed to an XPath engine (``//*``
would pick the whole document, ``document("/etc/passwd")`` reads a file, ``svg:svg`` needs namespaces bound).
Only the shape ``getpath`` writes is accepted: ``/`` steps of ``*``, ``name`` or ``prefix:name``, each with an
optional ``[n]``; the steps are walked here with XPath's meaning (``*[n]``: the n-th element child; ``name[n]``:
the n-th child of that name).

The paths of a whole document are made in one walk (:func:`child_steps`, :class:`PathIndex`), the same strings
``getpath`` writes: ``getpath`` counts an element's siblings on every call, so one call per block of a
125,000-block document took minutes. A loose text run (text directly in ``body``, ``section``, ``div`` …) is named
by its parent's path and ``/text()[n]``: the n-th text run of the parent, counting the parent's own text and the
tail of each child that has one (XPath's numbering of text nodes).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from lxml import etree

from store.books.epub_blocks import local

_NAME = r"[A-Za-z_][A-Za-z0-9_.-]*"
_STEP = re.compile(rf"(\*|(?:({_NAME}):)?({_NAME}))(?:\[([1-9][0-9]{{0,8}})\])?")
MAX_STEPS = 512  # deeper than any document lxml parses without huge_tree
_TEXT_RUN = re.compile(r"(.*)/text\(\)\[([1-9][0-9]{0,8})\]")
_NO_NAMESPACE = "\0"


def _sibling_key(el: etree._Element) -> tuple[str, str] | None:
    """Which siblings ``getpath`` counts with ``el``: None for every element (an element in a default namespace,
    written ``*``), else those of the same name and prefix (no namespace: those without one)."""
    tag = el.tag
    assert isinstance(tag, str)
    if not tag.startswith("{"):
        return (tag, _NO_NAMESPACE)
    return None if el.prefix is None else (local(el), el.prefix)


def _step(key: tuple[str, str] | None) -> str:
    return "*" if key is None else (key[0] if key[1] == _NO_NAMESPACE else f"{key[1]}:{key[0]}")


def child_steps(parent: etree._Element) -> Iterator[tuple[etree._Element, str]]:
    """Each element child of ``parent`` with its last path step, as ``getpath`` writes it, in one pass."""
    children = [child for child in parent if isinstance(child.tag, str)]
    keys = [_sibling_key(child) for child in children]
    if not any(keys):  # all in the default namespace (XHTML): ``*``, ``*[1]``, ``*[2]`` …
        yield from ((child, _indexed("*", n, len(children))) for n, child in enumerate(children, start=1))
        return
    yield from _named_steps(children, keys)


def _named_steps(
    children: list[etree._Element], keys: list[tuple[str, str] | None]
) -> Iterator[tuple[etree._Element, str]]:
    totals = Counter(keys)
    totals[None] = len(children)  # ``*`` counts every element
    seen: Counter[tuple[str, str] | None] = Counter()
    for child, key in zip(children, keys, strict=True):
        seen[key] += 1
        seen[None] += key is not None
        yield child, _indexed(_step(key), seen[key], totals[key])


def _indexed(step: str, index: int, total: int) -> str:
    """``step[index]``, or ``step`` alone when it is the only one of its kind (as ``getpath`` writes it)."""
    return step if total == 1 else f"{step}[{index}]"


def path_of(el: etree._Element) -> str:
    """The path of one element (its ancestors' siblings counted once each)."""
    steps: list[str] = []
    node: etree._Element | None = el
    while node is not None:
        parent = node.getparent()
        if parent is None:
            steps.append(_step(_sibling_key(node)))
        else:
            steps.append(next(step for child, step in child_steps(parent) if child is node))
        node = parent
    return "/" + "/".join(reversed(steps))


def text_runs(parent: etree._Element) -> list[tuple[etree._Element, bool]]:
    """The text runs of ``parent`` in order: ``(parent, False)`` for its own text, ``(child, True)`` for a child's
    tail; only runs that exist (not None)."""
    runs = [(parent, False)] if parent.text is not None else []
    runs.extend((child, True) for child in parent if child.tail is not None)
    return runs


class PathIndex:
    """Every element of a document by its path, made in one walk; a path of another accepted shape (a hand edit)
    is still found, the slow way."""

    def __init__(self, root: etree._Element) -> None:
        self.root = root
        self.table: dict[str, etree._Element] = {"/" + _step(_sibling_key(root)): root}
        pending = [(root, next(iter(self.table)))]
        while pending:
            parent, path = pending.pop()
            for child, step in child_steps(parent):
                self.table[f"{path}/{step}"] = child
                pending.append((child, f"{path}/{step}"))

    def element(self, path: str) -> etree._Element | None:
        """The element ``path`` names, or None."""
        found = self.table.get(path)
        return found if found is not None else find_element(self.root, path)

    def text_run(self, path: str) -> tuple[etree._Element, bool] | None:
        """The text run ``path`` (``…/text()[n]``) names: see :func:`text_runs`; None when there is none."""
        match = _TEXT_RUN.fullmatch(path)
        parent = self.element(match.group(1)) if match else None
        if match is None or parent is None:
            return None
        runs = text_runs(parent)
        index = int(match.group(2))
        return runs[index - 1] if index <= len(runs) else None


def _steps(path: str) -> list[re.Match[str]] | None:
    if not path.startswith("/"):
        return None
    parts = path[1:].split("/")
    if len(parts) > MAX_STEPS:
        return None
    steps = []
    for part in parts:
        step = _STEP.fullmatch(part)
        if step is None:
            return None
        steps.append(step)
    return steps


def _matches(el: etree._Element, step: re.Match[str]) -> bool:
    if not isinstance(el.tag, str):
        return False  # comments and processing instructions are not elements
    if step.group(1) == "*":
        return True
    prefix, name = step.group(2), step.group(3)
    if local(el) != name:
        return False
    return el.prefix == prefix if prefix else not el.tag.startswith("{")


def _pick(candidates: list[etree._Element], step: re.Match[str]) -> etree._Element | None:
    index = int(step.group(4) or 1)
    matching = [el for el in candidates if _matches(el, step)]
    return matching[index - 1] if index <= len(matching) else None


def find_element(root: etree._Element, path: str) -> etree._Element | None:
    """The element ``path`` names in the document of ``root``, or None when the path is not one of the shape above
    or leads nowhere."""
    steps = _steps(path)
    if steps is None:
        return None
    found = _pick([root], steps[0])
    for step in steps[1:]:
        if found is None:
            return None
        found = _pick(list(found), step)
    return found


def in_body(el: etree._Element) -> bool:
    """Whether ``el`` is inside the document's ``body`` (a block is; the body itself, the head or the root is not)."""
    return any(local(ancestor) == "body" for ancestor in el.iterancestors())
