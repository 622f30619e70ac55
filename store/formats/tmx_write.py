"""``proofdesk export --format tmx``: the reviewed pairs of chapters as TMX 1.4 (design section 18), the memory a CAT
tool (or another workspace's ``memory/`` folder, read by :mod:`store.tmx`) takes in."""

from __future__ import annotations

from collections.abc import Sequence

from lxml import etree

from store.formats.xliff2_write import UNKNOWN_LANGUAGE, first_given
from store.formats.xml_chars import xml_safe
from store.model import Chapter, Paragraph

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def tmx_bytes(chapters: Sequence[Chapter]) -> bytes:
    """A TMX 1.4 document with one ``<tu>`` per reviewed, translated, non-empty paragraph of ``chapters``."""
    root = etree.Element("tmx", version="1.4")
    etree.SubElement(root, "header", attrib=_header(chapters))
    body = etree.SubElement(root, "body")
    for chapter in chapters:
        for para in chapter.paragraphs:
            if _reviewed_pair(para):
                _unit(body, chapter, para)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def _header(chapters: Sequence[Chapter]) -> dict[str, str]:
    source = first_given(c.source_language for c in chapters)
    return {
        "creationtool": "proofdesk",
        "creationtoolversion": "1",
        "datatype": "plaintext",
        "segtype": "paragraph",
        "adminlang": "en",
        "srclang": source or UNKNOWN_LANGUAGE,
        "o-tmf": "proofdesk",
    }


def _reviewed_pair(para: Paragraph) -> bool:
    return para.reviewed and not para.is_empty and bool(para.selected_text)


def _unit(body: etree._Element, chapter: Chapter, para: Paragraph) -> None:
    tu = etree.SubElement(body, "tu", tuid=xml_safe(para.id))
    for language, text in (
        (chapter.source_language or UNKNOWN_LANGUAGE, para.text),
        (chapter.target_language or UNKNOWN_LANGUAGE, para.selected_text or ""),
    ):
        tuv = etree.SubElement(tu, "tuv", attrib={XML_LANG: language})
        etree.SubElement(tuv, "seg").text = xml_safe(text)
