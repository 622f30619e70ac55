"""A translation with inline codes back into a block: the original elements around the translated words.

The codes are read against the block's own (``inline_codes.encode`` of the original element, emptied first): a
paired code ``⟦n⟧…⟦/n⟧`` becomes a copy of element n (tag and attributes, IDs included) holding the words between,
a standalone ``⟦n/⟧`` the element itself, moved into place whole (so a block found inside it, such as an SVG
``text``, is still the one in the document), a newline a ``<br/>``. Nothing of the book is lost when the codes
differ from the source's: a standalone element the translation lacks is appended at the block's end; a paired one
that cannot be placed (missing, repeated, unclosed, crossing another) is dropped around its words, and an empty
copy of it is appended when it carries an ``id`` (a link may point there); a code the block has not, or a
repeated one, is left out. Each such repair is noted in the :class:`Restored` it returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from store.books.code_text import Code, pieces, written
from store.books.inline_codes import InlineCode


@dataclass
class Restored:
    """What restoring one block had to repair (empty when the codes matched)."""

    appended: list[str] = field(default_factory=list)  # codes the translation lacked, added at the block's end
    dropped: list[str] = field(default_factory=list)  # codes written that could not be placed
    known: int = 0  # how many codes the original block holds

    def __bool__(self) -> bool:
        return bool(self.appended or self.dropped)

    def summary(self) -> str:
        """One phrase for an export report."""
        said = []
        if self.appended:
            said.append(f"appended {' '.join(self.appended)}")
        if self.dropped:
            said.append(f"dropped {' '.join(self.dropped)}")
        return "; ".join(said)


def _paired_placeable(codes: list[Code], known: list[InlineCode]) -> set[int]:
    """The paired codes that can be placed: known as paired, opened once, closed after, nesting with the others
    (of two that cross, the inner one opened later is dropped)."""
    stack: list[int] = []
    opened: set[int] = set()
    good: set[int] = set()
    for code in codes:
        if code.kind == "open" and _is(known, code.number, paired=True) and code.number not in opened:
            opened.add(code.number)
            stack.append(code.number)
        elif code.kind == "close" and code.number in stack:
            _close_pair(stack, code.number)
            good.add(code.number)
    return good


def _close_pair(stack: list[int], n: int) -> None:
    """Close ``n``, dropping the pairs opened inside it and not closed (they cross it)."""
    while stack.pop() != n:
        pass


def _is(known: list[InlineCode], n: int, *, paired: bool) -> bool:
    return 1 <= n <= len(known) and known[n - 1].paired == paired


class _Builder:
    def __init__(self, block: etree._Element, known: list[InlineCode], good: set[int]) -> None:
        self.block = block
        self.known = known
        self.good = good
        self.open: list[etree._Element] = [block]
        self.placed: dict[int, etree._Element] = {}
        self.ns = block.tag.rpartition("}")[0] + "}" if str(block.tag).startswith("{") else ""
        self.report = Restored(known=len(known))

    def text(self, value: str) -> None:
        lines = value.split("\n")
        self._append_text(lines[0])
        for line in lines[1:]:
            etree.SubElement(self.open[-1], f"{self.ns}br")
            self._append_text(line)

    def _append_text(self, value: str) -> None:
        parent = self.open[-1]
        if len(parent):
            parent[-1].tail = (parent[-1].tail or "") + value
        else:
            parent.text = (parent.text or "") + value

    def code(self, code: Code) -> None:
        placed = {"alone": self._alone, "open": self._open, "close": self._close}[code.kind](code.number)
        if not placed:
            self._dropped(code.written())

    def _alone(self, n: int) -> bool:
        if not _is(self.known, n, paired=False) or n in self.placed:
            return False
        self._place(self.open[-1], self.known[n - 1].element, n)
        return True

    def _open(self, n: int) -> bool:
        if n not in self.good or n in self.placed:
            return False
        self.open.append(_shallow_into(self.open[-1], self.known[n - 1].element))
        self.placed[n] = self.open[-1]
        return True

    def _close(self, n: int) -> bool:
        if n not in self.good or self.open[-1] is not self.placed.get(n):
            return False
        self.open.pop()
        return True

    def _dropped(self, what: str) -> None:
        if what not in self.report.dropped:
            self.report.dropped.append(what)

    def _place(self, parent: etree._Element, el: etree._Element, n: int) -> etree._Element:
        el.tail = None
        parent.append(el)
        self.placed[n] = el
        return el

    def missing(self) -> None:
        """The block's codes the translation did not place: standalone ones and IDs appended, the rest noted."""
        for n, inline in enumerate(self.known, start=1):
            if n in self.placed:
                continue
            if not inline.paired:
                self._place(self.block, inline.element, n)
                self.report.appended.append(written(n, "alone"))
                continue
            self._dropped(written(n, "open"))
            if inline.element.get("id") is not None:
                _shallow_into(self.block, inline.element)


def _shallow_into(parent: etree._Element, el: etree._Element) -> etree._Element:
    """A copy of ``el`` without its content (tag and attributes) as ``parent``'s last child."""
    return etree.SubElement(parent, el.tag, attrib={str(k): str(v) for k, v in el.attrib.items()})


def fill(block: etree._Element, text: str, known: list[InlineCode]) -> Restored:
    """Write ``text`` (with codes) into the emptied ``block``, the codes read as ``known`` (the original block's)."""
    parts = pieces(text)
    good = _paired_placeable([p for p in parts if isinstance(p, Code)], known)
    builder = _Builder(block, known, good)
    for part in parts:
        if isinstance(part, Code):
            builder.code(part)
        else:
            builder.text(part)
    builder.missing()
    return builder.report
