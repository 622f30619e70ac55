"""QA checks on translations: warnings a run gives the model, the editor reviews, and a person may dismiss.

``check_paragraph`` checks one (source, translation) pair; ``check_chapter`` and ``check_workspace`` check every
translated paragraph (the workspace-wide INCONSISTENT too) and leave out dismissed warnings unless asked;
``batch_warnings`` is what ``add_translation_batch`` tells the model after a commit (``batch_findings`` makes its
findings while the commit is written). One module per family of
checks: scripts left, punctuation and quotes, shape (numbers, line breaks, same as source), length ratio,
repetition, model chatter, glossary, consistency.
"""

from __future__ import annotations

from engine.checks.chapter import batch_findings, batch_warnings, check_chapter, check_workspace
from engine.checks.dismissal import dismiss, dismissed_codes, fingerprint, undismiss
from engine.checks.glossary import GlossaryTerm
from engine.checks.paragraph import check_paragraph
from engine.checks.warning import CODES, SEVERITIES, CheckWarning, Finding, Severity

__all__ = [
    "CODES",
    "SEVERITIES",
    "CheckWarning",
    "Finding",
    "GlossaryTerm",
    "Severity",
    "batch_findings",
    "batch_warnings",
    "check_chapter",
    "check_paragraph",
    "check_workspace",
    "dismiss",
    "dismissed_codes",
    "fingerprint",
    "undismiss",
]
