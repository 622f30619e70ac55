"""``proofdesk export --format xliff12``: chapters as one XLIFF 1.2 document, for older tools (design section 18).

One ``<file original>`` (the chapter's file name, ``datatype="plaintext"``) per chapter, one ``<trans-unit
id=paragraph_id>`` per non-empty paragraph, ``<target>`` only when a version is selected, ``approved="yes"`` when the
paragraph is reviewed, a pending suggestion as a ``<note annotates="target">``. XLIFF 1.2 has no way to write a
character XML cannot hold: it is written as U+FFFD (that unit's source then no longer matches on import).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lxml import etree

from store.formats.xliff2_write import UNKNOWN_LANGUAGE, XML_SPACE, suggestion_note
from store.formats.xml_chars import xml_safe
from store.model import Chapter, Paragraph

XLIFF12_NS = "urn:oasis:names:tc:xliff:document:1.2"
_NSMAP: Any = {None: XLIFF12_NS}  # the default namespace (lxml-stubs types the key as str)


def xliff12_bytes(chapters: Sequence[tuple[str, Chapter]]) -> bytes:
    """The XLIFF 1.2 document of ``chapters`` (file name, chapter) in order, UTF-8 with a declaration."""
    root = etree.Element(f"{{{XLIFF12_NS}}}xliff", nsmap=_NSMAP, version="1.2")
    for name, chapter in chapters:
        _file(root, name, chapter)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def _file(root: etree._Element, name: str, chapter: Chapter) -> None:
    file = etree.SubElement(
        root,
        f"{{{XLIFF12_NS}}}file",
        original=name,
        datatype="plaintext",
        attrib={"source-language": chapter.source_language or UNKNOWN_LANGUAGE},
    )
    if chapter.target_language:
        file.set("target-language", chapter.target_language)
    body = etree.SubElement(file, f"{{{XLIFF12_NS}}}body")
    for para in chapter.paragraphs:
        if not para.is_empty:
            _unit(body, para)


def _unit(body: etree._Element, para: Paragraph) -> None:
    unit = etree.SubElement(body, f"{{{XLIFF12_NS}}}trans-unit", id=xml_safe(para.id))
    unit.set(XML_SPACE, "preserve")
    if para.reviewed and para.selected_text is not None:
        unit.set("approved", "yes")
    etree.SubElement(unit, f"{{{XLIFF12_NS}}}source").text = xml_safe(para.text)
    if para.selected_text is not None:
        etree.SubElement(unit, f"{{{XLIFF12_NS}}}target").text = xml_safe(para.selected_text)
    for version in para.pending:
        note = etree.SubElement(unit, f"{{{XLIFF12_NS}}}note", annotates="target", attrib={"from": "suggestion"})
        note.text = xml_safe(suggestion_note(version))
