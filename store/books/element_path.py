"""Finding a block again by the path the import recorded (``source_ref.path``, made by lxml's ``getpath``).

The path comes from a chapter file, which anyone may edit: it is never handed to an XPath engine (``//*``
would pick the whole document, ``document("/etc/passwd")`` reads a file, ``svg:svg`` needs namespaces bound).
Only the shape ``getpath`` writes is accepted: ``/`` steps of ``*``, ``name`` or ``prefix:name``, each with an
optional ``[n]``; the steps are walked here with XPath's meaning (``*[n]``: the n-th element child; ``name[n]``:
the n-th child of that name).
"""

from __future__ import annotations

import re

from lxml import etree

from store.books.epub_blocks import local

_NAME = r"[A-Za-z_][A-Za-z0-9_.-]*"
_STEP = re.compile(rf"(\*|(?:({_NAME}):)?({_NAME}))(?:\[([1-9][0-9]{{0,8}})\])?")
MAX_STEPS = 512  # deeper than any document lxml parses without huge_tree


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
