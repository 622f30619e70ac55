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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from lxml import etree

from store.books.block_targets import DocTargets, block_targets
from store.books.book_file import book_file, read_entries
from store.books.edition_lang import mark_translations, set_lang
from store.books.edition_meta import (
    modified_now,
    new_identifier,
    set_identifier,
    set_language,
    set_modified,
    set_ncx_identity,
)
from store.books.edition_titles import DocTitles, doc_titles, plain_text, retitle_document
from store.books.element_path import PathIndex
from store.books.epub_blocks import add_translation_after, local, set_block_text
from store.books.epub_read import Package, nav_links, ncx_labels, read_package
from store.books.epub_safety import BookError, check_not_encrypted, open_epub, parse_xml, read_member
from store.books.inline_restore import Restored
from store.books.loose_text import Run, add_translation_run, replace_run
from store.books.twin_inside import INSIDE_ONLY, add_translation_inside
from store.export_target import ExportTarget, write_target
from store.fast_load import gc_paused
from store.language_tag import is_language_tag
from store.loader import load_chapter
from store.model import Chapter, Paragraph
from store.plaintext import missing_mark

Missing = Literal["source", "mark"]
_BlockWriter = Callable[..., Restored]  # (block, text, *, coded) -> what its inline codes needed repaired
_IMAGES = frozenset({"img", "svg", "image"})
_XHTML = frozenset({"application/xhtml+xml"})
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


def _rewrite_runs(
    runs: list[tuple[Paragraph, Run]], chapter: Chapter, edition: Edition, missing: Missing, report: EpubExport
) -> None:
    """Loose text runs first: a block's bilingual twin takes over its tail, which may be one of them."""
    for para, run in runs:
        text = _chapter_text(para, missing)
        if text is None:
            continue
        text = _xml_text(text, f"{chapter.id} paragraph {para.id}", report)
        if edition.bilingual:
            add_translation_run(run, text, edition.target)
        else:
            replace_run(run, text)


def _rewrite_doc(targets: DocTargets, chapter: Chapter, edition: Edition, missing: Missing, report: EpubExport) -> None:
    _rewrite_runs(targets.runs, chapter, edition, missing, report)
    for para, el in targets.elements:
        text = _chapter_text(para, missing)
        if text is not None and local(el) not in _IMAGES:
            _write_block(el, text, f"{chapter.id} paragraph {para.id}", _recorded(para), edition, report)


def _write_block(
    el: etree._Element, text: str, what: str, recorded: int | None, edition: Edition, report: EpubExport
) -> None:
    """The translation into its block (or beside it); a repair of its inline codes is named in the report."""
    write = _bilingual_writer(el) if edition.bilingual else set_block_text
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
    ref = para.extra.get("source_ref")
    codes = ref.get("codes") if isinstance(ref, dict) else None
    return len(codes) if isinstance(codes, dict) else None


def _bilingual_writer(el: etree._Element) -> _BlockWriter:
    """How the bilingual book adds a translation: after the block, or inside it for a block its parent holds once
    or whose twin would change the table's shape (``twin_inside``)."""
    return add_translation_inside if local(el) in INSIDE_ONLY else add_translation_after


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


@dataclass(frozen=True)
class Edition:
    """The book being written: bilingual or translated, in which language, under which new identifier."""

    bilingual: bool
    target: str | None
    identifier: str

    @property
    def whole_book_language(self) -> str | None:
        """The language every document says: the target's in the translated book, None in the bilingual one."""
        return None if self.bilingual else self.target


def _label(titles: dict[str, DocTitles], path: str, text: str) -> str | None:
    """The translation of a nav/NCX label pointing at ``path``, or None to leave it."""
    found = titles.get(path)
    return found.label(text) if found is not None else None


class _Rewrite:
    """The members an export replaces, parsed from the source EPUB (each once) and serialised at the end."""

    def __init__(self, zf: zipfile.ZipFile, source: Path, report: EpubExport, edition: Edition) -> None:
        self.zf = zf
        self.source = source
        self.report = report
        self.edition = edition
        self.roots: dict[str, etree._Element] = {}

    def member(self, path: str) -> etree._Element:
        if path not in self.roots:
            self.roots[path] = parse_xml(read_member(self.zf, self.source, path), self.source, path)
        return self.roots[path]

    def replaced(self) -> dict[str, bytes]:
        return {path: _serialize(root) for path, root in self.roots.items()}

    def clean(self, text: str) -> str:
        return _NOT_XML_TEXT.sub("\ufffd", text)

    def documents(self, by_path: dict[str, Chapter], missing: Missing) -> dict[str, DocTitles]:
        """Rewrite each chapter's document; return what its titles become (read before the rewrite)."""
        titles: dict[str, DocTitles] = {}
        for path, chapter in by_path.items():
            root = self.member(path)
            targets = block_targets(PathIndex(root), chapter, path)
            titles[path] = doc_titles(chapter, targets.elements, self.clean)
            if chapter.title_translation and _NOT_XML_TEXT.search(chapter.title_translation):
                self.report.replaced.append(f"{chapter.id} title")
            _rewrite_doc(targets, chapter, self.edition, missing, self.report)
            self.document_language(root, titles[path])
        return titles

    def document_language(self, root: etree._Element, titles: DocTitles | None) -> None:
        """The translated book's document says the target language and has its ``<title>`` translated; the
        bilingual book's marks its inserted translations."""
        if self.edition.bilingual:
            mark_translations(root, self.edition.target)
            return
        if titles is not None:
            retitle_document(root, titles)
        if self.edition.target:
            set_lang(root, self.edition.target)

    def other_documents(self, pkg: Package) -> None:
        """The translated book's XHTML documents that are not chapters (cover, nav …) in the target language."""
        if self.edition.whole_book_language:
            for path in self._xhtml_members(pkg):
                self.document_language(self.member(path), None)

    def _xhtml_members(self, pkg: Package) -> list[str]:
        names = set(self.zf.namelist())
        return [path for path, media_type, _ in pkg.manifest.values() if media_type in _XHTML and path in names]

    def package(self, pkg: Package) -> None:
        """The package's language, identifier and modification time (``edition_meta``)."""
        if self.edition.target:
            set_language(pkg.opf, self.edition.target, whole_book=not self.edition.bilingual)
        set_identifier(pkg.opf, self.edition.identifier)
        set_modified(pkg.opf, modified_now())
        self.roots[pkg.opf_path] = pkg.opf

    def nav_titles(self, nav_path: str | None, titles: dict[str, DocTitles]) -> None:
        if not nav_path or nav_path not in self.zf.namelist():
            return
        for a, path in nav_links(self.member(nav_path), nav_path):
            new = _label(titles, path, plain_text(a))
            if new:
                set_block_text(a, new)

    def ncx_titles(self, ncx_path: str | None, titles: dict[str, DocTitles]) -> None:
        if ncx_path in self.zf.namelist():
            self._ncx(self.member(ncx_path), ncx_path, titles)

    def _ncx(self, ncx: etree._Element, ncx_path: str, titles: dict[str, DocTitles]) -> None:
        for label, path in ncx_labels(ncx, ncx_path):
            label.text = _label(titles, path, label.text or "") or label.text
        set_ncx_identity(ncx, self.edition.identifier, self.edition.whole_book_language)


def export_epub(
    workspace: Path, out: ExportTarget, *, bilingual: bool = False, missing: Missing = "source"
) -> EpubExport:
    """Write the checked target ``out`` from ``workspace/.proofdesk/source.epub``; say what was done.

    The cycle collector waits meanwhile (``gc_paused``): the chapters and the documents' trees hold no cycles, and
    collections walking a 125,000-paragraph chapter again and again doubled the export's time."""
    source = workspace / ".proofdesk" / "source.epub"
    if not source.is_file() or not book_file(workspace).is_file():
        raise BookError(f"{workspace}: not an imported book (no .proofdesk/source.epub and book.json)")
    report = EpubExport()
    with gc_paused():
        chapters = _chapters(workspace)
        edition = Edition(bilingual, _target_language(chapters), new_identifier())
        data, report.chapters = _edition_bytes(workspace, chapters, edition, missing, report)
    write_target(out, data)
    return report


def _edition_bytes(
    workspace: Path, chapters: list[tuple[str, Chapter]], edition: Edition, missing: Missing, report: EpubExport
) -> tuple[bytes, int]:
    """The new book's bytes and the number of chapters written into it."""
    source = workspace / ".proofdesk" / "source.epub"
    with open_epub(source) as zf:
        check_not_encrypted(zf, source)
        pkg = read_package(zf, source)
        by_path = _by_path(pkg, chapters, book_file(workspace))
        rewrite = _Rewrite(zf, source, report, edition)
        titles = rewrite.documents(by_path, missing)
        rewrite.nav_titles(pkg.nav_path, titles)
        rewrite.ncx_titles(pkg.ncx_path, titles)
        rewrite.other_documents(pkg)
        rewrite.package(pkg)
        return _rebuild(zf, source, rewrite.replaced()), len(by_path)


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
