"""The language of a translated edition's documents: ``lang`` and ``xml:lang`` (design section 21).

The translated book says the target language on every XHTML document's root and on the package; the bilingual
book keeps its documents in the original language and marks each inserted translation.
"""

from __future__ import annotations

from lxml import etree

from store.books.epub_blocks import TRANSLATION_CLASS

XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def set_lang(el: etree._Element, lang: str) -> None:
    """``lang`` and ``xml:lang`` of ``el`` set to ``lang`` (an XHTML element: both attributes)."""
    el.set("lang", lang)
    el.set(XML_LANG, lang)


def mark_translations(root: etree._Element, lang: str | None) -> None:
    """Every inserted translation of the document (class ``proofdesk-translation``) in ``lang`` (None: the
    chapters name no target language, so nothing is said)."""
    if lang:
        for el in root.iter():
            if isinstance(el.tag, str) and TRANSLATION_CLASS in el.get("class", "").split():
                set_lang(el, lang)
