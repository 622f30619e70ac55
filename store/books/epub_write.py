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
from store.books.epub_read import DC_NS, NCX_NS, read_package, resolve
from store.books.epub_safety import BookError, check_not_encrypted, open_epub, parse_xml, read_member
from store.loader import load_chapter
from store.model import Chapter, Paragraph
from store.plaintext import missing_mark

Missing = Literal["source", "mark"]


def _serialize(root: etree._Element) -> bytes:
    return etree.tostring(root.getroottree(), xml_declaration=True, encoding="utf-8")


def _chapter_text(para: Paragraph, missing: Missing) -> str | None:
    chosen = para.selected_text
    if chosen is not None:
        return chosen
    if para.is_empty:
        return None
    return missing_mark(para) if missing == "mark" else None


def _rewrite_doc(root: etree._Element, chapter: Chapter, bilingual: bool, missing: Missing) -> None:
    # Every path is resolved before anything changes: an inserted translation shifts the positions after it.
    targets: list[tuple[Paragraph, etree._Element]] = []
    tree = root.getroottree()
    for para in chapter.paragraphs:
        ref = (para.__pydantic_extra__ or {}).get("source_ref")
        if not isinstance(ref, dict) or not isinstance(ref.get("path"), str):
            continue
        found = tree.xpath(ref["path"])
        if not isinstance(found, list) or not found or not isinstance(found[0], etree._Element):
            raise BookError(f"chapter {chapter.id}: paragraph {para.id}: {ref['path']} is not in the source EPUB")
        targets.append((para, found[0]))
    for para, el in targets:
        text = _chapter_text(para, missing)
        if text is None or local(el) in {"img", "svg", "image"}:
            continue
        if bilingual:
            add_translation_after(el, text)
        else:
            set_block_text(el, text)


def export_epub(workspace: Path, out: Path, *, bilingual: bool = False, missing: Missing = "source") -> int:
    """Write ``out`` atomically from ``workspace/.proofdesk/source.epub``; return the chapters rewritten."""
    source = workspace / ".proofdesk" / "source.epub"
    meta_path = workspace / ".proofdesk" / "book.json"
    if not source.is_file() or not meta_path.is_file():
        raise BookError(f"{workspace}: not an imported book (no .proofdesk/source.epub and book.json)")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    chapters = [load_chapter(workspace / entry["file"]) for entry in meta["chapters"]]
    with open_epub(source) as zf:
        check_not_encrypted(zf, source)
        pkg = read_package(zf, source)
        opf_dir = pkg.opf_path.rpartition("/")[0]
        by_path: dict[str, Chapter] = {}
        for entry, chapter in zip(meta["chapters"], chapters, strict=True):
            by_path[f"{opf_dir}/{entry['href']}" if opf_dir else entry["href"]] = chapter
        titles = {path: ch.title_translation for path, ch in by_path.items() if ch.title_translation}
        target = next((ch.target_language for ch in chapters if ch.target_language), None)
        replaced: dict[str, bytes] = {}
        for path, chapter in by_path.items():
            root = parse_xml(read_member(zf, source, path), source, path)
            _rewrite_doc(root, chapter, bilingual, missing)
            replaced[path] = _serialize(root)
        if target:
            for lang in pkg.opf.iter(f"{{{DC_NS}}}language"):
                lang.text = target
            replaced[pkg.opf_path] = _serialize(pkg.opf)
        if titles and pkg.nav_path and pkg.nav_path not in replaced:
            nav = parse_xml(read_member(zf, source, pkg.nav_path), source, pkg.nav_path)
            for a in nav.iter():
                if local(a) == "a" and titles.get(resolve(pkg.nav_path, a.get("href", ""))):
                    set_block_text(a, titles[resolve(pkg.nav_path, a.get("href", ""))])
            replaced[pkg.nav_path] = _serialize(nav)
        if titles and pkg.ncx_path:
            ncx = parse_xml(read_member(zf, source, pkg.ncx_path), source, pkg.ncx_path)
            for point in ncx.iter(f"{{{NCX_NS}}}navPoint"):
                label = next(point.iter(f"{{{NCX_NS}}}text"), None)
                content = next(point.iter(f"{{{NCX_NS}}}content"), None)
                if label is not None and content is not None:
                    new = titles.get(resolve(pkg.ncx_path, content.get("src", "")))
                    if new:
                        label.text = new
            replaced[pkg.ncx_path] = _serialize(ncx)
        data = _rebuild(zf, source, replaced)
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
