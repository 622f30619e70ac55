"""Every per-paragraph check, run on one (source, translation) pair.

The checks are pure functions of the two texts, the language pair and the glossary; each finds at most one
problem of its code. They run in the order of :data:`engine.checks.warning.CODES`. Only some read the glossary
(``READS_GLOSSARY``: the script checks look past glossary targets, and GLOSSARY_NOT_APPLIED): when the approved
terms change, ``glossary_findings`` gives what those find, and the other findings still hold.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.checks.chatter import check_chatter
from engine.checks.codes import check_codes
from engine.checks.control import check_control_chars
from engine.checks.glossary import GlossaryTerm, as_terms, check_glossary
from engine.checks.languages import Languages, languages
from engine.checks.length_ratio import check_length
from engine.checks.punctuation import check_end_punctuation, check_quotes_balanced, check_quotes_lost
from engine.checks.repetition import check_repetition
from engine.checks.scripts import check_chinese_script, check_han, check_hangul, check_kana
from engine.checks.shape import check_newlines, check_numbers, check_same_as_source
from engine.checks.warning import CheckWarning, Finding
from store.books.code_text import masked

# Any character from U+1100 on, but for general punctuation, symbols and arrows (U+2000-U+2BFF: “ ” — …): where
# none occurs, no script is left, and one scan spares the four script checks theirs.
_WIDE = re.compile("[^\x00-\u10ff\u2000-\u2bff]")


_SCRIPT_CHECKS = (check_kana, check_hangul, check_han, check_chinese_script)
READS_GLOSSARY = frozenset(
    {
        "KANA_LEFT",
        "HANGUL_LEFT",
        "CJK_LEFT",
        "TRADITIONAL_IN_SIMPLIFIED",
        "SIMPLIFIED_IN_TRADITIONAL",
        "GLOSSARY_NOT_APPLIED",
    }
)  # the codes of the checks given the glossary (those of _SCRIPT_CHECKS, and check_glossary)


def _scripts(translation: str, langs: Languages, glossary: Sequence[GlossaryTerm]) -> list[Finding | None]:
    wide = _WIDE.search(translation) is not None
    return [check(translation, langs, glossary) for check in _SCRIPT_CHECKS] if wide else []


def findings(source: str, translation: str, langs: Languages, glossary: Sequence[GlossaryTerm] = ()) -> list[Finding]:
    """What the per-paragraph checks find in ``translation`` of ``source`` (inline codes, whose numbers are no
    text, are read by CODES_DIFFER alone)."""
    glossary = as_terms(glossary)
    codes = check_codes(source, translation)
    source, translation = masked(source), masked(translation)
    found = (
        check_same_as_source(source, translation, langs),
        *_scripts(translation, langs, glossary),
        check_quotes_balanced(source, translation),
        check_quotes_lost(source, translation),
        check_end_punctuation(source, translation, langs),
        check_numbers(source, translation, langs),
        check_newlines(source, translation),
        check_length(source, translation, langs),
        check_repetition(source, translation),
        check_chatter(source, translation),
        check_control_chars(translation),
        codes,
        check_glossary(source, translation, glossary),
    )
    return [f for f in found if f is not None]


def glossary_findings(
    source: str, translation: str, langs: Languages, glossary: Sequence[GlossaryTerm]
) -> list[Finding]:
    """What the checks that read the glossary (``READS_GLOSSARY``) find, in the order of the codes."""
    glossary = as_terms(glossary)
    source, translation = masked(source), masked(translation)
    found = (*_scripts(translation, langs, glossary), check_glossary(source, translation, glossary))
    return [f for f in found if f is not None]


def check_paragraph(
    source: str,
    translation: str,
    source_language: str | None,
    target_language: str | None,
    glossary: Sequence[GlossaryTerm] = (),
    *,
    paragraph_id: str = "",
    paragraph_index: int = 0,
) -> list[CheckWarning]:
    """The warnings about ``translation`` of ``source`` (every code but the workspace-wide INCONSISTENT)."""
    langs = languages(source_language, target_language)
    return [CheckWarning.of(f, paragraph_id, paragraph_index) for f in findings(source, translation, langs, glossary)]
