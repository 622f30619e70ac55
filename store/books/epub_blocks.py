"""A text block of an XHTML document (which elements are blocks: ``block_walk``) and how its text is read and
replaced."""

from __future__ import annotations

import copy
from dataclasses import dataclass

from lxml import etree

from store.books.inline_codes import encode, is_noteref, local
from store.books.inline_restore import Restored, fill

XHTML = "http://www.w3.org/1999/xhtml"
EPUB_NS = "http://www.idpf.org/2007/ops"
_DROPPED = frozenset({"rt", "rp", "rtc"})
TRANSLATION_CLASS = "proofdesk-translation"


@dataclass(frozen=True)
class Block:
    """One paragraph-to-be: its text (with inline codes) and the element path within the document (see
    ``block_walk``).

    ``kind`` names what it came from (``p``, ``h2``, ``td``, ``svg text``, ``loose text`` …, as ``import`` counts
    it); ``preformatted``: a ``pre`` block, whose whitespace is text and stays exactly as it is; ``codes``: the
    original markup of each code (``source_ref.codes``; None when the text holds no code and no escape)."""

    text: str
    path: str
    kind: str = ""
    preformatted: bool = False
    codes: dict[str, str] | None = None


def block_content(el: etree._Element, path: str, kind: str, preformatted: bool) -> Block:
    """The block ``el`` as a paragraph: its text with inline codes (``store.books.inline_codes``) and the markup of
    each code (present when the text must be read with codes)."""
    encoded = encode(el)
    if not encoded.has_words:
        return Block("", path, kind, preformatted)  # only images, marks or spaces: the block left as it is
    return Block(encoded.text, path, kind, preformatted, encoded.markup() if encoded.coded else None)


def block_text(el: etree._Element) -> str:
    """The element's plain text (titles): ruby readings and footnote marks dropped, ``<br/>`` as a newline, markup
    flattened."""
    parts: list[str] = []

    def walk(node: etree._Element) -> None:
        name = local(node)
        if name == "br":
            parts.append("\n")
        elif name not in _DROPPED and name and not (node is not el and is_noteref(node)):
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


def set_block_text(el: etree._Element, text: str, *, coded: bool = False) -> Restored:
    """Replace the element's content by ``text`` (newlines as ``<br/>``), keeping its attributes.

    ``coded``: ``text`` holds inline codes (``source_ref.codes`` was recorded on import), and the original inline
    elements come back around and among its words (``store.books.inline_restore``; what had to be repaired is
    returned). Otherwise (a chapter imported before codes) the markup is flattened as then, the footnote links
    (``<a epub:type="noteref">``) appended after the text in their original order."""
    return _set_coded(el, text) if coded else _set_plain(el, text)


def _set_plain(el: etree._Element, text: str) -> Restored:
    notes = [n for n in el.iterdescendants() if is_noteref(n)]
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
    return Restored()


def _set_coded(el: etree._Element, text: str) -> Restored:
    known = encode(el).elements
    kept_tail = el.tail
    for child in list(el):
        el.remove(child)
    el.text = None
    restored = fill(el, text, known)
    el.tail = kept_tail
    return restored


def add_translation_after(el: etree._Element, text: str, *, coded: bool = False) -> Restored:
    """Insert a copy of ``el`` holding ``text`` right after it, with the ``proofdesk-translation`` class
    (``coded``: as in :func:`set_block_text`; the original block, ruby readings and all, stays as it is).

    IDs are dropped from the copy (an ID twice is invalid) and its footnote links point at the same notes.
    """
    twin = copy.deepcopy(el)
    restored = set_block_text(twin, text, coded=coded)
    for node in twin.iter():
        if isinstance(node.tag, str) and "id" in node.attrib:
            del node.attrib["id"]
    classes = twin.get("class", "").split()
    twin.set("class", " ".join([*classes, TRANSLATION_CLASS]))
    twin.tail = el.tail
    el.tail = "\n"
    el.addnext(twin)
    twin.tail = twin.tail  # addnext keeps the tail set above
    return restored
