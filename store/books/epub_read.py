"""Reading an EPUB 2/3: container, package (OPF), spine, titles from nav/NCX, and each document's blocks."""

from __future__ import annotations

import posixpath
import zipfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard
from urllib.parse import unquote

from lxml import etree

from store.books.ascii_space import collapse_ascii_space
from store.books.block_walk import document_blocks
from store.books.epub_blocks import Block, block_text, local
from store.books.epub_safety import BookError, check_not_encrypted, open_epub, parse_xml, read_member

OPF_NS = "http://www.idpf.org/2007/opf"
DC_NS = "http://purl.org/dc/elements/1.1/"
NCX_NS = "http://www.daisy.org/z3986/2005/ncx/"
_XHTML_TYPES = frozenset({"application/xhtml+xml", "text/html", "application/x-dtbook+xml"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


@dataclass
class Package:
    """Where the package is and what it lists."""

    opf_path: str
    opf: etree._Element
    manifest: dict[str, tuple[str, str, str]]  # id -> (zip path, media type, properties)
    spine: list[str]  # zip paths in reading order
    nav_path: str | None
    ncx_path: str | None
    language: str | None
    other_spine: list[str] = field(default_factory=list)  # media types of spine items that are not (X)HTML


@dataclass
class SpineDoc:
    """One spine document with text: its zip path, href relative to the OPF, title and blocks."""

    path: str
    href: str
    title: str | None
    blocks: list[Block] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)  # kind -> text-holding elements left as they are


def resolve(base: str, href: str) -> str:
    """The zip path of ``href`` (fragment dropped, percent-decoded) relative to the file ``base``."""
    href = unquote(href.split("#", 1)[0])
    return posixpath.normpath(posixpath.join(posixpath.dirname(base), href))


def read_package(zf: zipfile.ZipFile, book: Path) -> Package:
    """Find and read the OPF named by ``META-INF/container.xml``."""
    opf_path = _package_path(zf, book)
    opf = parse_xml(read_member(zf, book, opf_path), book, opf_path)
    manifest = {
        item.get("id", ""): (
            resolve(opf_path, item.get("href", "")),
            item.get("media-type", ""),
            item.get("properties", ""),
        )
        for item in opf.iter(f"{{{OPF_NS}}}item")
    }
    spine_el = next(opf.iter(f"{{{OPF_NS}}}spine"), None)
    if spine_el is None:
        raise BookError(f"{book}: {opf_path} has no spine")
    spine = _spine(spine_el, manifest, f"{book}: {opf_path}")
    nav, ncx = _nav_path(opf, opf_path), _ncx_path(spine_el, manifest)
    return Package(opf_path, opf, manifest, spine, nav, ncx, _language(opf), _other_spine(spine_el, manifest))


def _other_spine(spine_el: etree._Element, manifest: dict[str, tuple[str, str, str]]) -> list[str]:
    """The media types of the spine's items that are not (X)HTML documents (an SVG page), in reading order."""
    entries = (manifest.get(ref.get("idref", "")) for ref in spine_el.iter(f"{{{OPF_NS}}}itemref"))
    return [entry[1] for entry in entries if entry is not None and entry[1] not in _XHTML_TYPES]


def _package_path(zf: zipfile.ZipFile, book: Path) -> str:
    """The OPF's zip path, from ``META-INF/container.xml``."""
    if "META-INF/container.xml" not in zf.namelist():
        raise BookError(f"{book}: META-INF/container.xml is missing (not an EPUB)")
    container = parse_xml(read_member(zf, book, "META-INF/container.xml"), book, "META-INF/container.xml")
    rootfile = next((el for el in container.iter() if local(el) == "rootfile"), None)
    opf_path = rootfile.get("full-path", "") if rootfile is not None else ""
    if not opf_path:
        raise BookError(f"{book}: META-INF/container.xml names no package (rootfile full-path)")
    return opf_path


def _spine(spine_el: etree._Element, manifest: dict[str, tuple[str, str, str]], where: str) -> list[str]:
    """The zip paths of the spine's (X)HTML documents, in reading order."""
    spine = []
    for ref in spine_el.iter(f"{{{OPF_NS}}}itemref"):
        entry = manifest.get(ref.get("idref", ""))
        if entry is None:
            raise BookError(f"{where}: spine item {ref.get('idref')!r} is not in the manifest")
        if entry[1] in _XHTML_TYPES:
            spine.append(entry[0])
    return spine


def _nav_path(opf: etree._Element, opf_path: str) -> str | None:
    """The zip path of the EPUB 3 nav document (the last manifest item with the ``nav`` property)."""
    navs = [item for item in opf.iter(f"{{{OPF_NS}}}item") if "nav" in item.get("properties", "").split()]
    return resolve(opf_path, navs[-1].get("href", "")) if navs else None


def _ncx_path(spine_el: etree._Element, manifest: dict[str, tuple[str, str, str]]) -> str | None:
    """The zip path of the EPUB 2 NCX: the spine's ``toc``, else the first item of the NCX media type."""
    named = manifest.get(spine_el.get("toc", ""))
    if named:
        return named[0]
    return next((p for p, t, _ in manifest.values() if t == "application/x-dtbncx+xml"), None)


def _language(opf: etree._Element) -> str | None:
    lang_el = next(opf.iter(f"{{{DC_NS}}}language"), None)
    return (lang_el.text or "").strip() or None if lang_el is not None else None


def nav_links(nav: etree._Element, nav_path: str) -> Iterator[tuple[etree._Element, str]]:
    """Each link of a nav document with the zip path it points at."""
    for a in nav.iter():
        if local(a) == "a" and a.get("href"):
            yield a, resolve(nav_path, a.get("href", ""))


def ncx_labels(ncx: etree._Element, ncx_path: str) -> Iterator[tuple[etree._Element, str]]:
    """Each navPoint's label text element with the zip path its content points at."""
    for point in ncx.iter(f"{{{NCX_NS}}}navPoint"):
        label = next(point.iter(f"{{{NCX_NS}}}text"), None)
        content = next(point.iter(f"{{{NCX_NS}}}content"), None)
        if label is not None and content is not None and content.get("src"):
            yield label, resolve(ncx_path, content.get("src", ""))


def _has(path: str | None, zf: zipfile.ZipFile) -> TypeGuard[str]:
    """Whether ``path`` names a member of the zip."""
    return bool(path) and path in zf.namelist()


def toc_titles(zf: zipfile.ZipFile, book: Path, pkg: Package) -> dict[str, str]:
    """Document zip path -> title from the EPUB 3 nav (toc) or else the EPUB 2 NCX; the first entry wins."""
    return _nav_titles(zf, book, pkg.nav_path) or _ncx_titles(zf, book, pkg.ncx_path)


def _nav_titles(zf: zipfile.ZipFile, book: Path, nav_path: str | None) -> dict[str, str]:
    titles: dict[str, str] = {}
    if _has(nav_path, zf):
        for a, path in nav_links(parse_xml(read_member(zf, book, nav_path), book, nav_path), nav_path):
            titles.setdefault(path, collapse_ascii_space(block_text(a)))
    return titles


def _ncx_titles(zf: zipfile.ZipFile, book: Path, ncx_path: str | None) -> dict[str, str]:
    titles: dict[str, str] = {}
    if _has(ncx_path, zf):
        for label, path in ncx_labels(parse_xml(read_member(zf, book, ncx_path), book, ncx_path), ncx_path):
            titles.setdefault(path, collapse_ascii_space(label.text or ""))
    return titles


def _heading(root: etree._Element) -> str | None:
    """The text of the document's first heading, or None."""
    heading = next((el for el in root.iter() if local(el) in _HEADINGS), None)
    return collapse_ascii_space(block_text(heading)) if heading is not None else None


@dataclass
class BookRead:
    """A book as read: its package, the spine documents that hold text, and what holds text but is left as it is
    (kind -> count: a document's scripts and formulas, the table of contents, an SVG page of the spine)."""

    pkg: Package
    docs: list[SpineDoc]
    skipped: Counter[str]


def read_book(book: Path) -> BookRead:
    """Every spine document that holds text, in reading order, with its title and blocks."""
    with open_epub(book) as zf:
        check_not_encrypted(zf, book)
        pkg = read_package(zf, book)
        titles = toc_titles(zf, book, pkg)
        # The table of contents is rebuilt from chapter titles, not translated as a chapter.
        read = [_spine_doc(zf, book, pkg, path, titles) for path in pkg.spine if path != pkg.nav_path]
    return BookRead(pkg, [doc for doc in read if _has_text(doc)], _left_as_is(pkg, read))


def _has_text(doc: SpineDoc) -> bool:
    return _has_text_blocks(doc.blocks)


def _left_as_is(pkg: Package, read: list[SpineDoc]) -> Counter[str]:
    left: Counter[str] = Counter()
    for doc in read:
        left.update(doc.skipped)
    left.update(f"a spine document of type {media_type}" for media_type in pkg.other_spine)
    if pkg.nav_path in pkg.spine:
        left["the table of contents (its labels follow the chapter titles)"] += 1
    return left


def _spine_doc(zf: zipfile.ZipFile, book: Path, pkg: Package, path: str, titles: dict[str, str]) -> SpineDoc:
    """The spine document at ``path`` with its title and blocks (perhaps none with text)."""
    root = parse_xml(read_member(zf, book, path), book, path)
    found = document_blocks(root)
    href = posixpath.relpath(path, posixpath.dirname(pkg.opf_path))
    title = titles.get(path) or _heading(root) or None if _has_text_blocks(found.blocks) else None
    return SpineDoc(path, href, title, found.blocks, found.skipped)


def _has_text_blocks(blocks: list[Block]) -> bool:
    return any(block.text.strip() for block in blocks)
