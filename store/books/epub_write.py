"""``proofdesk export WORKSPACE --epub OUT``: the original EPUB with each block's text translated.

Untouched members are copied with their content byte-identical and their zip headers (name, date, method)
kept; ``mimetype`` goes first, stored. Rewritten: the spine documents of chapters, the OPF (language), the
nav document and the NCX (titles).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Literal

from lxml import etree

from store.atomic import atomic_write
from store.books.epub_blocks import add_translation_after, local, set_block_text
from store.books.epub_read import DC_NS, Package, nav_links, ncx_labels, read_package
from store.books.epub_safety import BookError, check_not_encrypted, open_epub, parse_xml, read_member
from store.loader import load_chapter
from store.model import Chapter, Paragraph
from store.plaintext import missing_mark

Missing = Literal["source", "mark"]
_IMAGES = frozenset({"img", "svg", "image"})


def _serialize(root: etree._Element) -> bytes:
    return etree.tostring(root.getroottree(), xml_declaration=True, encoding="utf-8")


def _chapter_text(para: Paragraph, missing: Missing) -> str | None:
    chosen = para.selected_text
    if chosen is not None:
        return chosen
    if para.is_empty:
        return None
    return missing_mark(para) if missing == "mark" else None


def _targets(root: etree._Element, chapter: Chapter) -> list[tuple[Paragraph, etree._Element]]:
    """Each paragraph that came from this document with its element, every path resolved before anything
    changes (an inserted translation shifts the positions after it)."""
    targets: list[tuple[Paragraph, etree._Element]] = []
    tree = root.getroottree()
    for para in chapter.paragraphs:
        path = _source_path(para)
        if path is None:
            continue
        found = tree.xpath(path)
        if not isinstance(found, list) or not found or not isinstance(found[0], etree._Element):
            raise BookError(f"chapter {chapter.id}: paragraph {para.id}: {path} is not in the source EPUB")
        targets.append((para, found[0]))
    return targets


def _source_path(para: Paragraph) -> str | None:
    """The element path the import recorded for this paragraph (``source_ref.path``), or None."""
    ref = (para.__pydantic_extra__ or {}).get("source_ref")
    path = ref.get("path") if isinstance(ref, dict) else None
    return path if isinstance(path, str) else None


def _rewrite_doc(root: etree._Element, chapter: Chapter, bilingual: bool, missing: Missing) -> None:
    write = add_translation_after if bilingual else set_block_text
    for para, el in _targets(root, chapter):
        text = _chapter_text(para, missing)
        if text is not None and local(el) not in _IMAGES:
            write(el, text)


def _chapters(workspace: Path) -> list[tuple[str, Chapter]]:
    """The workspace's chapters, each with the href (relative to the OPF) of the document it came from."""
    meta = json.loads((workspace / ".proofdesk" / "book.json").read_text(encoding="utf-8"))
    return [(entry["href"], load_chapter(workspace / entry["file"])) for entry in meta["chapters"]]


class _Rewrite:
    """The members an export replaces, parsed from the source EPUB and serialised again."""

    def __init__(self, zf: zipfile.ZipFile, source: Path) -> None:
        self.zf = zf
        self.source = source
        self.replaced: dict[str, bytes] = {}

    def member(self, path: str) -> etree._Element:
        return parse_xml(read_member(self.zf, self.source, path), self.source, path)

    def keep(self, path: str, root: etree._Element) -> None:
        self.replaced[path] = _serialize(root)

    def documents(self, by_path: dict[str, Chapter], bilingual: bool, missing: Missing) -> None:
        for path, chapter in by_path.items():
            root = self.member(path)
            _rewrite_doc(root, chapter, bilingual, missing)
            self.keep(path, root)

    def language(self, pkg: Package, target: str | None) -> None:
        if not target:
            return
        for lang in pkg.opf.iter(f"{{{DC_NS}}}language"):
            lang.text = target
        self.keep(pkg.opf_path, pkg.opf)

    def nav_titles(self, nav_path: str | None, titles: dict[str, str]) -> None:
        if not titles or not nav_path or nav_path in self.replaced:
            return
        nav = self.member(nav_path)
        for a, path in nav_links(nav, nav_path):
            if titles.get(path):
                set_block_text(a, titles[path])
        self.keep(nav_path, nav)

    def ncx_titles(self, ncx_path: str | None, titles: dict[str, str]) -> None:
        if not titles or not ncx_path:
            return
        ncx = self.member(ncx_path)
        for label, path in ncx_labels(ncx, ncx_path):
            if titles.get(path):
                label.text = titles[path]
        self.keep(ncx_path, ncx)


def export_epub(workspace: Path, out: Path, *, bilingual: bool = False, missing: Missing = "source") -> int:
    """Write ``out`` atomically from ``workspace/.proofdesk/source.epub``; return the chapters rewritten."""
    source = workspace / ".proofdesk" / "source.epub"
    if not source.is_file() or not (workspace / ".proofdesk" / "book.json").is_file():
        raise BookError(f"{workspace}: not an imported book (no .proofdesk/source.epub and book.json)")
    chapters = _chapters(workspace)
    target = next((ch.target_language for _, ch in chapters if ch.target_language), None)
    with open_epub(source) as zf:
        check_not_encrypted(zf, source)
        pkg = read_package(zf, source)
        opf_dir = pkg.opf_path.rpartition("/")[0]
        by_path = {f"{opf_dir}/{href}" if opf_dir else href: chapter for href, chapter in chapters}
        titles = {path: ch.title_translation for path, ch in by_path.items() if ch.title_translation}
        rewrite = _Rewrite(zf, source)
        rewrite.documents(by_path, bilingual, missing)
        rewrite.language(pkg, target)
        rewrite.nav_titles(pkg.nav_path, titles)
        rewrite.ncx_titles(pkg.ncx_path, titles)
        data = _rebuild(zf, source, rewrite.replaced)
    atomic_write(out, data, expect=None)
    return len(by_path)


def _rebuild(zf: zipfile.ZipFile, source: Path, replaced: dict[str, bytes]) -> bytes:
    import io

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as new:
        mime = zipfile.ZipInfo("mimetype", date_time=(1980, 1, 1, 0, 0, 0))
        new.writestr(
            mime,
            read_member(zf, source, "mimetype") if "mimetype" in zf.namelist() else b"application/epub+zip",
            compress_type=zipfile.ZIP_STORED,
        )
        for info in zf.infolist():
            if info.filename == "mimetype":
                continue
            data = replaced.get(info.filename)
            if data is None:
                data = read_member(zf, source, info.filename)
            clone = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            clone.external_attr = info.external_attr
            clone.compress_type = info.compress_type
            new.writestr(clone, data)
    return buf.getvalue()
