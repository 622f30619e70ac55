"""``proofdesk import FILE.xlf|FILE.xliff``: the units of an XLIFF 2.x or 1.2 document, read the hardened way.

XLIFF 2: a ``<file id>`` per chapter, ``<unit id>`` decoded (:mod:`store.formats.unit_ids`), the unit's source and
target joined over its segments and ignorables in order (a tool may have split a paragraph), done when every segment is
``final`` or ``reviewed``. XLIFF 1.2: a ``<file original>`` per chapter, ``<trans-unit id>`` as written, done when
``approved="yes"``. Notes are ignored. Inline codes carry no text; ``<cp hex>`` is its character.
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from store.formats.exchange_input import ExchangeError, parse_exchange_xml
from store.formats.unit_ids import decode_id
from store.formats.units import ImportSection, ImportUnit

_NO_TEXT = frozenset({"ph", "sc", "ec", "sm", "em", "x", "bx", "ex", "bpt", "ept", "it"})
_DONE_STATES = frozenset({"final", "reviewed"})


def read_xliff(path: Path) -> list[ImportSection]:
    """The sections (one per ``<file>``) of the XLIFF document at ``path``; ExchangeError in one sentence."""
    root = parse_exchange_xml(path, "the XLIFF")
    if etree.QName(root).localname != "xliff":
        raise ExchangeError(f"{path}: not an XLIFF file (its root element is <{etree.QName(root).localname}>)")
    version = root.get("version") or ""
    if version.startswith("2."):
        return [_file2(file) for file in root.iter("{*}file")]
    if version.startswith("1."):
        return [_file12(file) for file in root.iter("{*}file")]
    raise ExchangeError(f"{path}: XLIFF version {version!r} is not one proofdesk reads (2.x or 1.2)")


def _file2(file: etree._Element) -> ImportSection:
    key = file.get("id")
    return ImportSection(None if key is None else decode_id(key), tuple(_unit2(u) for u in file.iter("{*}unit")))


def _unit2(unit: etree._Element) -> ImportUnit:
    parts = [part for part in unit if _local(part) in ("segment", "ignorable")]
    sources = [text_of(part.find("{*}source")) for part in parts]
    targets = [_target2(part) for part in parts]
    segments = [part for part in parts if _local(part) == "segment"]
    done = bool(segments) and all(seg.get("state") in _DONE_STATES for seg in segments)
    target = None if any(t is None for t in targets) else "".join(t for t in targets if t is not None)
    return ImportUnit(decode_id(unit.get("id") or ""), "".join(sources), target, done)


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
