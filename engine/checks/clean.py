"""Whether a translation may be shown to the model as context: one bad chunk must not spread into the next.

A selected translation is *clean* when the paragraph is reviewed, or when it has no QA warning of severity
``error`` that nobody dismissed (the codes a broken text gives: untranslated, model talk, a loop, control
characters). Warnings that need the glossary or the whole workspace are never of that severity, so the check
needs only the paragraph and the language pair.
"""

from __future__ import annotations

from engine.checks.dismissal import dismissed_codes
from engine.checks.languages import Languages
from engine.checks.paragraph import findings
from engine.checks.warning import SEVERITIES
from store.model import Paragraph

ERROR_CODES = frozenset(code for code, severity in SEVERITIES.items() if severity == "error")


def clean_translation(para: Paragraph, langs: Languages) -> str | None:
    """The paragraph's selected translation if it is clean, else None (also when there is none)."""
    text = para.selected_text
    if text is None or para.reviewed:
        return text
    errors = {f.code for f in findings(para.text, text, langs) if f.code in ERROR_CODES}
    return None if errors - dismissed_codes(para, text) else text
