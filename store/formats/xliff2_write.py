"""``proofdesk export --format xliff``: chapters as one XLIFF 2.1 document (design section 18).

One ``<file id>`` per chapter (its ``id``, with ``original`` its file name), one ``<unit id>`` per non-empty paragraph
with one ``<segment state>``: ``initial`` without a translation, ``translated``, ``reviewed`` when reviewed;
``<source>`` and, when a version is selected, ``<target>``; one ``<note category="suggestion" appliesTo="target">``
per pending suggestion (its text, `` — ``, its reason). IDs go through :mod:`store.formats.unit_ids`; a character XML
cannot hold is written as ``<cp hex>``, which the importer reads back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from lxml import etree

from store.formats.unit_ids import encode_id
from store.formats.xml_chars import NOT_XML
from store.model import Chapter, Paragraph, TranslationVersion

XLIFF2_NS = "urn:oasis:names:tc:xliff:document:2.0"
_NSMAP: Any = {None: XLIFF2_NS}  # the default namespace (lxml-stubs types the key as str)
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
UNKNOWN_LANGUAGE = "und"  # BCP 47 "undetermined": srcLang is required


def xliff2_bytes(chapters: Sequence[tuple[str, Chapter]]) -> bytes:
    """The XLIFF 2.1 document of ``chapters`` (file name, chapter) in order, UTF-8 with a declaration."""
    languages = _languages([chapter for _, chapter in chapters])
    root = etree.Element(f"{{{XLIFF2_NS}}}xliff", nsmap=_NSMAP, version="2.1", srcLang=languages[0])
    if languages[1] is not None:
        root.set("trgLang", languages[1])
    root.set(XML_SPACE, "preserve")  # a paragraph's spaces and line breaks are part of it
    for name, chapter in chapters:
        _file(root, name, chapter)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def _languages(chapters: Sequence[Chapter]) -> tuple[str, str | None]:
    source = first_given(c.source_language for c in chapters)
    return source or UNKNOWN_LANGUAGE, first_given(c.target_language for c in chapters)


def first_given(values: Iterable[str | None]) -> str | None:
    """The first value that is set (the chapters of a workspace normally share their languages)."""
    return next(filter(None, values), None)


def _file(root: etree._Element, name: str, chapter: Chapter) -> None:
    units = [para for para in chapter.paragraphs if not para.is_empty]
    if not units:
        return  # the schema wants at least one unit in a file: a chapter with no text has nothing to translate
    file = etree.SubElement(root, f"{{{XLIFF2_NS}}}file", id=encode_id(chapter.id), original=name)
    for para in units:
        _unit(file, para)


def _unit(file: etree._Element, para: Paragraph) -> None:
    unit = etree.SubElement(file, f"{{{XLIFF2_NS}}}unit", id=encode_id(para.id))
    if para.pending:
        notes = etree.SubElement(unit, f"{{{XLIFF2_NS}}}notes")
        for version in para.pending:
            note = etree.SubElement(notes, f"{{{XLIFF2_NS}}}note", category="suggestion", appliesTo="target")
            fill(note, suggestion_note(version))
    segment = etree.SubElement(unit, f"{{{XLIFF2_NS}}}segment", state=_state(para))
    fill(etree.SubElement(segment, f"{{{XLIFF2_NS}}}source"), para.text)
    if para.selected_text is not None:
        fill(etree.SubElement(segment, f"{{{XLIFF2_NS}}}target"), para.selected_text)


def suggestion_note(version: TranslationVersion) -> str:
    """A pending suggestion as a note: its text, then `` — `` and its reason when it has one."""
    return f"{version.text} — {version.reason}" if version.reason else version.text


def _state(para: Paragraph) -> str:
    if para.selected_text is None:
        return "initial"
    return "reviewed" if para.reviewed else "translated"


def fill(element: etree._Element, text: str) -> None:
    """Set ``text`` as the element's content; each character XML cannot hold becomes a ``<cp hex>`` child."""
    pieces = NOT_XML.split(text)
    element.text = pieces[0]
    for char, piece in zip(NOT_XML.findall(text), pieces[1:], strict=True):
        cp = etree.SubElement(element, f"{{{XLIFF2_NS}}}cp", hex=f"{ord(char):04X}")
        cp.tail = piece
