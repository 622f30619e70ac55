"""Restoring a translation's inline codes never loses an element (issue 29, item 2): whatever the model did to the
codes (dropped, repeated, moved, crossed, invented), every id, image, math and svg of the block is in the result
exactly once, and every word of the translation is there, in order."""

from __future__ import annotations

import copy
import random
from collections import Counter

from lxml import etree

from store.books.code_text import Code, pieces, written
from store.books.epub_blocks import set_block_text
from store.books.inline_codes import encode

XHTML = "http://www.w3.org/1999/xhtml"
BLOCK = (
    f'<p xmlns="{XHTML}" xmlns:epub="http://www.idpf.org/2007/ops" id="blk">一<em>二<a href="#x" id="a1">三</a></em>'
    '<img src="g.png" alt="※"/><span epub:type="pagebreak" id="pg1"/><strong id="s1">四<b>五</b></strong>'
    '<math xmlns="http://www.w3.org/1998/Math/MathML"><mi>x</mi></math><sup><a epub:type="noteref" href="#n" '
    'id="r1">1</a></sup><svg xmlns="http://www.w3.org/2000/svg"><rect/></svg><a id="empty"></a>六</p>'
)


def _kept(el: etree._Element) -> Counter[str]:
    """Each id, and each img, math and svg, counted."""
    found: Counter[str] = Counter()
    for d in el.iter():
        if isinstance(d.tag, str):
            if d.get("id"):
                found["id=" + str(d.get("id"))] += 1
            if etree.QName(d).localname in {"img", "math", "svg"}:
                found[etree.QName(d).localname] += 1
    return found


def _mangled(rng: random.Random, parts: list[str | Code]) -> str:
    """The source's pieces with codes dropped, repeated, moved, swapped or invented, the words kept in order."""
    words = [f"w{n}" for n, p in enumerate(parts) if isinstance(p, str)]
    codes = [p.written() for p in parts if isinstance(p, Code)]
    rng.shuffle(codes) if rng.random() < 0.3 else None
    out: list[str] = []
    for word in words:
        out.append(word + " ")
        for _ in range(rng.randint(0, 2)):
            if codes and rng.random() < 0.8:
                out.append(codes.pop(0) if rng.random() < 0.7 else rng.choice(codes))
            elif rng.random() < 0.2:
                out.append(written(rng.randint(1, 20), rng.choice(["open", "close", "alone"])))
    return "".join(out)


def test_no_element_is_ever_lost() -> None:
    original = etree.fromstring(BLOCK)
    parts = pieces(encode(original).text)
    want = _kept(original)
    rng = random.Random(2029)
    for _ in range(400):
        text = _mangled(rng, parts)
        block = copy.deepcopy(original)
        set_block_text(block, text, coded=True)
        assert _kept(block) == want, text
        words = [p.strip() for p in pieces(text) if isinstance(p, str) and p.strip()]
        content = "".join(t for t in block.itertext() if t.strip().startswith("w"))
        assert content.replace(" ", "") == "".join(words).replace(" ", ""), text
        etree.fromstring(etree.tostring(block))  # well-formed


def test_the_source_text_restores_the_block_exactly() -> None:
    original = etree.fromstring(BLOCK)
    block = copy.deepcopy(original)
    assert not set_block_text(block, encode(original).text, coded=True)
    assert etree.tostring(block) == etree.tostring(original)


def test_a_standalone_element_is_moved_not_copied() -> None:
    """An export finds every block before it changes any: a block inside a standalone element (an SVG ``text``)
    found before its paragraph was rewritten is still the one in the document afterwards."""
    svg = "http://www.w3.org/2000/svg"
    block = etree.fromstring(f'<p xmlns="{XHTML}">図<svg xmlns="{svg}"><text>ラベル</text></svg>の説明</p>')
    label = next(block.iter(f"{{{svg}}}text"))
    set_block_text(block, "the ⟦1/⟧ figure", coded=True)
    label.text = "label"
    assert etree.tostring(block, encoding="unicode").endswith(
        f'>the <svg xmlns="{svg}"><text>label</text></svg> figure</p>'
    )
