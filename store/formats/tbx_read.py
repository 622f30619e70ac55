"""``proofdesk glossary import FILE.tbx``: the terms of a TBX file, read the hardened way (design section 18).

TBX 2019 (``tbx/text/body/conceptEntry/langSec/termSec/term``, DCA style) and TBX 2008 (``martif/text/body/termEntry/
langSet/tig/term``, ``ntig/termGrp/term`` too). The source term is the first term of the language section in the
workspace's source language (the same tag, else the same primary subtag; without a workspace language, the first
section), the target the first of the target language's (else the first other section); the other terms of each are
aliases. A concept-level ``<note>`` (else a ``definition``) is the note. A plain ``<!DOCTYPE martif SYSTEM ...>`` is
allowed (never loaded); a DTD subset or an entity declaration is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from store.formats.exchange_input import ExchangeError, parse_exchange_xml
from store.formats.xliff_read import text_of

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_ENTRIES = ("conceptEntry", "termEntry")
_SECTIONS = ("langSec", "langSet")


@dataclass(frozen=True)
class TbxTerm:
    """One concept as a glossary row: source, target ("" when the file has none), note, and the other terms."""

    source: str
    target: str
    note: str
    aliases: tuple[str, ...]
    target_aliases: tuple[str, ...]


def read_tbx(path: Path, source_language: str | None, target_language: str | None) -> list[TbxTerm]:
    """The concepts of the TBX file at ``path`` that have a source term; ExchangeError in one sentence."""
    root = parse_exchange_xml(path, "the TBX", named_dtd_ok=True)
    if etree.QName(root).localname not in ("tbx", "martif"):
        raise ExchangeError(f"{path}: not a TBX file (its root element is <{etree.QName(root).localname}>)")
    concepts = (e for e in root.iter() if _local(e) in _ENTRIES)
    return [term for concept in concepts if (term := _term(concept, source_language, target_language))]


def _term(concept: etree._Element, source_language: str | None, target_language: str | None) -> TbxTerm | None:
    sections = [(_lang(s), _terms(s)) for s in concept if _local(s) in _SECTIONS]
    sections = [(lang, terms) for lang, terms in sections if terms]
    source = _pick(sections, source_language)
    if source is None:
        return None
    others = [section for section in sections if section is not source]
    target = _pick(others, target_language) if target_language else next(iter(others), None)
    target_terms = target[1] if target is not None else []
    return TbxTerm(
        source[1][0],
        target_terms[0] if target_terms else "",
        _note(concept),
        tuple(source[1][1:]),
        tuple(target_terms[1:]),
    )


def _pick(sections: list[tuple[str, list[str]]], language: str | None) -> tuple[str, list[str]] | None:
    """The section of ``language``: the same tag, else the same primary subtag; the first when no language is known."""
    if not language:
        return next(iter(sections), None)
    wanted = language.strip().lower()
    same = next((s for s in sections if s[0] == wanted), None)
    return same or next((s for s in sections if s[0].split("-")[0] == wanted.split("-")[0]), None)


def _lang(section: etree._Element) -> str:
    return (section.get(XML_LANG) or section.get("lang") or "").strip().lower()


def _terms(section: etree._Element) -> list[str]:
    return [text.strip() for term in section.iter("{*}term") if (text := text_of(term)).strip()]


def _note(concept: etree._Element) -> str:
    notes = [text_of(child).strip() for child in concept if _local(child) == "note"]
    if not notes:
        notes = [text_of(d).strip() for d in concept.iter("{*}descrip") if d.get("type") == "definition"]
    return " ".join(note for note in notes if note)


def _local(element: etree._Element) -> str:
    return etree.QName(element).localname if isinstance(element.tag, str) else ""
