"""The package metadata of a translated edition (design section 21): what the new book says it is.

- ``dc:language``: the target language (both kinds of book); the translated book's ``package`` also carries
  ``xml:lang``.
- ``dc:identifier``: the element the package's ``unique-identifier`` names gets a new ``urn:uuid`` (the edition is
  another book than its original); the NCX's ``dtb:uid`` follows it, as EPUB 2 requires.
- ``dcterms:modified`` (EPUB 3 only): the export's time, ``CCYY-MM-DDThh:mm:ssZ``; added when the package has none.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from lxml import etree

from store.books.edition_lang import XML_LANG
from store.books.epub_read import DC_NS, NCX_NS, OPF_NS


def new_identifier() -> str:
    """A new identifier for the edition."""
    return f"urn:uuid:{uuid.uuid4()}"


def modified_now() -> str:
    """The export time as ``dcterms:modified`` wants it."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def set_language(opf: etree._Element, target: str, *, whole_book: bool) -> None:
    """Every ``dc:language`` the target; ``whole_book`` (the translated book): the package's ``xml:lang`` too."""
    for lang in opf.iter(f"{{{DC_NS}}}language"):
        lang.text = target
    if whole_book:
        opf.set(XML_LANG, target)


def set_identifier(opf: etree._Element, identifier: str) -> bool:
    """The package's unique identifier replaced by ``identifier``; False when the package names none."""
    wanted = opf.get("unique-identifier")
    for el in opf.iter(f"{{{DC_NS}}}identifier"):
        if wanted and el.get("id") == wanted:
            el.text = identifier
            return True
    return False


def _metadata(opf: etree._Element) -> etree._Element | None:
    return next(opf.iter(f"{{{OPF_NS}}}metadata"), None)


def set_modified(opf: etree._Element, when: str) -> None:
    """EPUB 3's ``dcterms:modified`` set to ``when`` (added if missing); nothing for EPUB 2."""
    if not opf.get("version", "").startswith("3"):
        return
    metadata = _metadata(opf)
    for meta in _modified_metas(metadata) if metadata is not None else []:
        meta.text = when


def _modified_metas(metadata: etree._Element) -> list[etree._Element]:
    """The ``dcterms:modified`` metas of ``metadata``; one added when it has none."""
    found = [m for m in metadata.iter(f"{{{OPF_NS}}}meta") if m.get("property") == "dcterms:modified"]
    return found or [etree.SubElement(metadata, f"{{{OPF_NS}}}meta", {"property": "dcterms:modified"})]


def set_ncx_identity(ncx: etree._Element, identifier: str, target: str | None) -> None:
    """The NCX's ``dtb:uid`` the new identifier; its ``xml:lang`` the target when it has one and ``target`` is
    given (the translated book)."""
    for meta in ncx.iter(f"{{{NCX_NS}}}meta"):
        if meta.get("name") == "dtb:uid":
            meta.set("content", identifier)
    if target and ncx.get(XML_LANG) is not None:
        ncx.set(XML_LANG, target)
