"""The translated edition says what it is (issue 29, item 4; design section 21), read back with lxml.

Language on every document and the package (translated book) or on each inserted translation (bilingual book),
titles from the translated headings, a new identifier (the NCX's ``dtb:uid`` too), ``dcterms:modified`` the export
time (EPUB 3 only); nav/NCX titles imported with U+3000 kept.
"""

from __future__ import annotations

import re
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from lxml import etree

from store.loader import load_chapter
from store.model import TranslationVersion
from store.serialize import chapter_bytes
from tests.store.books.epub_builder import build_epub
from tui.cli import main

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
OPF = "{http://www.idpf.org/2007/opf}"
DC = "{http://purl.org/dc/elements/1.1/}"
NCX = "{http://www.daisy.org/z3986/2005/ncx/}"
OLD_ID = "urn:uuid:12345678-1234-1234-1234-123456789abc"
CH1 = "<h1>第一章　出会い</h1><p>本文</p><h2>二節</h2><p>続き</p>"
COVER = '<div><img src="pic.png" alt=""/></div>'


def _translate(ws: Path) -> None:
    for path in ws.glob("ch*.json"):
        ch = load_chapter(path)
        paras = []
        for p in ch.paragraphs:
            v = TranslationVersion(id="t" + p.id, text="EN " + p.text, origin="translation", created_at="2026-01-01")
            paras.append(p if p.is_empty else p.replace(translations=(v,), selected_translation_id=v.id))
        path.write_bytes(chapter_bytes(ch.replace(paragraphs=tuple(paras))))


def _export(tmp_path: Path, version: int, bilingual: bool) -> dict[str, etree._Element]:
    docs = [("ch1.xhtml", "第一章　出会い", CH1), ("cover.xhtml", "表紙", COVER)]
    book = build_epub(tmp_path / "b.epub", docs, version=version)
    ws = tmp_path / "ws"
    assert main(["import", str(book), "-o", str(ws), "--target-language", "en"]) == 0
    assert load_chapter(ws / "ch001.json").title == "第一章　出会い"  # U+3000 kept, not an ASCII space
    _translate(ws)
    out = tmp_path / "out.epub"
    assert main(["export", str(ws), "--epub", str(out), *(["--bilingual"] if bilingual else [])]) == 0
    with zipfile.ZipFile(out) as zf:
        return {n: etree.fromstring(zf.read(n)) for n in zf.namelist() if n.endswith((".xhtml", ".opf", ".ncx"))}


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("bilingual", [False, True])
def test_package_language_identifier_and_modified(tmp_path: Path, version: int, bilingual: bool) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    parsed = _export(tmp_path, version, bilingual)
    opf, ncx = parsed["OEBPS/content.opf"], parsed["OEBPS/toc.ncx"]
    assert [el.text for el in opf.iter(f"{DC}language")] == ["en"]
    assert opf.get(XML_LANG) == (None if bilingual else "en")
    unique = next(el for el in opf.iter(f"{DC}identifier") if el.get("id") == opf.get("unique-identifier"))
    assert re.fullmatch(r"urn:uuid:[0-9a-f-]{36}", unique.text or "") and unique.text != OLD_ID
    uid = next(m for m in ncx.iter(f"{NCX}meta") if m.get("name") == "dtb:uid")
    assert uid.get("content") == unique.text  # EPUB 2 readers match the NCX to the package by it
    modified = [m.text for m in opf.iter(f"{OPF}meta") if m.get("property") == "dcterms:modified"]
    if version == 3:
        assert len(modified) == 1
        when = datetime.strptime(modified[0] or "", "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        assert before <= when <= datetime.now(UTC)
    else:
        assert modified == []  # EPUB 2 has none


@pytest.mark.parametrize("bilingual", [False, True])
def test_documents_say_their_language(tmp_path: Path, bilingual: bool) -> None:
    parsed = _export(tmp_path, 3, bilingual)
    docs = {n: root for n, root in parsed.items() if n.endswith(".xhtml")}
    assert set(docs) == {"OEBPS/ch1.xhtml", "OEBPS/cover.xhtml", "OEBPS/nav.xhtml"}
    for root in docs.values():
        expected = "ja" if bilingual else "en"
        assert root.get("lang") == expected
        assert root.get(XML_LANG) == (None if bilingual else "en")
    inserted = [el for el in docs["OEBPS/ch1.xhtml"].iter() if "proofdesk-translation" in el.get("class", "")]
    assert len(inserted) == (4 if bilingual else 0)
    assert all(el.get("lang") == "en" and el.get(XML_LANG) == "en" for el in inserted)


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("bilingual", [False, True])
def test_titles_take_their_headings_translation(tmp_path: Path, version: int, bilingual: bool) -> None:
    parsed = _export(tmp_path, version, bilingual)
    translated = "EN 第一章　出会い"
    labels = [el.text for el in parsed["OEBPS/toc.ncx"].iter(f"{NCX}text")]
    assert labels == ["本", translated, "表紙"]  # the book's title and a label no heading reads stay
    if version == 3:
        nav = [("".join(a.itertext())) for a in parsed["OEBPS/nav.xhtml"].iter("{*}a")]
        assert nav == [translated, "表紙"]
    title = next(parsed["OEBPS/ch1.xhtml"].iter("{*}title")).text
    assert title == ("第一章　出会い" if bilingual else translated)


def test_nav_label_of_a_section_takes_its_headings_translation(tmp_path: Path) -> None:
    from tests.store.books.epub_builder import xhtml

    links = [
        ("ch1.xhtml", "第一章　出会い"),
        ("ch1.xhtml#s", " 二節\n "),
        ("ch1.xhtml#x", "ほか"),
        ("cover.xhtml", "表紙"),
    ]
    nav = xhtml("目次", '<nav epub:type="toc"><ol>' + "".join(f'<li><a href="{h}">{t}</a></li>' for h, t in links))
    book = build_epub(
        tmp_path / "b.epub",
        [("ch1.xhtml", "第一章　出会い", CH1), ("cover.xhtml", "表紙", COVER)],
        extra={"OEBPS/nav.xhtml": (nav.replace("</body>", "</ol></nav></body>")).encode()},
    )
    ws = tmp_path / "ws"
    assert main(["import", str(book), "-o", str(ws), "--target-language", "en"]) == 0
    _translate(ws)
    out = tmp_path / "out.epub"
    assert main(["export", str(ws), "--epub", str(out)]) == 0
    with zipfile.ZipFile(out) as zf:
        nav_root = etree.fromstring(zf.read("OEBPS/nav.xhtml"))
    labels = ["".join(a.itertext()) for a in nav_root.iter("{*}a")]
    assert labels == ["EN 第一章　出会い", "EN 二節", "ほか", "表紙"]


@pytest.mark.parametrize("version", [2, 3])
def test_imported_titles_collapse_ascii_whitespace_only(tmp_path: Path, version: int) -> None:
    from store.books.ascii_space import collapse_ascii_space

    assert collapse_ascii_space(" \t第一章\n\n　出会い\u00a0 \r\n") == "第一章 　出会い\u00a0"
    book = build_epub(tmp_path / "b.epub", [("ch1.xhtml", "  第一章\n\t　出会い  ", "<p>本文</p>")], version=version)
    assert main(["import", str(book), "-o", str(tmp_path / "ws")]) == 0
    assert load_chapter(tmp_path / "ws" / "ch001.json").title == "第一章 　出会い"  # the U+3000 is the book's own
