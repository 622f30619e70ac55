"""Inline codes: a book's inline markup survives the round trip (issue 29, items 1 and 2; design section 21).

Each inline kind in a book built here: what the paragraph's text becomes on import, the markup kept in its
source_ref, and the export (translated-only and bilingual) giving back every element with its attributes."""

from __future__ import annotations

import json
import random
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from store.books.code_text import escape, pieces, unescape
from store.books.epub_blocks import TRANSLATION_CLASS
from store.books.inline_codes import encode
from store.loader import load_chapter
from store.model import TranslationVersion
from store.serialize import chapter_bytes
from tests.store.books.epub_builder import build_epub
from tui.cli import main

XHTML = "http://www.w3.org/1999/xhtml"
MATH = '<math xmlns="http://www.w3.org/1998/Math/MathML"><mi>x</mi><mo>=</mo><mn>2</mn></math>'
SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect id="r" width="8" height="8"/></svg>'

# name: (the paragraph's inner XHTML, its text on import)
KINDS: dict[str, tuple[str, str]] = {
    "emphasis": (
        "普通<em>強調</em>と<strong>太字</strong>と<i>斜体</i>と<b>太</b>。",
        "普通⟦1⟧強調⟦/1⟧と⟦2⟧太字⟦/2⟧と⟦3⟧斜体⟦/3⟧と⟦4⟧太⟦/4⟧。",
    ),
    "link with href and id": ('前<a href="ch2.xhtml#n1" id="l1" class="x">リンク</a>後', "前⟦1⟧リンク⟦/1⟧後"),
    "page-break span with id": (
        '一<span epub:type="pagebreak" role="doc-pagebreak" id="pg7" title="7"/>二',
        "一⟦1/⟧二",
    ),
    "empty anchor": ('<a id="anchor3"></a>本文', "⟦1/⟧本文"),
    "noteref in sup": ('本文<sup><a epub:type="noteref" href="ch2.xhtml#n1" id="ref1">1</a></sup>。', "本文⟦1/⟧。"),
    "footnote backlink": (
        '<a href="ch1.xhtml#ref1" role="doc-backlink" id="back1">1</a> 注の本文',
        "⟦1⟧1⟦/1⟧ 注の本文",
    ),
    "gaiji image": ('外<img class="gaiji" src="pic.png" alt="※"/>字', "外⟦1/⟧字"),
    "math": (f"式{MATH}を解く", "式⟦1/⟧を解く"),
    "svg": (f"図{SVG}を見る", "図⟦1/⟧を見る"),
    "ruby": ("<ruby>漢<rp>(</rp><rt>かん</rt><rp>)</rp></ruby><ruby>字<rt>じ</rt></ruby>を読む", "漢字を読む"),
    "nested": (
        '<strong class="s">強<em>い<a href="ch2.xhtml" id="in">語</a></em></strong>だ',
        "⟦1⟧強⟦2⟧い⟦3⟧語⟦/3⟧⟦/2⟧⟦/1⟧だ",
    ),
    "literal brackets": ("記号⟦1⟧と⟧⟦と<em>⟦注⟧</em>", "記号⟦⟦1⟧⟧と⟧⟧⟦⟦と⟦1⟧⟦⟦注⟧⟧⟦/1⟧"),
    "pretty-printed": ("\n      一行\n\t目  <em>\n   強調 </em>\n   終わり\n  ", "一行 目 ⟦1⟧ 強調 ⟦/1⟧ 終わり"),
    "break and spaces": ("　字下げ&#160;と\u3000<br/>\n    次の行\u3000", "　字下げ\u00a0と\u3000\n次の行\u3000"),
}
SEE_THROUGH = {"ruby", "rt", "rp", "br"}


def _book(tmp_path: Path, inner: str) -> Path:
    body = f'<p id="para" class="c">{inner}</p><p>地の文</p>'
    notes = '<aside epub:type="footnote" id="n1"><p><a href="ch1.xhtml#ref1">1</a> 注の<i>本文</i></p></aside>'
    return build_epub(tmp_path / "book.epub", [("ch1.xhtml", "一", body), ("ch2.xhtml", "注", notes)])


def _imported(tmp_path: Path, inner: str) -> Path:
    ws = tmp_path / "ws"
    assert main(["import", str(_book(tmp_path, inner)), "-o", str(ws), "--target-language", "en"]) == 0
    return ws


def _translate(ws: Path, how: dict[str, str] | None = None) -> None:
    """Every paragraph translated as ``EN `` + its text (codes and all), or as ``how`` says by paragraph index."""
    path = ws / "ch001.json"
    chapter = load_chapter(path)
    paras = []
    for n, p in enumerate(chapter.paragraphs):
        text = (how or {}).get(str(n), "EN " + p.text)
        v = TranslationVersion(id=f"t{n}", text=text, origin="translation", created_at="2026-01-01T00:00:00Z")
        paras.append(p.replace(translations=(v,), selected_translation_id=v.id))
    path.write_bytes(chapter_bytes(chapter.replace(paragraphs=tuple(paras))))


def _doc(epub: Path, name: str = "OEBPS/ch1.xhtml") -> etree._Element:
    with zipfile.ZipFile(epub) as zf:
        return etree.fromstring(zf.read(name))


def _export(tmp_path: Path, ws: Path, bilingual: bool, name: str = "out") -> Path:
    out = tmp_path / f"{name}{'-bi' if bilingual else ''}.epub"
    assert main(["export", str(ws), "--epub", str(out), *(["--bilingual"] if bilingual else [])]) == 0
    return out


def _paragraphs(root: etree._Element) -> list[etree._Element]:
    return list(root.iter(f"{{{XHTML}}}p"))


def _inline(el: etree._Element, *, drop_ids: bool = False) -> list[tuple[str, list[tuple[str, str]]]]:
    """Every element inside ``el`` (ruby, readings and breaks left out): its tag and attributes, in order."""
    return [
        (str(d.tag), sorted((str(k), str(v)) for k, v in d.attrib.items() if not (drop_ids and k == "id")))
        for d in el.iterdescendants()
        if isinstance(d.tag, str)
        and etree.QName(d).localname not in SEE_THROUGH
        and not any(etree.QName(a).localname in {"rt", "rp"} for a in d.iterancestors())
    ]


@pytest.mark.parametrize("kind", list(KINDS))
def test_import_writes_codes_and_keeps_their_markup(tmp_path: Path, kind: str) -> None:
    inner, expected = KINDS[kind]
    para = load_chapter(_imported(tmp_path, inner) / "ch001.json").paragraphs[0]
    assert para.text == expected
    ref = para.extra["source_ref"]
    codes = ref.get("codes")
    wanted = {c.number for c in pieces(expected) if not isinstance(c, str)}
    assert (codes is not None) is (wanted != set() or "⟦⟦" in expected)
    assert set(map(int, codes or {})) == wanted


def test_the_markup_of_each_code_is_its_start_tag_or_the_whole_element(tmp_path: Path) -> None:
    inner = '<a href="ch2.xhtml#n1" id="l1">語</a><img src="pic.png" alt="※"/><span epub:type="pagebreak" id="p9"/>'
    para = load_chapter(_imported(tmp_path, inner) / "ch001.json").paragraphs[0]
    codes = para.extra["source_ref"]["codes"]
    assert codes["1"] == '<a href="ch2.xhtml#n1" id="l1">'
    assert codes["2"] == f'<img xmlns="{XHTML}" src="pic.png" alt="※"/>'
    assert 'epub:type="pagebreak" id="p9"' in codes["3"] and codes["3"].endswith("/>")


def test_a_plain_paragraph_gets_no_codes(tmp_path: Path) -> None:
    para = load_chapter(_imported(tmp_path, "ただの文。") / "ch001.json").paragraphs[0]
    assert para.text == "ただの文。"
    assert para.extra["source_ref"].keys() == {"href", "path"}


@pytest.mark.parametrize("kind", list(KINDS))
def test_export_puts_every_element_back_around_the_translation(tmp_path: Path, kind: str) -> None:
    inner, _ = KINDS[kind]
    ws = _imported(tmp_path, inner)
    _translate(ws)
    original = _paragraphs(_doc(ws / ".proofdesk" / "source.epub"))[0]
    translated = _paragraphs(_doc(_export(tmp_path, ws, bilingual=False)))[0]
    assert _inline(translated) == _inline(original)
    assert translated.get("id") == "para" and translated.get("class") == "c"
    assert "".join(translated.itertext()).startswith("EN ")
    bilingual = _paragraphs(_doc(_export(tmp_path, ws, bilingual=True)))
    untouched = etree.tostring(bilingual[0], with_tail=False) == etree.tostring(original, with_tail=False)
    assert untouched  # the original block as it was, ruby and all
    assert bilingual[1].get("class") == f"c {TRANSLATION_CLASS}" and bilingual[1].get("id") is None
    assert _inline(bilingual[1]) == _inline(original, drop_ids=True)


def test_translated_words_go_inside_their_elements(tmp_path: Path) -> None:
    inner = KINDS["nested"][0] + '<img src="pic.png" alt="※"/>'
    ws = _imported(tmp_path, inner)
    _translate(ws, {"0": "It is ⟦1⟧strong ⟦2⟧a ⟦3⟧word⟦/3⟧⟦/2⟧⟦/1⟧⟦4/⟧\nagain"})
    p = _paragraphs(_doc(_export(tmp_path, ws, bilingual=False)))[0]
    xml = etree.tostring(p, encoding="unicode")
    assert '>It is <strong class="s">strong <em>a <a href="ch2.xhtml" id="in">word</a></em></strong>' in xml
    assert xml.endswith('<img src="pic.png" alt="※"/><br/>again</p>')


def test_ruby_translated_only_the_base_translation_replaces_it(tmp_path: Path) -> None:
    ws = _imported(tmp_path, KINDS["ruby"][0])
    _translate(ws, {"0": "read the kanji"})
    p = _paragraphs(_doc(_export(tmp_path, ws, bilingual=False)))[0]
    assert etree.tostring(p, encoding="unicode").endswith('class="c">read the kanji</p>')


def test_literal_brackets_come_back_exactly(tmp_path: Path) -> None:
    ws = _imported(tmp_path, KINDS["literal brackets"][0])
    _translate(ws, {"0": "mark ⟦⟦1⟧⟧ and ⟧⟧⟦⟦ and ⟦1⟧⟦⟦note⟧⟧⟦/1⟧"})
    p = _paragraphs(_doc(_export(tmp_path, ws, bilingual=False)))[0]
    assert etree.tostring(p, encoding="unicode").endswith(">mark ⟦1⟧ and ⟧⟦ and <em>⟦note⟧</em></p>")


def test_the_bracket_escape_round_trips_any_text() -> None:
    rng = random.Random(29)
    for _ in range(2000):
        text = "".join(rng.choice("⟦⟧/1a \n") for _ in range(rng.randint(0, 12)))
        written = escape(text)
        assert unescape(written) == text
        assert [p for p in pieces(written) if not isinstance(p, str)] == []  # no code read into the book's text


def test_pre_keeps_its_whitespace_exactly() -> None:
    pre = etree.fromstring(f'<pre xmlns="{XHTML}">  a\n\t b  <em> c </em>\n</pre>')
    assert encode(pre).text == "  a\n\t b  ⟦1⟧ c ⟦/1⟧\n"
    p = etree.fromstring(f'<p xmlns="{XHTML}">  a\n\t b  <em> c </em>\n</p>')
    assert encode(p).text == "a b ⟦1⟧ c ⟦/1⟧"


def test_an_old_workspace_without_codes_exports_as_before(tmp_path: Path) -> None:
    """A chapter imported before codes (no source_ref.codes, the text flattened): the markup flattened, the note
    links appended after the text, as then."""
    ws = _imported(tmp_path, KINDS["emphasis"][0] + KINDS["noteref in sup"][0])
    path = ws / "ch001.json"
    data = json.loads(path.read_text())
    del data["paragraphs"][0]["source_ref"]["codes"]
    path.write_text(json.dumps(data, ensure_ascii=False))
    _translate(ws, {"0": "plain ⟦1⟧"})
    p = _paragraphs(_doc(_export(tmp_path, ws, bilingual=False)))[0]
    tail = '>plain ⟦1⟧<a epub:type="noteref" href="ch2.xhtml#n1" id="ref1">1</a></p>'
    assert etree.tostring(p, encoding="unicode").endswith(tail)


def test_broken_codes_lose_nothing_and_the_export_names_the_paragraph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inner = (
        '<em>一</em><span epub:type="pagebreak" id="pg2"/><strong>二</strong><b>三</b>'
        '<img src="pic.png" alt="※"/><a id="target" href="ch2.xhtml">四</a>'
    )
    ws = _imported(tmp_path, inner)
    chapter = load_chapter(ws / "ch001.json")
    assert chapter.paragraphs[0].text == "⟦1⟧一⟦/1⟧⟦2/⟧⟦3⟧二⟦/3⟧⟦4⟧三⟦/4⟧⟦5/⟧⟦6⟧四⟦/6⟧"
    pid = chapter.paragraphs[0].id
    # ⟦2/⟧ and ⟦5/⟧ lost, ⟦3⟧ and ⟦4⟧ crossing, ⟦1⟧ repeated, ⟦6⟧ (with an id) missing, ⟦9/⟧ unknown.
    _translate(ws, {"0": "⟦1⟧one⟦/1⟧ ⟦3⟧two ⟦4⟧three⟦/3⟧⟦/4⟧ ⟦1⟧again⟦/1⟧ four ⟦9/⟧"})
    capsys.readouterr()
    out = _export(tmp_path, ws, bilingual=False)
    err = capsys.readouterr().err
    assert f"ch001 paragraph {pid} (appended ⟦2/⟧ ⟦5/⟧; dropped ⟦4⟧ ⟦/4⟧ ⟦1⟧ ⟦/1⟧ ⟦9/⟧ ⟦6⟧)" in err
    p = _paragraphs(_doc(out))[0]
    xml = etree.tostring(p, encoding="unicode")
    assert "<em>one</em> <strong>two three</strong> again four" in xml  # the words kept, the markup dropped
    assert xml.endswith(
        '<span epub:type="pagebreak" id="pg2"/><img src="pic.png" alt="※"/><a id="target" href="ch2.xhtml"/></p>'
    )
    # The bilingual export repairs its inserted copy the same way and says so; the original block is untouched.
    assert main(["export", str(ws), "--epub", str(tmp_path / "b.epub"), "--bilingual"]) == 0
    assert f"ch001 paragraph {pid}" in capsys.readouterr().err
    # proofdesk check names the same paragraph.
    assert main(["check", str(ws / "ch001.json"), "--codes", "CODES_DIFFER"]) == 1
    assert f"{pid} CODES_DIFFER" in capsys.readouterr().out


def test_text_exports_leave_the_codes_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = _imported(tmp_path, KINDS["nested"][0] + "⟦括弧⟧")
    _translate(ws, {"0": "⟦1⟧Strong ⟦2⟧a ⟦3⟧word⟦/3⟧⟦/2⟧⟦/1⟧ ⟦⟦bracket⟧⟧"})
    capsys.readouterr()
    for fmt in ("text", "bilingual", "markdown"):
        assert main(["export", str(ws / "ch001.json"), "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert "Strong a word ⟦bracket⟧" in out and "⟦1⟧" not in out and "⟦⟦" not in out
    assert main(["export", str(ws / "ch001.json"), "--format", "bilingual"]) == 0
    assert "強い語だ⟦括弧⟧\n" in capsys.readouterr().out


def test_codes_that_no_longer_match_the_source_block_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A source_ref whose codes are not the kept original's (edited, or another edition put in source.epub): the
    export refuses in one sentence rather than put elements in the wrong places, and writes nothing."""
    ws = _imported(tmp_path, KINDS["emphasis"][0])
    _translate(ws)
    path = ws / "ch001.json"
    data = json.loads(path.read_text())
    del data["paragraphs"][0]["source_ref"]["codes"]["4"]
    path.write_text(json.dumps(data, ensure_ascii=False))
    pid = data["paragraphs"][0]["id"]
    capsys.readouterr()
    assert main(["export", str(ws), "--epub", str(tmp_path / "x.epub")]) == 2
    err = capsys.readouterr().err
    assert (
        f"ch001 paragraph {pid}: its source_ref records 3 inline codes, but its block in the source EPUB holds 4" in err
    )
    assert not (tmp_path / "x.epub").exists()
