"""Where each paragraph of a chapter goes back into its document on export: its element, or its loose text run.

Every path is resolved before anything changes (an inserted translation shifts the positions after it), through
one :class:`~store.books.element_path.PathIndex` of the document: a lookup per paragraph, not a walk.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from store.books.element_path import PathIndex, in_body
from store.books.epub_blocks import local
from store.books.epub_safety import BookError
from store.books.loose_text import Run
from store.model import Chapter, Paragraph


@dataclass
class DocTargets:
    """The paragraphs of one document with their elements, and those of loose text with their runs."""

    elements: list[tuple[Paragraph, etree._Element]] = field(default_factory=list)
    runs: list[tuple[Paragraph, Run]] = field(default_factory=list)


def _source_path(para: Paragraph) -> str | None:
    ref = para.extra.get("source_ref")
    path = ref.get("path") if isinstance(ref, dict) else None
    return path if isinstance(path, str) else None


def _has_ref(para: Paragraph) -> bool:
    return para.extra.get("source_ref") is not None


def _run_in_body(run: Run) -> bool:
    el, tail = run
    parent = el.getparent() if tail else el
    return parent is not None and (local(parent) == "body" or in_body(parent))


def _place(index: PathIndex, path: str | None, targets: DocTargets, para: Paragraph) -> bool:
    """Add the paragraph's element or run to ``targets``; False when ``path`` names neither in the body."""
    if path is None:
        return False
    return _place_run(index, path, targets, para) if "/text()[" in path else _place_element(index, path, targets, para)


def _place_run(index: PathIndex, path: str, targets: DocTargets, para: Paragraph) -> bool:
    run = index.text_run(path)
    if run is None or not _run_in_body(run):
        return False
    targets.runs.append((para, run))
    return True


def _place_element(index: PathIndex, path: str, targets: DocTargets, para: Paragraph) -> bool:
    found = index.element(path)
    if found is None or not in_body(found):
        return False
    targets.elements.append((para, found))
    return True


def block_targets(index: PathIndex, chapter: Chapter, href: str) -> DocTargets:
    """Each paragraph of ``chapter`` that came from the document ``href`` with where it goes; a paragraph added
    after the import (no ``source_ref``) has no place and is left out."""
    targets = DocTargets()
    for para in chapter.paragraphs:
        if not _has_ref(para):
            continue
        path = _source_path(para)
        if not _place(index, path, targets, para):
            raise BookError(
                f"chapter {chapter.id}: paragraph {para.id}: its source reference {path!r} names no block of "
                f"{href} in the source EPUB; restore the paragraph's source_ref or re-import the book"
            )
    return targets
