"""The checks over whole chapters: a chapter, a workspace of chapters, and a batch just committed in a run.

A paragraph is checked when it is not empty and has a selected translation. Warnings a person dismissed for
the paragraph's current texts are left out unless asked for.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any

from engine.checks.consistency import check_consistency
from engine.checks.dismissal import dismissed_codes
from engine.checks.glossary import GlossaryTerm
from engine.checks.languages import languages
from engine.checks.paragraph import findings
from engine.checks.warning import CODE_ORDER, CheckWarning
from store.model import Chapter, is_empty_text


def _paragraph_warnings(chapter: Chapter, glossary: Sequence[GlossaryTerm]) -> list[list[CheckWarning]]:
    """Per-paragraph warnings of every paragraph (a list per position, most of them empty)."""
    langs = languages(chapter.source_language, chapter.target_language)
    out: list[list[CheckWarning]] = []
    for pos, para in enumerate(chapter.paragraphs):
        translation = para.selected_text
        if translation is None or is_empty_text(para.text):
            out.append([])
            continue
        out.append([CheckWarning.of(f, para.id, pos + 1) for f in findings(para.text, translation, langs, glossary)])
    return out


def _kept(
    chapter: Chapter, per_paragraph: list[list[CheckWarning]], include_dismissed: bool, codes: Collection[str] | None
) -> list[CheckWarning]:
    out: list[CheckWarning] = []
    for pos, warnings in enumerate(per_paragraph):
        if not warnings:
            continue
        if codes is not None:
            warnings = [w for w in warnings if w.code in codes]
        if not include_dismissed and warnings:
            dismissed = dismissed_codes(chapter.paragraphs[pos])
            if dismissed:
                warnings = [w for w in warnings if w.code not in dismissed]
        out.extend(warnings)
    return out


def _merge(per_paragraph: list[list[CheckWarning]], extra: Iterable[CheckWarning]) -> None:
    for w in extra:
        slot = per_paragraph[w.paragraph_index - 1]
        slot.append(w)
        slot.sort(key=lambda x: CODE_ORDER[x.code])


def check_chapter(
    chapter: Chapter,
    glossary: Sequence[GlossaryTerm] = (),
    *,
    include_dismissed: bool = False,
    codes: Collection[str] | None = None,
) -> list[CheckWarning]:
    """Every warning of the chapter in paragraph order, INCONSISTENT among its own paragraphs included.

    ``codes`` keeps only those codes; dismissed warnings are left out unless ``include_dismissed``.
    """
    per_paragraph = _paragraph_warnings(chapter, glossary)
    if codes is None or "INCONSISTENT" in codes:
        _merge(per_paragraph, check_consistency([chapter])[0])
    return _kept(chapter, per_paragraph, include_dismissed, codes)


def check_workspace(
    chapters: Sequence[Chapter],
    glossary: Sequence[GlossaryTerm] = (),
    *,
    names: Sequence[str] | None = None,
    include_dismissed: bool = False,
    codes: Collection[str] | None = None,
) -> list[list[CheckWarning]]:
    """The warnings of each chapter (same order), INCONSISTENT across all of them; ``names`` label chapters in
    INCONSISTENT messages (default: their IDs)."""
    per_chapter = [_paragraph_warnings(chapter, glossary) for chapter in chapters]
    if codes is None or "INCONSISTENT" in codes:
        for per_paragraph, extra in zip(per_chapter, check_consistency(chapters, names), strict=True):
            _merge(per_paragraph, extra)
    return [
        _kept(chapter, per_paragraph, include_dismissed, codes)
        for chapter, per_paragraph in zip(chapters, per_chapter, strict=True)
    ]


def batch_warnings(
    chapter: Chapter, submitted: Iterable[tuple[str, str]], glossary: Sequence[GlossaryTerm] = ()
) -> list[dict[str, Any]]:
    """What the model is told about the paragraphs it just submitted: ``{"paragraph_id", "code", "message"}``.

    ``submitted`` holds (paragraph_id, text) of the accepted paragraphs; the text is the model's, checked against
    the paragraph's source in ``chapter`` (the chapter as committed). INCONSISTENT is not among them: it is
    about the workspace, not about this text.
    """
    langs = languages(chapter.source_language, chapter.target_language)
    out: list[dict[str, Any]] = []
    for pid, text in submitted:
        para = chapter.paragraph(pid)
        if para is None:
            continue
        found = findings(para.text, text, langs, glossary)
        if not found:
            continue
        dismissed = dismissed_codes(para, text)
        out.extend(
            {"paragraph_id": pid, "code": f.code, "message": f.message} for f in found if f.code not in dismissed
        )
    return out
