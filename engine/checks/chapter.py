"""The checks over whole chapters: a chapter, a workspace of chapters, and a batch just committed in a run.

A paragraph is checked when it is not empty and has a selected translation. Warnings a person dismissed for
the paragraph's current texts are left out unless asked for.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any

from engine.checks.consistency import check_consistency
from engine.checks.dismissal import dismissed_codes
from engine.checks.glossary import GlossaryTerm, as_terms
from engine.checks.languages import languages
from engine.checks.paragraph import findings
from engine.checks.warning import CheckWarning
from store.model import Chapter


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


def batch_warnings(
    chapter: Chapter, submitted: Iterable[tuple[str, str]], glossary: Sequence[GlossaryTerm] = ()
) -> list[dict[str, Any]]:
    """What the model is told about the paragraphs it just submitted: ``{"paragraph_id", "code", "message"}``.

    ``submitted`` holds (paragraph_id, text) of the accepted paragraphs; the text is the model's, checked against
    the paragraph's source in ``chapter`` (the chapter as committed). INCONSISTENT is not among them: it is
    about the workspace, not about this text.
    """
    langs = languages(chapter.source_language, chapter.target_language)
    glossary = as_terms(glossary)
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
