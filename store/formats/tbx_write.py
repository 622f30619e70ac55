"""``proofdesk glossary export --format tbx``: the glossary as TBX-Basic in the TBX 2019 DCA style (design section 18).

``<tbx type="TBX-Basic" style="dca" xmlns="urn:iso:std:iso:30042:ed-2">``; one ``conceptEntry`` per entry with a
``langSec xml:lang`` for each language, a ``termSec``/``term`` for the source (then one per alias) and for the target
(then one per target alias); the entry's note is a concept-level ``<note>``. The glossary has no languages of its own:
they are the workspace's (``und`` when no chapter says).
"""

from __future__ import annotations

from typing import Any

from lxml import etree

from store.formats.xml_chars import xml_safe
from store.glossary import Glossary, GlossaryEntry

TBX_NS = "urn:iso:std:iso:30042:ed-2"
_NSMAP: Any = {None: TBX_NS}  # the default namespace (lxml-stubs types the key as str)
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def tbx_bytes(glossary: Glossary, source_language: str | None, target_language: str | None) -> bytes:
    """The TBX-Basic (2019, DCA) document of ``glossary``'s entries in order."""
    languages = (source_language or "und", target_language or "und")
    root = etree.Element(f"{{{TBX_NS}}}tbx", nsmap=_NSMAP, type="TBX-Basic", style="dca")
    root.set(XML_LANG, "en")  # the language of the file's own words (its header)
    header = etree.SubElement(root, f"{{{TBX_NS}}}tbxHeader")
    source_desc = etree.SubElement(etree.SubElement(header, f"{{{TBX_NS}}}fileDesc"), f"{{{TBX_NS}}}sourceDesc")
    etree.SubElement(source_desc, f"{{{TBX_NS}}}p").text = "proofdesk glossary"
    body = etree.SubElement(etree.SubElement(root, f"{{{TBX_NS}}}text"), f"{{{TBX_NS}}}body")
    for number, entry in enumerate(glossary.entries, start=1):
        _concept(body, f"c{number}", entry, languages)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def _concept(body: etree._Element, concept_id: str, entry: GlossaryEntry, languages: tuple[str, str]) -> None:
    concept = etree.SubElement(body, f"{{{TBX_NS}}}conceptEntry", id=concept_id)
    if entry.note.strip():
        etree.SubElement(concept, f"{{{TBX_NS}}}note").text = xml_safe(entry.note)
    _language(concept, languages[0], [entry.source, *entry.aliases])
    _language(concept, languages[1], [entry.target, *entry.target_aliases])


def _language(concept: etree._Element, language: str, terms: list[str]) -> None:
    terms = [term for term in terms if term.strip()]
    if not terms:
        return  # a proposed entry without a target yet: the concept has its source only
    section = etree.SubElement(concept, f"{{{TBX_NS}}}langSec", attrib={XML_LANG: language})
    for term in terms:
        etree.SubElement(etree.SubElement(section, f"{{{TBX_NS}}}termSec"), f"{{{TBX_NS}}}term").text = xml_safe(term)
