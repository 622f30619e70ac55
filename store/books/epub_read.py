"""Reading an EPUB 2/3: container, package (OPF), spine, titles from nav/NCX, and each document's blocks."""

from __future__ import annotations

import posixpath
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from lxml import etree

from store.books.epub_blocks import Block, block_text, blocks, local
from store.books.epub_safety import BookError, check_not_encrypted, open_epub, parse_xml, read_member

OPF_NS = "http://www.idpf.org/2007/opf"
DC_NS = "http://purl.org/dc/elements/1.1/"
NCX_NS = "http://www.daisy.org/z3986/2005/ncx/"
_XHTML_TYPES = frozenset({"application/xhtml+xml", "text/html", "application/x-dtbook+xml"})


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


@dataclass
class SpineDoc:
    """One spine document with text: its zip path, href relative to the OPF, title and blocks."""

    path: str
    href: str
    title: str | None
    blocks: list[Block] = field(default_factory=list)


def resolve(base: str, href: str) -> str:
    """The zip path of ``href`` (fragment dropped, percent-decoded) relative to the file ``base``."""
    href = unquote(href.split("#", 1)[0])
    return posixpath.normpath(posixpath.join(posixpath.dirname(base), href))


def read_package(zf: zipfile.ZipFile, book: Path) -> Package:
    """Find and read the OPF named by ``META-INF/container.xml``."""
    if "META-INF/container.xml" not in zf.namelist():
        raise BookError(f"{book}: META-INF/container.xml is missing (not an EPUB)")
    container = parse_xml(read_member(zf, book, "META-INF/container.xml"), book, "META-INF/container.xml")
    rootfile = next((el for el in container.iter() if local(el) == "rootfile"), None)
    if rootfile is None or not rootfile.get("full-path"):
        raise BookError(f"{book}: META-INF/container.xml names no package (rootfile full-path)")
    opf_path = rootfile.get("full-path", "")
    opf = parse_xml(read_member(zf, book, opf_path), book, opf_path)
    manifest: dict[str, tuple[str, str, str]] = {}
    nav_path = None
    for item in opf.iter(f"{{{OPF_NS}}}item"):
        path = resolve(opf_path, item.get("href", ""))
        manifest[item.get("id", "")] = (path, item.get("media-type", ""), item.get("properties", ""))
        if "nav" in item.get("properties", "").split():
            nav_path = path
    spine_el = next(opf.iter(f"{{{OPF_NS}}}spine"), None)
    if spine_el is None:
        raise BookError(f"{book}: {opf_path} has no spine")
    spine = []
    for ref in spine_el.iter(f"{{{OPF_NS}}}itemref"):
        entry = manifest.get(ref.get("idref", ""))
        if entry is None:
            raise BookError(f"{book}: {opf_path}: spine item {ref.get('idref')!r} is not in the manifest")
        if entry[1] in _XHTML_TYPES:
            spine.append(entry[0])
    ncx_entry = manifest.get(spine_el.get("toc", ""))
    ncx_path = (
        ncx_entry[0]
        if ncx_entry
        else next((p for p, t, _ in manifest.values() if t == "application/x-dtbncx+xml"), None)
    )
    lang_el = next(opf.iter(f"{{{DC_NS}}}language"), None)
    language = (lang_el.text or "").strip() or None if lang_el is not None else None
    return Package(opf_path, opf, manifest, spine, nav_path, ncx_path, language)


def toc_titles(zf: zipfile.ZipFile, book: Path, pkg: Package) -> dict[str, str]:
    """Document zip path -> title from the EPUB 3 nav (toc) or else the EPUB 2 NCX; the first entry wins."""
    titles: dict[str, str] = {}
    if pkg.nav_path and pkg.nav_path in zf.namelist():
        nav = parse_xml(read_member(zf, book, pkg.nav_path), book, pkg.nav_path)
        for a in nav.iter():
            if local(a) == "a" and a.get("href"):
                text = " ".join(block_text(a).split())
                titles.setdefault(resolve(pkg.nav_path, a.get("href", "")), text)
    if not titles and pkg.ncx_path and pkg.ncx_path in zf.namelist():
        ncx = parse_xml(read_member(zf, book, pkg.ncx_path), book, pkg.ncx_path)
        for point in ncx.iter(f"{{{NCX_NS}}}navPoint"):
            label = next(point.iter(f"{{{NCX_NS}}}text"), None)
            content = next(point.iter(f"{{{NCX_NS}}}content"), None)
            if label is not None and content is not None and content.get("src"):
                titles.setdefault(resolve(pkg.ncx_path, content.get("src", "")), (label.text or "").strip())
    return titles


def read_book(book: Path) -> tuple[Package, list[SpineDoc]]:
    """Every spine document that holds text, in reading order, with its title and blocks."""
    with open_epub(book) as zf:
        check_not_encrypted(zf, book)
        pkg = read_package(zf, book)
        titles = toc_titles(zf, book, pkg)
        docs = []
        for path in pkg.spine:
            if path == pkg.nav_path:
                continue  # the table of contents is rebuilt from chapter titles, not translated as a chapter
            root = parse_xml(read_member(zf, book, path), book, path)
            found = blocks(root)
            if not any(b.text.strip() for b in found):
                continue
            title = titles.get(path)
            if not title:
                heading = next((el for el in root.iter() if local(el) in {"h1", "h2", "h3", "h4", "h5", "h6"}), None)
                title = " ".join(block_text(heading).split()) if heading is not None else None
            href = posixpath.relpath(path, posixpath.dirname(pkg.opf_path))
            docs.append(SpineDoc(path, href, title or None, found))
    return pkg, docs
