"""The text blocks of one XHTML document (headings, paragraphs, list items, quotes, definitions, captions, text
divs) and how a block's text is replaced."""

from __future__ import annotations

import copy
from dataclasses import dataclass

from lxml import etree

from store.books.inline_codes import encode, is_noteref, local
from store.books.inline_restore import Restored, fill

XHTML = "http://www.w3.org/1999/xhtml"
EPUB_NS = "http://www.idpf.org/2007/ops"
BLOCK_TAGS = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "dt", "dd", "figcaption", "div"})
# Containers that are never a paragraph themselves but may hold blocks.
_STRUCTURAL = BLOCK_TAGS | {
    "ul",
    "ol",
    "dl",
    "section",
    "article",
    "aside",
    "figure",
    "table",
    "nav",
    "header",
    "footer",
    "main",
    "body",
    "tr",
    "td",
    "th",
    "tbody",
    "thead",
    "hr",
    "pre",
}
_DROPPED = frozenset({"rt", "rp", "rtc"})
_IMAGES = frozenset({"img", "svg", "image"})
TRANSLATION_CLASS = "proofdesk-translation"


@dataclass(frozen=True)
class Block:
    """One paragraph-to-be: its text (with inline codes), the element path within the document, and the
    original markup of each code (``source_ref.codes``; None when the text holds no code and no escape)."""

    text: str
    path: str
    codes: dict[str, str] | None = None


def block_content(el: etree._Element) -> Block:
    """The block ``el`` as a paragraph: its text with inline codes (``store.books.inline_codes``), the markup of
    each code (present when the text must be read with codes), and its path."""
    encoded = encode(el)
    path = el.getroottree().getpath(el)
    if not encoded.has_words:
        return Block("", path)  # only images, marks or spaces: an empty paragraph, the block left as it is
    return Block(encoded.text, path, encoded.markup() if encoded.coded else None)


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


def _has_block_child(el: etree._Element) -> bool:
    return any(local(d) in _STRUCTURAL for d in el.iterdescendants())


def blocks(root: etree._Element) -> list[Block]:
    """The blocks of the document's body in document order (see the module docstring of the package)."""
    tree = root.getroottree()
    body = next((el for el in root.iter() if local(el) == "body"), None)
    if body is None:
        return []
    out: list[Block] = []

    def walk(el: etree._Element) -> None:
        for child in el:
            name = local(child)
            if not name:
                continue
            if name in BLOCK_TAGS and not _has_block_child(child):
                block = block_content(child)
                if name == "div" and not block.text and not any(local(d) in _IMAGES for d in child.iter()):
                    continue  # a div without text is a wrapper, not a paragraph
                out.append(block)
            elif name in _IMAGES:
                out.append(Block("", tree.getpath(child)))
            else:
                walk(child)

    walk(body)
    return out


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
