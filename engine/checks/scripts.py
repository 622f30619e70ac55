"""Source-language script left in a translation: KANA_LEFT, HANGUL_LEFT, CJK_LEFT, and the wrong Chinese script
(TRADITIONAL_IN_SIMPLIFIED, SIMPLIFIED_IN_TRADITIONAL).

Text inside a glossary target never counts (an approved target may keep a name in kana or Han). Each check
reports one warning per paragraph: its span is the first run found, its message lists the runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from re import Pattern

from engine.checks.chinese_variants import simplified_only, traditional_only
from engine.checks.glossary import GlossaryTerm, inside, target_spans
from engine.checks.languages import Languages
from engine.checks.warning import Finding, listed

# Hiragana (with the voicing marks and iteration marks ゝゞ), katakana (with ヽヾ and the long-vowel mark ー),
# the small katakana extension and half-width katakana. The middle dot ・ (U+30FB) is punctuation that
# Chinese texts use too, so it is left out; a run of long-vowel marks alone (ーー, a dash) is not kana either.
_KANA_RUN = re.compile("[\u3041-\u3096\u3099-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9f]+")
_LONG_VOWEL_ONLY = re.compile("[\u30fc\uff70]+")
# Hangul syllables, jamo (with the extended blocks) and compatibility jamo (ㅋㅋ).
_HANGUL_RUN = re.compile("[\uac00-\ud7a3\u1100-\u11ff\u3131-\u318e\ua960-\ua97f\ud7b0-\ud7ff]+")
# Han ideographs (unified, extension A, compatibility, the supplementary planes) and 々 〆 〇 〻.
_HAN_RUN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f\u3005-\u3007\u303b]+")


def _runs(
    pattern: Pattern[str], translation: str, glossary: Sequence[GlossaryTerm], skip: Pattern[str] | None = None
) -> list[re.Match[str]]:
    """Matches of ``pattern`` in ``translation`` outside every glossary target."""
    found = [m for m in pattern.finditer(translation) if skip is None or not skip.fullmatch(m.group())]
    spans = target_spans(translation, glossary) if found else []
    return [m for m in found if not inside(spans, m.start(), m.end())] if spans else found


def _finding(code: str, what: str, runs: list[re.Match[str]]) -> Finding:
    texts = list(dict.fromkeys(m.group() for m in runs))
    return Finding(code, f"{what} left in the translation: {listed(texts)}", (runs[0].start(), runs[0].end()))


def _foreign(langs: Languages, language: str) -> bool:
    """Whether the source is in ``language`` and the target is known and in another one."""
    return langs.source_is(language) and langs.target is not None and not langs.target_is(language)


def check_kana(translation: str, langs: Languages, glossary: Sequence[GlossaryTerm]) -> Finding | None:
    """KANA_LEFT: a Japanese source, a non-Japanese target, and hiragana or katakana in the translation."""
    if not _foreign(langs, "ja"):
        return None
    runs = _runs(_KANA_RUN, translation, glossary, skip=_LONG_VOWEL_ONLY)
    return _finding("KANA_LEFT", "Japanese kana", runs) if runs else None


def check_hangul(translation: str, langs: Languages, glossary: Sequence[GlossaryTerm]) -> Finding | None:
    """HANGUL_LEFT: a Korean source, a non-Korean target, and hangul in the translation."""
    if not _foreign(langs, "ko"):
        return None
    runs = _runs(_HANGUL_RUN, translation, glossary)
    return _finding("HANGUL_LEFT", "Korean hangul", runs) if runs else None


def check_han(translation: str, langs: Languages, glossary: Sequence[GlossaryTerm]) -> Finding | None:
    """CJK_LEFT: a target written in Latin letters, and Han characters in the translation."""
    if langs.target is None or not langs.target.latin:
        return None
    runs = _runs(_HAN_RUN, translation, glossary)
    return _finding("CJK_LEFT", "Han characters", runs) if runs else None


# The target's Chinese script -> the code, the characters only the other script writes, and their name.
_OTHER_SCRIPT: dict[str, tuple[str, Callable[[], Pattern[str]], str]] = {
    "simplified": ("TRADITIONAL_IN_SIMPLIFIED", traditional_only, "traditional characters"),
    "traditional": ("SIMPLIFIED_IN_TRADITIONAL", simplified_only, "simplified characters"),
}


def check_chinese_script(translation: str, langs: Languages, glossary: Sequence[GlossaryTerm]) -> Finding | None:
    """TRADITIONAL_IN_SIMPLIFIED / SIMPLIFIED_IN_TRADITIONAL: characters only the other Chinese script writes."""
    script = langs.target.chinese if langs.target is not None else None
    if script is None or _HAN_RUN.search(translation) is None:
        return None
    code, characters, what = _OTHER_SCRIPT[script]
    runs = _runs(characters(), translation, glossary)
    if not runs:
        return None
    chars = list(dict.fromkeys(m.group() for m in runs))
    shown = "".join(chars[:12]) + ("…" if len(chars) > 12 else "")
    return Finding(code, f"{what} in a {script} Chinese translation: {shown}", (runs[0].start(), runs[0].end()))
