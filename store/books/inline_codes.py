"""A block element as a paragraph's text: its words, with each inline element as a numbered code.

Codes are numbered 1.. per block in document order (of the start tags). An element whose own words are translated
(``em``, ``a`` with text, ``span``…) is a paired code ``⟦n⟧…⟦/n⟧`` around them; one with no words to translate is a
standalone ``⟦n/⟧`` standing for the whole element: ``img``, ``svg``, ``math`` and the like always, a note mark
(``epub:type="noteref"``) and a page break always, any other element when it holds no text but whitespace.
``br`` is the newline; ``ruby`` (and ``rb``) is see-through: its base stays in the text, its reading (``rt``,
``rp``, ``rtc``) stays out. Comments and processing instructions are left out (their tails are text).

Outside ``pre``, each run of ASCII whitespace (space, tab, CR, LF, FF) is one space and a line's leading and
trailing ASCII whitespace is dropped; U+3000, U+00A0 and other spaces are text. Inside ``pre`` the text is exact.
A literal bracket is written twice (``store.books.code_text``).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from xml.sax.saxutils import quoteattr

from lxml import etree

from store.books.code_text import escape, written

EPUB_NS = "http://www.idpf.org/2007/ops"
XML_NS = "http://www.w3.org/XML/1998/namespace"
# Elements that never hold words to translate: each is one standalone code, kept whole.
STANDALONE = frozenset(
    {"img", "image", "svg", "math", "object", "embed", "video", "audio", "iframe", "canvas", "picture", "input", "hr"}
    | {"wbr"}
)
SEE_THROUGH = frozenset({"ruby", "rb"})
READING = frozenset({"rt", "rp", "rtc"})
_ASCII_SPACE = re.compile("[ \t\n\r\f]+")


def local(el: etree._Element) -> str:
    """The local name of an element (``''`` for comments and processing instructions)."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rpartition("}")[2]


def is_noteref(el: etree._Element) -> bool:
    """A footnote mark: ``<a epub:type="noteref">`` (or ``role="doc-noteref"``)."""
    return local(el) == "a" and (el.get(f"{{{EPUB_NS}}}type", "") == "noteref" or "noteref" in el.get("role", ""))


def _is_pagebreak(el: etree._Element) -> bool:
    return "pagebreak" in el.get(f"{{{EPUB_NS}}}type", "") or "pagebreak" in el.get("role", "")


@dataclass(frozen=True)
class InlineCode:
    """One code of a block: the element it stands for and whether it is paired (``⟦n⟧…⟦/n⟧``)."""

    element: etree._Element
    paired: bool


@dataclass
class Encoded:
    """A block as text with codes, the code elements (code n is ``elements[n - 1]``) and whether any text
    needed a bracket escaped."""

    text: str = ""
    elements: list[InlineCode] = field(default_factory=list)
    escaped: bool = False
    has_words: bool = False  # any text but whitespace (an image alone makes an empty paragraph)

    @property
    def coded(self) -> bool:
        """Whether the text must be read as text with codes (a code, or an escaped bracket, in it)."""
        return bool(self.elements) or self.escaped

    def markup(self) -> dict[str, str]:
        """Each code's original markup: the start tag of a paired one, the whole element of a standalone one."""
        return {str(n): _markup(code) for n, code in enumerate(self.elements, start=1)}


def _has_words(el: etree._Element) -> bool:
    """Whether ``el`` holds text to translate (not counting standalone elements and ruby readings)."""
    if (el.text or "").strip(" \t\n\r\f"):
        return True
    return any(_child_has_words(child) for child in el)


def _child_has_words(child: etree._Element) -> bool:
    if (child.tail or "").strip(" \t\n\r\f"):
        return True
    name = local(child)
    if not name or name in READING or _always_standalone(child, name):
        return False
    return _has_words(child)


def _always_standalone(el: etree._Element, name: str) -> bool:
    return name in STANDALONE or (name == "a" and is_noteref(el)) or _is_pagebreak(el)


class _Encoder:
    def __init__(self, exact: bool) -> None:
        self.exact = exact
        self.parts: list[str] = []
        self.out = Encoded()

    def text(self, value: str | None) -> None:
        if not value:
            return
        kept = escape(value)
        self.out.escaped = self.out.escaped or len(kept) != len(value)
        self.out.has_words = self.out.has_words or not value.isspace()
        self.parts.append(kept if self.exact else _ASCII_SPACE.sub(" ", kept))

    def content(self, node: etree._Element) -> None:
        self.text(node.text)
        for child in node:
            self.element(child)
            self.text(child.tail)

    def element(self, node: etree._Element) -> None:
        name = local(node)
        if not name or name in READING:
            return
        if name == "br":
            self.parts.append("\n")
        elif name in SEE_THROUGH:
            self.content(node)
        else:
            self.coded(node, name)

    def coded(self, node: etree._Element, name: str) -> None:
        if _always_standalone(node, name) or not _has_words(node):
            self.parts.append(written(self.code(node, False), "alone"))
            return
        number = self.code(node, True)
        self.parts.append(written(number, "open"))
        self.content(node)
        self.parts.append(written(number, "close"))

    def code(self, node: etree._Element, paired: bool) -> int:
        self.out.elements.append(InlineCode(node, paired))
        return len(self.out.elements)

    def finish(self) -> Encoded:
        joined = "".join(self.parts)
        self.out.text = joined if self.exact else _tidy(joined)
        return self.out


def _tidy(text: str) -> str:
    """Spaces collapsed across text nodes; each line's leading and trailing ASCII spaces dropped."""
    return "\n".join(line.strip(" ") for line in re.sub(" {2,}", " ", text).split("\n"))


def in_pre(el: etree._Element) -> bool:
    """Whether ``el`` is a ``pre`` or inside one (its whitespace is text)."""
    return local(el) == "pre" or any(local(a) == "pre" for a in el.iterancestors())


def encode(el: etree._Element) -> Encoded:
    """The block ``el`` as a paragraph's text with codes (see the module docstring)."""
    encoder = _Encoder(exact=in_pre(el))
    encoder.content(el)
    return encoder.finish()


def _qualified(name: str, el: etree._Element) -> str:
    """``{uri}local`` as ``prefix:local`` by the element's namespaces (the default namespace unprefixed)."""
    if not name.startswith("{"):
        return name
    uri, _, tail = name[1:].partition("}")
    prefix = _prefix(uri, el)
    return f"{prefix}:{tail}" if prefix else tail


def _prefix(uri: str, el: etree._Element) -> str | None:
    if uri == XML_NS:
        return "xml"
    return next((p for p, u in el.nsmap.items() if u == uri and p is not None), None)


def _markup(code: InlineCode) -> str:
    el = code.element
    if not code.paired:
        whole = copy.deepcopy(el)
        etree.cleanup_namespaces(whole)  # only the declarations the element uses
        return etree.tostring(whole, encoding="unicode", with_tail=False)
    attrs = "".join(f" {_qualified(str(k), el)}={quoteattr(str(v))}" for k, v in el.attrib.items())
    return f"<{_qualified(str(el.tag), el)}{attrs}>"
