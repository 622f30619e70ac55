"""Reading TMX 1.4 files (translation memory exchange) as (source, target) pairs, with a hardened parser.

A TMX file may come from anywhere, so it is parsed the way an untrusted EPUB is (``store.books.epub_safety``: no
entity resolution, no network, no DTD loading), and refused before parsing when it is over ``MAX_TMX_BYTES``,
declares an entity, or carries a DOCTYPE with an internal subset (where entities would be declared). A plain
``<!DOCTYPE tmx SYSTEM "tmx14.dtd">``, which OmegaT and Trados write, is allowed: the DTD is never loaded.
"""

from __future__ import annotations

import re
from pathlib import Path

from lxml import etree

from store.books.epub_safety import BookError, parse_xml
from store.errors import StoreError

MAX_TMX_BYTES = 256 * 1024 * 1024
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_INTERNAL_SUBSET = re.compile(rb"<!DOCTYPE[^>\[]*\[", re.IGNORECASE)
_CODES = frozenset({"bpt", "ept", "it", "ph", "ut"})  # inline codes: their content is markup, not text


class TmxError(StoreError):
    """A TMX file that cannot be read or is refused: one sentence naming the file."""


def read_tmx(path: Path, source_language: str, target_language: str) -> list[tuple[str, str]]:
    """The (source, target) segment pairs of the TMX file at ``path`` for the two languages (tags matched
    case-insensitively, else by primary subtag: ``ja`` takes ``ja-JP``); units without both are skipped."""
    try:
        size = path.stat().st_size
        if size > MAX_TMX_BYTES:
            raise TmxError(f"{path}: {size} bytes is more than a TMX file may have ({MAX_TMX_BYTES}); refused")
        data = path.read_bytes()
    except OSError as exc:
        raise TmxError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    if _INTERNAL_SUBSET.search(data) or re.search(rb"<!ENTITY", data, re.IGNORECASE):
        raise TmxError(f"{path}: declares a DTD subset or XML entities (refused: they could expand or reach out)")
    try:
        root = parse_xml(data, path, "the TMX")
    except BookError as exc:
        raise TmxError(str(exc)) from None
    if etree.QName(root).localname != "tmx":
        raise TmxError(f"{path}: not a TMX file (its root element is <{etree.QName(root).localname}>)")
    return [pair for tu in root.iter("{*}tu") if (pair := _pair(tu, source_language, target_language))]


def _pair(tu: etree._Element, source_language: str, target_language: str) -> tuple[str, str] | None:
    segments = {_language(tuv): _text(tuv) for tuv in tu.iter("{*}tuv")}
    source, target = _pick(segments, source_language), _pick(segments, target_language)
    if source and target and source.strip() and target.strip():
        return source, target
    return None


def _language(tuv: etree._Element) -> str:
    return (tuv.get(XML_LANG) or tuv.get("lang") or "").strip().lower()  # TMX 1.1 wrote "lang"


def _pick(segments: dict[str, str | None], language: str) -> str | None:
    """The segment of ``language``: the same tag, else the first of the same primary subtag."""
    wanted = language.strip().lower()
    if wanted in segments:
        return segments[wanted]
    primary = wanted.split("-")[0]
    return next((text for tag, text in segments.items() if tag.split("-")[0] == primary), None)


def _text(tuv: etree._Element) -> str | None:
    seg = next(tuv.iter("{*}seg"), None)
    return None if seg is None else "".join(_words(seg))


def _words(element: etree._Element) -> list[str]:
    """The text of a ``seg``: its own text and its children's (``hi``, ``sub``), inline codes left out."""
    parts = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str) and etree.QName(child).localname not in _CODES:
            parts.extend(_words(child))
        parts.append(child.tail or "")
    return parts
