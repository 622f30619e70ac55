"""The translated edition's titles: a nav or NCX label, or a document's ``<title>``, equal to a heading of its
document takes that heading's translation (design section 21); else one equal to the chapter's title takes the
chapter's ``title_translation``. Equal means the same words: whitespace of any kind is compared loosely, so
titles imported before U+3000 was kept exactly still match.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from lxml import etree

from store.books.ascii_space import collapse_ascii_space
from store.books.code_text import unescape
from store.books.epub_blocks import local
from store.model import Chapter, Paragraph

HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_READINGS = frozenset({"rt", "rp"})


def _words(text: str) -> str:
    return " ".join(text.split())


def plain_text(el: etree._Element) -> str:
    """The words of ``el``, ruby readings left out, whitespace as single spaces (for comparing)."""
    parts: list[str] = []

    def walk(node: etree._Element) -> None:
        if local(node) in _READINGS:
            return
        parts.append(node.text or "")
        for child in node:
            if isinstance(child.tag, str):
                walk(child)
            parts.append(child.tail or "")

    walk(el)
    return _words("".join(parts))


def label_text(translation: str) -> str:
    """A translation as a one-line title: inline codes dropped and doubled brackets read as one (``code_text``),
    ASCII whitespace (line breaks too) collapsed."""
    return collapse_ascii_space(unescape(translation))


@dataclass
class DocTitles:
    """What a document's titles become: its headings' translations, and the chapter's title translation."""

    headings: dict[str, str] = field(default_factory=dict)  # heading words -> translated title
    title: str = ""
    title_translation: str | None = None

    def label(self, text: str) -> str | None:
        """The translation of a label or title reading ``text``, or None to leave it."""
        words = _words(text)
        found = self.headings.get(words)
        if found is None and self.title_translation and words == self.title:
            return self.title_translation
        return found


def doc_titles(
    chapter: Chapter, targets: Iterable[tuple[Paragraph, etree._Element]], clean: Callable[[str], str]
) -> DocTitles:
    """The titles of the chapter's document, read before its blocks are rewritten; ``clean`` makes text fit XML."""
    translated = chapter.title_translation
    titles = DocTitles(title=_words(chapter.title or ""))
    titles.title_translation = clean(label_text(translated)) if translated else None
    for para, el in _translated_headings(targets):
        titles.headings.setdefault(plain_text(el), clean(label_text(para.selected_text or "")))
    return titles


def _translated_headings(
    targets: Iterable[tuple[Paragraph, etree._Element]],
) -> Iterator[tuple[Paragraph, etree._Element]]:
    return ((para, el) for para, el in targets if para.selected_text and local(el) in HEADINGS)


def retitle_document(root: etree._Element, titles: DocTitles) -> None:
    """The document's ``<title>`` (in its head) translated when it reads as a heading or the chapter title."""
    title = _head_title(root)
    new = titles.label(plain_text(title)) if title is not None else None
    if title is not None and new is not None:
        title[:] = []
        title.text = new


def _head_title(root: etree._Element) -> etree._Element | None:
    return root.find("{*}head/{*}title")
