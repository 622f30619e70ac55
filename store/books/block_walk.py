"""The paragraphs of one XHTML document, found in one walk of its body (the rules: ``block_kinds``).

Each element's path is made from its parent's as the walk goes (``element_path.child_steps``), so a document of
125,000 blocks costs what its size does. What holds text and is not imported (scripts, styles, MathML, an SVG's
title) is counted by kind in ``skipped``, for ``import`` to say so.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from lxml import etree

from store.books.ascii_space import collapse_ascii_space
from store.books.block_kinds import (
    EMPTY_BLOCKS,
    HOLDS_BLOCKS,
    IMAGES,
    KEPT_AS_IS,
    LOOSE_TEXT,
    OWN_TEXT,
    PREFORMATTED,
    SVG_SKIPPED,
    SVG_TEXT,
)
from store.books.element_path import child_steps, path_of
from store.books.epub_blocks import Block, block_content, block_text, local


@dataclass
class DocumentBlocks:
    """A document's paragraphs in document order, and what holds text but was left as it is (kind -> count)."""

    blocks: list[Block] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)

    def add(self, text: str, path: str, kind: str) -> None:
        self.blocks.append(Block(text, path, kind, kind == PREFORMATTED))

    def walk(self, el: etree._Element, path: str) -> None:
        """The blocks of ``el``'s children and its loose text runs (numbered as ``element_path.text_runs``)."""
        number = self._loose(el.text, path, 1)
        steps = child_steps(el)
        for child in el:
            if isinstance(child.tag, str):
                self.element(child, f"{path}/{next(steps)[1]}")
            number = self._loose(child.tail, path, number)

    def _loose(self, text: str | None, parent_path: str, number: int) -> int:
        """A loose text paragraph for run ``number`` when it has text; the next run's number."""
        if text is None:
            return number
        if text.strip():
            self.add(collapse_ascii_space(text), f"{parent_path}/text()[{number}]", LOOSE_TEXT)
        return number + 1

    def element(self, el: etree._Element, path: str) -> None:
        """``el`` as a paragraph, an image, an SVG, something kept as it is, or a container to walk into."""
        kind = local(el)
        if kind in KEPT_AS_IS:
            self._skip(el, kind)
        elif kind in IMAGES or kind == "svg":
            self.image(el, path, kind)
        elif _holds_blocks(el) or not self._leaf(el, path, kind):
            self.walk(el, path)

    def image(self, el: etree._Element, path: str, kind: str) -> None:
        """An image as an empty paragraph; an SVG's texts as paragraphs (the SVG is empty only without them)."""
        if kind == "svg":
            self.svg(el, path)
        else:
            self.add("", path, kind)

    def _leaf(self, el: etree._Element, path: str, kind: str) -> bool:
        """``el`` as one paragraph when it has words, or is an empty block that keeps its place; False to walk into
        it instead (no text, or text only in an SVG, a formula or a script, each handled on its own)."""
        if _has_words(el):
            self.blocks.append(block_content(el, path, kind, kind == PREFORMATTED))
        elif block_text(el).strip() or not (kind in EMPTY_BLOCKS or (kind == "div" and _has_image(el))):
            return False
        else:
            self.add("", path, kind)
        return True

    def svg(self, el: etree._Element, path: str) -> None:
        """Each ``text`` of the SVG as a paragraph, or the SVG as one image (an empty paragraph)."""
        before = len(self.blocks)
        self._svg_texts(el, path)
        if len(self.blocks) == before:
            self.add("", path, "svg")

    def _svg_texts(self, el: etree._Element, path: str) -> None:
        for child, step in child_steps(el):
            kind = local(child)
            if kind == "text" and block_text(child).strip():
                self.add(block_text(child), f"{path}/{step}", SVG_TEXT)  # plain: its tspans are drawing, not markup
            elif kind in SVG_SKIPPED:
                self._skip(child, f"svg {kind}")
            else:
                self._svg_texts(child, f"{path}/{step}")

    def _skip(self, el: etree._Element, kind: str) -> None:
        if block_text(el).strip():
            self.skipped[kind] += 1


def _has_words(el: etree._Element) -> bool:
    """Whether ``el`` holds text outside an SVG and what is kept as it is (a ``div`` holding only a formula or an SVG
    with a caption drawn in it has none: the SVG's texts are paragraphs of their own)."""
    if el.text and el.text.strip():
        return True
    return any(_child_has_words(child) for child in el)


def _child_has_words(child: etree._Element) -> bool:
    if child.tail and child.tail.strip():
        return True
    return isinstance(child.tag, str) and local(child) not in OWN_TEXT and _has_words(child)


def _holds_blocks(el: etree._Element) -> bool:
    return any(local(node) in HOLDS_BLOCKS for node in el.iterdescendants())


def _has_image(el: etree._Element) -> bool:
    return any(local(node) in IMAGES or local(node) == "svg" for node in el.iter())


def document_blocks(root: etree._Element) -> DocumentBlocks:
    """The paragraphs of the document's body (none when it has no body)."""
    found = DocumentBlocks()
    body = next((el for el in root.iter() if local(el) == "body"), None)
    if body is not None:
        found.walk(body, path_of(body))
    return found


def blocks(root: etree._Element) -> list[Block]:
    """The paragraphs of the document's body, in document order."""
    return document_blocks(root).blocks
