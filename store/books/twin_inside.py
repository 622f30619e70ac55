"""The bilingual book's translation of a block that cannot have a twin beside it: inside the block instead.

A ``caption`` or ``figcaption`` may appear once in its table or figure, and a second ``td``/``th`` would add a
column to its row; such a block keeps its original text and gets ``<br/>`` and a
``<span class="proofdesk-translation">`` holding the translation at its end (``lang`` set by ``edition_lang``).
"""

from __future__ import annotations

import copy

from lxml import etree

from store.books.epub_blocks import TRANSLATION_CLASS, set_block_text
from store.books.inline_restore import Restored

INSIDE_ONLY = frozenset({"caption", "figcaption", "td", "th", "summary", "legend"})


def add_translation_inside(el: etree._Element, text: str, *, coded: bool = False) -> Restored:
    """Append a line break and a span holding ``text`` to ``el``, in ``el``'s namespace. ``coded``: as in
    ``set_block_text``, the inline elements of ``el`` come back among the words (copies, without their IDs)."""
    tag = el.tag
    assert isinstance(tag, str)
    namespace = tag.rpartition("}")[0] + "}" if tag.startswith("{") else ""
    filled = copy.deepcopy(el)  # the block's own elements, read before the span is added
    restored = set_block_text(filled, text, coded=coded)
    etree.SubElement(el, f"{namespace}br")
    span = etree.SubElement(el, f"{namespace}span", {"class": TRANSLATION_CLASS})
    span.text = filled.text
    span.extend(list(filled))
    for node in span.iter():
        if isinstance(node.tag, str) and "id" in node.attrib:
            del node.attrib["id"]
    return restored
