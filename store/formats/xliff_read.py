"""``proofdesk import FILE.xlf|FILE.xliff``: the units of an XLIFF 2.x or 1.2 document, read the hardened way.

XLIFF 2: a ``<file id>`` per chapter, ``<unit id>`` decoded (:mod:`store.formats.unit_ids`), the unit's source and
target joined over its segments and ignorables in order (a tool may have split a paragraph), done when every segment is
``final`` or ``reviewed``. XLIFF 1.2: a ``<file original>`` per chapter, ``<trans-unit id>`` as written, done when
``approved="yes"``. Notes are ignored. Inline codes carry no text; ``<cp hex>`` is its character.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from lxml import etree

from store.formats.exchange_input import ExchangeError, parse_exchange_xml
from store.formats.unit_ids import decode_id
from store.formats.units import ImportSection, ImportUnit

_NO_TEXT = frozenset({"ph", "sc", "ec", "sm", "em", "x", "bx", "ex", "bpt", "ept", "it"})
_DONE_STATES = frozenset({"final", "reviewed"})
_PARTS = ("segment", "ignorable")


def read_xliff(path: Path) -> list[ImportSection]:
    """The sections (one per ``<file>``) of the XLIFF document at ``path``; ExchangeError in one sentence."""
    root = parse_exchange_xml(path, "the XLIFF")
    if _local(root) != "xliff":
        raise ExchangeError(f"{path}: not an XLIFF file (its root element is <{_local(root)}>)")
    version = root.get("version") or ""
    reader = _READERS.get(version.split(".")[0])
    if reader is None:
        raise ExchangeError(f"{path}: XLIFF version {version!r} is not one proofdesk reads (2.x or 1.2)")
    return [reader(file) for file in root.iter("{*}file")]


def _file2(file: etree._Element) -> ImportSection:
    key = file.get("id")
    return ImportSection(None if key is None else decode_id(key), tuple(_unit2(u) for u in file.iter("{*}unit")))


def _unit2(unit: etree._Element) -> ImportUnit:
    parts = [part for part in unit if _local(part) in _PARTS]
    sources = "".join(text_of(part.find("{*}source")) for part in parts)
    return ImportUnit(decode_id(unit.get("id") or ""), sources, _joined([_target2(p) for p in parts]), _done(parts))


def _joined(targets: list[str | None]) -> str | None:
    """The unit's target: its parts' targets in order, None when a segment has none (not translated yet)."""
    return None if None in targets else "".join(cast(list[str], targets))


def _done(parts: list[etree._Element]) -> bool:
    """Every segment ``final`` or ``reviewed`` (an ignorable has no state)."""
    states = {part.get("state") for part in parts if _local(part) == "segment"}
    return bool(states) and states <= _DONE_STATES


def _target2(part: etree._Element) -> str | None:
    """A part's target; an ignorable without one stands for itself (whitespace between segments)."""
    target = part.find("{*}target")
    if target is not None:
        return text_of(target)
    return text_of(part.find("{*}source")) if _local(part) == "ignorable" else None


def _file12(file: etree._Element) -> ImportSection:
    return ImportSection(file.get("original"), tuple(_unit12(u) for u in file.iter("{*}trans-unit")))


def _unit12(unit: etree._Element) -> ImportUnit:
    target = unit.find("{*}target")
    return ImportUnit(
        unit.get("id") or "",
        text_of(unit.find("{*}source")),
        None if target is None else text_of(target),
        unit.get("approved") == "yes",
    )


_READERS = {"2": _file2, "1": _file12}


def _local(element: etree._Element) -> str:
    return etree.QName(element).localname if isinstance(element.tag, str) else ""


def text_of(element: etree._Element | None) -> str:
    """The text of a ``source`` or ``target``: its own and its inline children's, codes left out, ``<cp>`` as its
    character."""
    if element is None:
        return ""
    parts = [element.text or ""]
    for child in element:
        parts.append(_inline(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _inline(child: etree._Element) -> str:
    name = _local(child)
    if name == "cp":
        return _code_point(child.get("hex") or "")
    if not name or name in _NO_TEXT:
        return ""
    return text_of(child)


def _code_point(hex_digits: str) -> str:
    try:
        return chr(int(hex_digits, 16))
    except (ValueError, OverflowError):
        return "\ufffd"
