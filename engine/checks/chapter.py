"""The checks over whole chapters: a chapter, a workspace of chapters, and a batch just committed in a run.

A paragraph is checked when it is not empty and has a selected translation. Warnings a person dismissed for
the paragraph's current texts are left out unless asked for.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from engine.checks.consistency import check_consistency
from engine.checks.dismissal import dismissed_codes
from engine.checks.glossary import GlossaryTerm, as_terms
from engine.checks.languages import languages
from engine.checks.paragraph import findings
from engine.checks.warning import CheckWarning, Finding
from store.model import Chapter, Paragraph


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
    from engine.checks.incremental import ChapterChecks  # here: a run imports this module for batch_warnings only

    checks = ChapterChecks.of(chapter, glossary, consistency=codes is None or "INCONSISTENT" in codes)
    return checks.listed(include_dismissed=include_dismissed, codes=codes)


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
    from engine.checks.incremental import ChapterChecks  # as in check_chapter

    terms = as_terms(glossary)  # one set of automata for every chapter
    per_chapter = [ChapterChecks.of(chapter, terms, consistency=False) for chapter in chapters]
    across: Sequence[Sequence[CheckWarning]] = [()] * len(chapters)
    if codes is None or "INCONSISTENT" in codes:
        across = check_consistency(chapters, names)
    return [
        checks.listed(include_dismissed=include_dismissed, codes=codes, inconsistent=extra)
        for checks, extra in zip(per_chapter, across, strict=True)
    ]


# Findings of (paragraph_id, source, text) triples, made before a commit ends (``batch_findings``).
Found = Mapping[tuple[str, str, str], list[Finding]]


def batch_findings(
    chapter: Chapter, submitted: Iterable[tuple[str, str, str]], glossary: Sequence[GlossaryTerm] = ()
) -> dict[tuple[str, str, str], list[Finding]]:
    """The findings of each submitted (paragraph_id, source, text), the languages ``chapter``'s: a run makes them
    while its commit is written (the fsync lets go of the interpreter) and hands them to ``batch_warnings``."""
    langs = languages(chapter.source_language, chapter.target_language)
    terms = as_terms(glossary)
    return {(pid, source, text): findings(source, text, langs, terms) for pid, source, text in submitted}


def batch_warnings(
    chapter: Chapter,
    submitted: Iterable[tuple[str, str]],
    glossary: Sequence[GlossaryTerm] = (),
    *,
    found: Found | None = None,
) -> list[dict[str, Any]]:
    """What the model is told about the paragraphs it just submitted: ``{"paragraph_id", "code", "message"}``.

    ``submitted`` holds (paragraph_id, text) of the accepted paragraphs; the text is the model's, checked against
    the paragraph's source in ``chapter`` (the chapter as committed). INCONSISTENT is not among them: it is
    about the workspace, not about this text. ``found``: findings made already (``batch_findings``), used where
    their source is the committed one.
    """
    langs = languages(chapter.source_language, chapter.target_language)
    glossary = as_terms(glossary)
    out: list[dict[str, Any]] = []
    for pid, text in submitted:
        para = chapter.paragraph(pid)
        if para is None:
            continue
        made = found.get((pid, para.text, text)) if found is not None else None
        out.extend(_told(para, text, findings(para.text, text, langs, glossary) if made is None else made))
    return out


def _told(para: Paragraph, text: str, found: list[Finding]) -> list[dict[str, Any]]:
    """The findings of ``text`` as the model is told them, those a person dismissed for it left out."""
    if not found:
        return []
    dismissed = dismissed_codes(para, text)
    return [{"paragraph_id": para.id, "code": f.code, "message": f.message} for f in found if f.code not in dismissed]
