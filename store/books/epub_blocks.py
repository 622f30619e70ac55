"""A text block of an XHTML document (which elements are blocks: ``block_walk``) and how its text is read and
replaced."""

from __future__ import annotations

import copy
from dataclasses import dataclass

from lxml import etree

XHTML = "http://www.w3.org/1999/xhtml"
EPUB_NS = "http://www.idpf.org/2007/ops"
_DROPPED = frozenset({"rt", "rp"})
TRANSLATION_CLASS = "proofdesk-translation"


def local(el: etree._Element) -> str:
    """The local name of an element (``''`` for comments and processing instructions)."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rpartition("}")[2]


@dataclass(frozen=True)
class Block:
    """One paragraph-to-be: its text and the element path within the document (see ``block_walk``).

    ``kind`` names what it came from (``p``, ``h2``, ``td``, ``svg text``, ``loose text`` …, as ``import`` counts
    it); ``preformatted``: a ``pre`` block, whose whitespace is text and stays exactly as it is."""

    text: str
    path: str
    kind: str = ""
    preformatted: bool = False


def block_text(el: etree._Element) -> str:
    """The element's text: ruby readings and footnote marks dropped, ``<br/>`` as a newline, markup flattened."""
    parts: list[str] = []

    def walk(node: etree._Element) -> None:
        name = local(node)
        if name == "br":
            parts.append("\n")
        elif name not in _DROPPED and name and not (node is not el and _is_noteref(node)):
            # A footnote mark is markup, not text to translate: export puts the link back after the text.
            if node.text:
                parts.append(node.text)
            for child in node:
                walk(child)
                if child.tail:
                    parts.append(child.tail)
        # comments / PIs: their tail is handled by the parent

    walk(el)
    return "".join(parts)


def _namespace(el: etree._Element) -> str:
    """The ``{uri}`` prefix of the element's tag, or ``''`` when it has none."""
    tag = el.tag
    return tag.rpartition("}")[0] + "}" if isinstance(tag, str) and tag.startswith("{") else ""


def _is_noteref(el: etree._Element) -> bool:
    return local(el) == "a" and (el.get(f"{{{EPUB_NS}}}type", "") == "noteref" or "noteref" in el.get("role", ""))


def set_block_text(el: etree._Element, text: str) -> None:
    """Replace the element's content by ``text`` (newlines as ``<br/>``), keeping its attributes and its
    footnote links (``<a epub:type="noteref">``, appended after the text in their original order)."""
    notes = [n for n in el.iterdescendants() if _is_noteref(n)]
    kept_tail = el.tail
    for child in list(el):
        el.remove(child)
    el.text = None
    ns = _namespace(el)
    lines = text.split("\n")
    el.text = lines[0]
    for line in lines[1:]:
        br = etree.SubElement(el, f"{ns}br")
        br.tail = line
    for note in notes:
        note.tail = None
        el.append(note)
    el.tail = kept_tail


def add_translation_after(el: etree._Element, text: str) -> None:
    """Insert a copy of ``el`` holding ``text`` right after it, with the ``proofdesk-translation`` class.

    IDs are dropped from the copy (an ID twice is invalid) and its footnote links point at the same notes.
    """
    twin = copy.deepcopy(el)
    set_block_text(twin, text)
    for node in twin.iter():
        if isinstance(node.tag, str) and "id" in node.attrib:
            del node.attrib["id"]
    classes = twin.get("class", "").split()
    twin.set("class", " ".join([*classes, TRANSLATION_CLASS]))
    twin.tail = el.tail
    el.tail = "\n"
    el.addnext(twin)
    twin.tail = twin.tail  # addnext keeps the tail set above
