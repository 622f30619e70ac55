"""``proofdesk export WORKSPACE --epub OUT``: the original EPUB with each block's text translated.

Untouched members are copied with their content byte-identical and their zip headers (name, date, method)
kept; ``mimetype`` goes first, stored. Rewritten: the spine documents of chapters, the OPF (language), the
nav document and the NCX (titles). Text that XML cannot hold (C0/C1 controls but tab and newline, U+FFFE, U+FFFF,
lone surrogates) is written as U+FFFD, and the export names every paragraph and title it did this to.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from lxml import etree

from store.books.book_file import book_file, read_entries
from store.books.element_path import find_element, in_body
from store.books.epub_blocks import add_translation_after, local, set_block_text
from store.books.epub_read import DC_NS, Package, nav_links, ncx_labels, read_package
from store.books.epub_safety import BookError, check_not_encrypted, open_epub, parse_xml, read_member
from store.export_target import ExportTarget, write_target
from store.language_tag import is_language_tag
from store.loader import load_chapter
from store.model import Chapter, Paragraph
from store.plaintext import missing_mark

Missing = Literal["source", "mark"]
_IMAGES = frozenset({"img", "svg", "image"})
# Characters XML 1.0 cannot hold, or that design section 21 keeps out of a book: C0 and C1 controls but tab and
# newline, DEL, the non-characters U+FFFE and U+FFFF, and lone surrogates.
_NOT_XML_TEXT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffe\uffff\ud800-\udfff]")


@dataclass
class EpubExport:
    """What an EPUB export did: the chapters rewritten, and where control characters became U+FFFD."""

    chapters: int = 0
    replaced: list[str] = field(default_factory=list)  # "ch001 paragraph 4f013a4a", "ch001 title"
    # Paragraphs whose inline codes differed from the source's: "ch001 paragraph 4f013a4a (appended ⟦2/⟧)".
    codes_repaired: list[str] = field(default_factory=list)


def _xml_text(text: str, what: str, report: EpubExport) -> str:
    cleaned, count = _NOT_XML_TEXT.subn("\ufffd", text)
    if count:
        report.replaced.append(what)
    return cleaned


def _serialize(root: etree._Element) -> bytes:
    return etree.tostring(root.getroottree(), xml_declaration=True, encoding="utf-8")


def _chapter_text(para: Paragraph, missing: Missing) -> str | None:
    chosen = para.selected_text
    if chosen is not None:
        return chosen
    if para.is_empty:
        return None
    return missing_mark(para) if missing == "mark" else None


def _targets(root: etree._Element, chapter: Chapter, href: str) -> list[tuple[Paragraph, etree._Element]]:
    """Each paragraph that came from this document with its element, every path resolved before anything
    changes (an inserted translation shifts the positions after it)."""
    targets: list[tuple[Paragraph, etree._Element]] = []
    for para in chapter.paragraphs:
        ref = (para.__pydantic_extra__ or {}).get("source_ref")
        if ref is None:
            continue  # a paragraph added after the import: it has no block in the book
        path = ref.get("path") if isinstance(ref, dict) else None
        found = find_element(root, path) if isinstance(path, str) else None
        if found is None or not in_body(found):
            raise BookError(
                f"chapter {chapter.id}: paragraph {para.id}: its source reference {path!r} names no block of "
                f"{href} in the source EPUB; restore the paragraph's source_ref or re-import the book"
            )
        targets.append((para, found))
    return targets


def _rewrite_doc(
    root: etree._Element, chapter: Chapter, href: str, bilingual: bool, missing: Missing, report: EpubExport
) -> None:
    for para, el in _targets(root, chapter, href):
        text = _chapter_text(para, missing)
        if text is not None and local(el) not in _IMAGES:
            _write_block(el, text, f"{chapter.id} paragraph {para.id}", _recorded(para), bilingual, report)


def _write_block(
    el: etree._Element, text: str, what: str, recorded: int | None, bilingual: bool, report: EpubExport
) -> None:
    """The translation into its block (or after it); a repair of its inline codes is named in the report."""
    write = add_translation_after if bilingual else set_block_text
    restored = write(el, _xml_text(text, what, report), coded=recorded is not None)
    if recorded is not None and restored.known != recorded:
        raise BookError(
            f"{what}: its source_ref records {recorded} inline codes, but its block in the source EPUB holds "
            f"{restored.known}; restore the paragraph's source_ref or re-import the book"
        )
    if restored:
        report.codes_repaired.append(f"{what} ({restored.summary()})")


def _recorded(para: Paragraph) -> int | None:
    """How many inline codes the import recorded for the paragraph (``source_ref.codes``), None for a paragraph
    without (its text holds no codes)."""
    ref = (para.__pydantic_extra__ or {}).get("source_ref")
    codes = ref.get("codes") if isinstance(ref, dict) else None
    return len(codes) if isinstance(codes, dict) else None


def _chapters(workspace: Path) -> list[tuple[str, Chapter]]:
    """The workspace's chapters, each with the href (relative to the OPF) of the document it came from."""
    return [(entry.href, load_chapter(entry.file)) for entry in read_entries(workspace)]


def _by_path(pkg: Package, chapters: list[tuple[str, Chapter]], meta: Path) -> dict[str, Chapter]:
    """Each chapter by the zip path of its document, which must be one of the spine's."""
    opf_dir = posixpath.dirname(pkg.opf_path)
    by_path: dict[str, Chapter] = {}
    for n, (href, chapter) in enumerate(chapters, start=1):
        path = posixpath.normpath(posixpath.join(opf_dir, href))
        if path not in pkg.spine or path == pkg.nav_path:
            raise BookError(f"{meta}: chapter {n} names the document {href!r}, which is not in the source EPUB's spine")
        by_path[path] = chapter
    return by_path


def _target_language(chapters: list[tuple[str, Chapter]]) -> str | None:
    """The book's target language (the first chapter that has one); a code that is no BCP 47 tag is refused."""
    chapter = next((ch for _, ch in chapters if ch.target_language), None)
    if chapter is None or chapter.target_language is None:
        return None
    if not is_language_tag(chapter.target_language):
        raise BookError(
            f"chapter {chapter.id}: target_language {chapter.target_language!r} is not a BCP 47 language tag "
            "(such as en or zh-Hans); correct it in the chapter file"
        )
    return chapter.target_language


class _Rewrite:
    """The members an export replaces, parsed from the source EPUB and serialised again."""

    def __init__(self, zf: zipfile.ZipFile, source: Path, report: EpubExport) -> None:
        self.zf = zf
        self.source = source
        self.report = report
        self.replaced: dict[str, bytes] = {}

    def member(self, path: str) -> etree._Element:
        return parse_xml(read_member(self.zf, self.source, path), self.source, path)

    def keep(self, path: str, root: etree._Element) -> None:
        self.replaced[path] = _serialize(root)

    def documents(self, by_path: dict[str, Chapter], bilingual: bool, missing: Missing) -> None:
        for path, chapter in by_path.items():
            root = self.member(path)
            _rewrite_doc(root, chapter, path, bilingual, missing, self.report)
            self.keep(path, root)

    def titles(self, by_path: dict[str, Chapter]) -> dict[str, str]:
        """The translated title of each document that has one, made fit for XML."""
        return {
            path: _xml_text(ch.title_translation, f"{ch.id} title", self.report)
            for path, ch in by_path.items()
            if ch.title_translation
        }

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


def export_epub(
    workspace: Path, out: ExportTarget, *, bilingual: bool = False, missing: Missing = "source"
) -> EpubExport:
    """Write the checked target ``out`` from ``workspace/.proofdesk/source.epub``; say what was done."""
    source = workspace / ".proofdesk" / "source.epub"
    if not source.is_file() or not book_file(workspace).is_file():
        raise BookError(f"{workspace}: not an imported book (no .proofdesk/source.epub and book.json)")
    chapters = _chapters(workspace)
    target = _target_language(chapters)
    report = EpubExport()
    with open_epub(source) as zf:
        check_not_encrypted(zf, source)
        pkg = read_package(zf, source)
        by_path = _by_path(pkg, chapters, book_file(workspace))
        rewrite = _Rewrite(zf, source, report)
        rewrite.documents(by_path, bilingual, missing)
        titles = rewrite.titles(by_path)
        rewrite.language(pkg, target)
        rewrite.nav_titles(pkg.nav_path, titles)
        rewrite.ncx_titles(pkg.ncx_path, titles)
        data = _rebuild(zf, source, rewrite.replaced)
    write_target(out, data)
    report.chapters = len(by_path)
    return report


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
