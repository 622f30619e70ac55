"""LENGTH_RATIO: a translation far shorter or longer than its source should be, for the language pair.

Length is counted in letters: every character that is a letter or a digit in any script (a Han character, a
kana, a hangul syllable, a Latin letter), so spaces and punctuation never count. A Latin word that the source
already holds (OK, Sentimentalisme in a Japanese text) is left out of both sides: it is copied, not translated,
and would otherwise count as fifteen "characters" of Japanese. The check fires below a third or above three
times the expected ratio, and only from 10 letters of source up (a short line's ratio says nothing).

Expected ratios (target letters per source letter). No parallel text is bundled (Rashomon has no public-domain
English or Chinese reference to measure), so the figures come from translators' rules of thumb, turned into
letters with an English average of 4.4 letters per word of fiction and ~12 % punctuation in CJK text:

- ja → en 2.2: 1,000 Japanese characters become ~400-450 English words; the opening of Rashomon,
  ある日の暮方の事である。一人の下人が、羅生門の下で雨やみを待っていた。 (32 letters), read literally
  "It was one evening. A servant was waiting for the rain to stop under the Rashomon gate." (68 letters), 2.1.
- zh → en 3.0: 1,000 Chinese characters become ~600-650 English words (Chinese writes no kana grammar).
- ko → en 2.0: a hangul syllable carries less than a kanji; 그는 어제 친구와 함께 영화를 보러 갔다 (16) →
  "Yesterday he went to see a movie with a friend" (37), 2.3; shorter sentences run nearer 1.5.
- ja → zh 0.75: a Chinese translation drops the kana of Japanese grammar (羅生門の下で雨やみを待っていた, 15 →
  在罗生门下等雨停, 8, is 0.55 for a kana-heavy line; kanji-heavy narration keeps most characters).
- ja ↔ ko 1.0 and zh → ko 1.4: Korean writes Sino-Korean words one syllable per character, grammar in syllables.
- Every reverse direction is the inverse; a pair of Latin-script languages, or one language (polish,
  proofread), is 1.0; any other Latin-script language counts as English.

With the wide band (a third to three times) these figures only need to be right within a factor of about 1.5
to catch what the check is for: a paragraph cut in half or more, or padded with something that is not the text.
"""

from __future__ import annotations

import re

from engine.checks.languages import CJK_LANGUAGES, Language, Languages
from engine.checks.warning import Finding

_TO_ENGLISH: dict[str, float] = {"ja": 2.2, "zh": 3.0, "ko": 2.0}
_BETWEEN_CJK: dict[tuple[str, str], float] = {
    ("ja", "zh"): 0.75,
    ("zh", "ja"): 1 / 0.75,
    ("ja", "ko"): 1.0,
    ("ko", "ja"): 1.0,
    ("zh", "ko"): 1.4,
    ("ko", "zh"): 1 / 1.4,
}
MIN_SOURCE_LETTERS = 10
BAND = 3.0

_NOT_LETTER = re.compile(r"[\W_]")
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]{2,}")


def _group(lang: Language) -> str:
    return lang.base if lang.base in CJK_LANGUAGES else "latin"


def expected_ratio(langs: Languages) -> float | None:
    """Target letters per source letter for the pair; None when a language is unknown."""
    source, target = langs.source, langs.target
    if source is None or target is None:
        return None
    a, b = _group(source), _group(target)
    if a == b:
        return 1.0
    if b == "latin":
        return _TO_ENGLISH[a]
    if a == "latin":
        return 1 / _TO_ENGLISH[b]
    return _BETWEEN_CJK[(a, b)]


def letters(text: str) -> int:
    """How many letters and digits ``text`` holds, in any script."""
    return len(text) - len(_NOT_LETTER.findall(text))


def _copied_latin(source: str, translation: str) -> tuple[int, int]:
    """Letters of Latin words held by a CJK source, counted in the source and in the translation."""
    words = {w.lower() for w in _LATIN_WORD.findall(source)}
    if not words:
        return 0, 0
    in_source = sum(len(w) for w in _LATIN_WORD.findall(source))
    in_translation = sum(len(w) for w in _LATIN_WORD.findall(translation) if w.lower() in words)
    return in_source, in_translation


def _counted_letters(source: str, translation: str, langs: Languages) -> tuple[int, int]:
    """The letters of the source and of the translation that count: in a CJK source, Latin words it holds (and
    the translation copies) are left out of both."""
    src, tr = letters(source), letters(translation)
    if langs.source is None or langs.source.base not in CJK_LANGUAGES:
        return src, tr
    copied_src, copied_tr = _copied_latin(source, translation)
    return src - copied_src, tr - copied_tr


def check_length(source: str, translation: str, langs: Languages) -> Finding | None:
    """LENGTH_RATIO: the translation's letters, against the source's times the expected ratio, are below a third
    or above three times."""
    ratio = expected_ratio(langs)
    if ratio is None:
        return None
    src, tr = _counted_letters(source, translation, langs)
    if src < MIN_SOURCE_LETTERS:
        return None
    actual = tr / (src * ratio)
    if 1 / BAND <= actual <= BAND:
        return None
    how = "short" if actual < 1 else "long"
    return Finding(
        "LENGTH_RATIO",
        f"the translation is {actual:.2f} times as long as expected for this language "
        f"pair (too {how}: {tr} letters for {src} in the source)",
    )
