"""Reading an exchange file someone else wrote (XLIFF, PO, TBX): bounded, and for XML hardened before parsing.

The bytes are read through :func:`store.input_limits.read_input` (256 MiB at most). An XML file with a DOCTYPE or an
entity declaration is refused before it is parsed (design section 18: they are how entities expand — billion laughs
— or reach out — external entities); the text is decoded first, so a UTF-16 file cannot hide one. Only TBX 2008, whose
files routinely name their DTD (``<!DOCTYPE martif SYSTEM "TBXcoreStructV02.dtd">``), may keep a DOCTYPE without an
internal subset, as :mod:`store.tmx` allows; it is never loaded. Parsing is
:func:`store.books.epub_safety.parse_xml` (no entity resolution, no network, no DTD, no huge trees).
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from lxml import etree

from store.books.epub_safety import BookError, parse_xml
from store.errors import StoreError
from store.input_limits import read_input

_DOCTYPE = re.compile(r"<!DOCTYPE", re.IGNORECASE)
_ENTITY = re.compile(r"<!ENTITY", re.IGNORECASE)
_INTERNAL_SUBSET = re.compile(r"<!DOCTYPE[^>\[]*\[", re.IGNORECASE)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


class ExchangeError(StoreError):
    """An exchange file that cannot be read or is refused: one sentence naming the file; nothing was written."""


def read_exchange_text(path: Path) -> tuple[bytes, str]:
    """The bytes of ``path`` (bounded) and their text (by a BOM, else UTF-8)."""
    try:
        data = read_input(path)
    except StoreError as exc:
        raise ExchangeError(str(exc)) from None
    encoding = next((name for bom, name in _BOMS if data.startswith(bom)), "utf-8")
    try:
        return data, data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise ExchangeError(f"{path}: not {encoding.upper()} text (byte {exc.start}); refused") from None


def refuse_declarations(text: str, path: Path, *, named_dtd_ok: bool = False) -> None:
    """Refuse an entity declaration, and a DOCTYPE (unless ``named_dtd_ok`` and it has no internal subset)."""
    if _ENTITY.search(text):
        raise ExchangeError(f"{path}: declares XML entities (refused: they could expand or reach out); nothing read")
    doctype = _INTERNAL_SUBSET.search(text) if named_dtd_ok else _DOCTYPE.search(text)
    if doctype:
        raise ExchangeError(f"{path}: carries a DOCTYPE (refused: a DTD could expand or reach out); nothing read")


def parse_exchange_xml(path: Path, what: str, *, named_dtd_ok: bool = False) -> etree._Element:
    """The root element of the XML file ``path`` (``what`` names its kind in errors), read the hardened way."""
    data, text = read_exchange_text(path)
    refuse_declarations(text, path, named_dtd_ok=named_dtd_ok)
    try:
        return parse_xml(data, path, what)
    except BookError as exc:
        raise ExchangeError(str(exc)) from None
