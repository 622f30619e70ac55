"""A demo round trip keeps the book's inline markup (issue 29): ``proofdesk import`` → ``proofdesk run --model
demo`` → ``proofdesk export --epub`` (translated-only and bilingual), the export compared with the original by
parsing both: every ``id``, ``img``, ``a href``, ``math`` and ``svg`` is still there."""

from __future__ import annotations

import zipfile
from collections import Counter
from pathlib import Path

from lxml import etree

from store.loader import load_chapter
from tests.store.books.epub_builder import build_epub, run_epubcheck, structural_problems
from tui.cli import main

MATH = '<math xmlns="http://www.w3.org/1998/Math/MathML" id="m1"><mi>x</mi></math>'
SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>'
CH1 = f"""
  <h1 id="h1">第一章　<em>出会い</em></h1>
  <p id="p1">
      「おはよう」と<ruby>彼女<rp>(</rp><rt>かのじょ</rt><rp>)</rp></ruby>は<strong class="s">言った</strong>。<sup><a
      epub:type="noteref" href="ch2.xhtml#n1" id="r1">1</a></sup>
  </p>
  <p>一行目<span epub:type="pagebreak" id="pg5" title="5"/><br/>
     二行目<img src="pic.png" alt="外字" class="gaiji"/>終 <a href="ch2.xhtml#n1">リンク</a> ⟦括弧⟧</p>
  <p>式 {MATH} と図 {SVG}　全角<a id="end"></a></p>
  <p><b>太<i>斜<a href="#p1" id="back">戻る</a></i></b></p>
"""
CH2 = '<h2>注</h2><aside epub:type="footnote" id="n1"><p><a href="ch1.xhtml#r1">1</a> 注の<i>本文</i></p></aside>'
NAMES = ("OEBPS/ch1.xhtml", "OEBPS/ch2.xhtml")


def _what_must_stay(epub: Path) -> Counter[str]:
    """Each id, img (by src), a (by href), math and svg of the book's documents, counted."""
    found: Counter[str] = Counter()
    with zipfile.ZipFile(epub) as zf:
        for name in NAMES:
            for el in etree.fromstring(zf.read(name)).iter():
                if not isinstance(el.tag, str):
                    continue
                kind = etree.QName(el).localname
                if el.get("id") is not None:
                    found[f"id={el.get('id')}"] += 1
                if kind == "img":
                    found[f"img {el.get('src')}"] += 1
                elif kind == "a" and el.get("href") is not None:
                    found[f"a {el.get('href')}"] += 1
                elif kind in {"math", "svg"}:
                    found[kind] += 1
    return found


def test_a_demo_round_trip_keeps_every_id_image_link_math_and_svg(tmp_path: Path) -> None:
    book = build_epub(tmp_path / "book.epub", [("ch1.xhtml", "出会い", CH1), ("ch2.xhtml", "注釈", CH2)])
    ws = tmp_path / "ws"
    assert main(["import", str(book), "-o", str(ws), "--target-language", "en"]) == 0
    assert main(["run", str(ws), "--task", "translate", "--model", "demo"]) == 0
    assert all(p.selected_text for p in load_chapter(ws / "ch001.json").paragraphs if not p.is_empty)
    assert main(["check", str(ws), "--codes", "CODES_DIFFER"]) == 0  # the demo kept every code
    original = _what_must_stay(book)
    assert original["math"] == original["svg"] == 1 and original["img pic.png"] == 1 and original["id=pg5"] == 1
    out = tmp_path / "out.epub"
    assert main(["export", str(ws), "--epub", str(out)]) == 0
    assert _what_must_stay(out) == original
    bilingual = tmp_path / "bi.epub"
    assert main(["export", str(ws), "--epub", str(bilingual), "--bilingual"]) == 0
    kept = _what_must_stay(bilingual)
    # The bilingual book: the original's every one, and each translated copy's again (its IDs dropped).
    assert all(kept[key] >= count for key, count in original.items())
    assert {key: kept[key] for key in original if key.startswith("id=")} == {
        key: n for key, n in original.items() if key.startswith("id=")
    }
    for book_out in (out, bilingual):
        assert structural_problems(book_out) == []
        run_epubcheck(book_out)
    with zipfile.ZipFile(out) as zf:
        text = zf.read("OEBPS/ch1.xhtml").decode()
    assert "[demo en]" in text and "⟦括弧⟧" in text and "⟦⟦" not in text
