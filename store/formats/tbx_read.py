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


Section = tuple[str, list[str]]  # a language section: its tag (lower case) and its terms in order


def _term(concept: etree._Element, source_language: str | None, target_language: str | None) -> TbxTerm | None:
    sections = _sections(concept)
    source = _pick(sections, source_language)
    if source is None:
        return None
    target = _pick([section for section in sections if section is not source], target_language)
    targets = [] if target is None else target[1]
    return TbxTerm(source[1][0], "".join(targets[:1]), _note(concept), tuple(source[1][1:]), tuple(targets[1:]))


def _sections(concept: etree._Element) -> list[Section]:
    """The concept's language sections that hold a term."""
    found = [(_lang(s), _terms(s)) for s in concept if _local(s) in _SECTIONS]
    return [section for section in found if section[1]]


def _pick(sections: list[Section], language: str | None) -> Section | None:
    """The section of ``language``: the same tag, else the same primary subtag; the first when no language is known."""
    if not language:
        return next(iter(sections), None)
    wanted = language.strip().lower()
    exact_first = sorted(sections, key=lambda section: section[0] != wanted)  # stable: the file's order otherwise
    return next((s for s in exact_first if _primary(s[0]) == _primary(wanted)), None)


def _primary(tag: str) -> str:
    return tag.split("-")[0]


def _lang(section: etree._Element) -> str:
    return (section.get(XML_LANG) or section.get("lang") or "").strip().lower()


def _terms(section: etree._Element) -> list[str]:
    return [text.strip() for term in section.iter("{*}term") if (text := text_of(term)).strip()]


def _note(concept: etree._Element) -> str:
    """The concept-level notes, else its definitions, as one line."""
    return " ".join(" ".join(_notes(concept) or _definitions(concept)).split())


def _notes(concept: etree._Element) -> list[str]:
    return [text_of(child) for child in concept if _local(child) == "note"]


def _definitions(concept: etree._Element) -> list[str]:
    return [text_of(d) for d in concept.iter("{*}descrip") if d.get("type") == "definition"]


def _local(element: etree._Element) -> str:
    return etree.QName(element).localname if isinstance(element.tag, str) else ""
