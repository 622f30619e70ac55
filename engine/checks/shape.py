"""What a translation must keep from its source: SAME_AS_SOURCE, NUMBERS_DIFFER, NEWLINES_DIFFER.

Numbers are the ones written with digits in the source (ASCII or full-width): a number written in kanji
(二三年) is words, and its translation may be too. A digit number is found in the translation as digits, or,
up to 100, spelled out in the target language (3人 → "three people", 3人 → 三个人, 9月 → "September").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property

from engine.checks.languages import Languages
from engine.checks.warning import Finding, listed
from engine.counted import counted

_SPACE = re.compile(r"\s+")
_LETTER = re.compile(r"[^\W\d_]")
# Text every language writes alike: a name or title in Han characters alone (羅生門, 芥川龍之介), a Latin word
# (OK, Sentimentalisme), digits. Kana, hangul and CJK sentence punctuation make it a sentence of one language.
_NEUTRAL_WORD = re.compile(r"[^\s\u3041-\u30ff\uac00-\ud7a3。！？，、]{1,20}")


def _squeezed(text: str) -> str:
    return _SPACE.sub("", text)


def check_same_as_source(source: str, translation: str, langs: Languages) -> Finding | None:
    """SAME_AS_SOURCE: the translation is the source again (whitespace ignored) and the languages differ."""
    if not langs.differ or source.lstrip()[:1] != translation.lstrip()[:1]:
        return None
    squeezed = _squeezed(source)
    if squeezed != _squeezed(translation):
        return None
    if _LETTER.search(squeezed) is None or _NEUTRAL_WORD.fullmatch(source.strip()):
        return None  # nothing to translate: punctuation and digits, a name, a title, a word both languages use
    return Finding("SAME_AS_SOURCE", "the translation is the same as the source", (0, len(translation)))


_FULL_WIDTH_DIGITS = str.maketrans("０１２３４５６７８９，．", "0123456789,.")
_NUMBER = re.compile(r"[0-9０-９]+(?:[.,．，][0-9０-９]+)*")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+")

_EN_UNITS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
_EN_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_HAN_DIGITS = "〇一二三四五六七八九"


def _english(n: int) -> tuple[str, ...]:
    if n < 20:
        return (_EN_UNITS[n],)
    if n == 100:
        return ("hundred",)
    tens, unit = divmod(n, 10)
    word = _EN_TENS[tens - 2]
    return (word,) if unit == 0 else (f"{word}-{_EN_UNITS[unit]}", f"{word} {_EN_UNITS[unit]}")


def _han(n: int) -> tuple[str, ...]:
    if n < 10:
        return (_HAN_DIGITS[n], "两") if n == 2 else (_HAN_DIGITS[n],)
    if n == 100:
        return ("百",)
    tens, unit = divmod(n, 10)
    word = ("" if tens == 1 else _HAN_DIGITS[tens]) + "十" + ("" if unit == 0 else _HAN_DIGITS[unit])
    return (word,)


def _normal(number: str) -> str:
    """``number`` in ASCII digits, without thousands separators or leading zeros."""
    plain = number.translate(_FULL_WIDTH_DIGITS)
    if _THOUSANDS.fullmatch(plain):
        plain = plain.replace(",", "")
    if plain.isdigit():
        return plain.lstrip("0") or "0"
    return plain


_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)


def _spelled(number: str, langs: Languages, month: bool) -> tuple[str, ...]:
    """How the target language may write ``number`` (normalised) in words; empty when only digits will do.
    ``month``: the source writes it as a month (9月), which English names (September)."""
    if not number.isdigit() or int(number) > 100 or langs.target is None:
        return ()
    speller = _SPELLERS.get(langs.target.base)
    return () if speller is None else speller(int(number), month)


def _english_words(n: int, month: bool) -> tuple[str, ...]:
    return (*_english(n), _MONTHS[n - 1]) if month and 1 <= n <= 12 else _english(n)


def _han_words(n: int, month: bool) -> tuple[str, ...]:
    return _han(n)


_SPELLERS: dict[str, Callable[[int, bool], tuple[str, ...]]] = {
    "en": _english_words,
    "zh": _han_words,
    "ja": _han_words,
}


class _Lowered:
    """A text, lower-cased once when first needed."""

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def lower(self) -> str:
        return self.text.lower()


def _number_kept(raw: str, end: int, source: str, have: set[str], langs: Languages, translation: _Lowered) -> bool:
    """Whether the number ``raw`` of the source (ending at ``end``) is in the translation, in digits or words."""
    number = _normal(raw)
    if number in have:
        return True
    words = _spelled(number, langs, source.startswith("月", end))
    return any(re.search(rf"(?<![a-z]){w}(?![a-z])", translation.lower) for w in words)


def check_numbers(source: str, translation: str, langs: Languages) -> Finding | None:
    """NUMBERS_DIFFER: a number written with digits in the source is missing from the translation."""
    found = {m.group(): m.end() for m in _NUMBER.finditer(source)}
    if not found:
        return None
    have = {_normal(n) for n in _NUMBER.findall(translation)}
    text = _Lowered(translation)
    missing = [raw for raw, end in found.items() if not _number_kept(raw, end, source, have, langs, text)]
    if not missing:
        return None
    return Finding("NUMBERS_DIFFER", f"numbers of the source missing from the translation: {listed(missing)}")


def _inner_newlines(text: str) -> int:
    return text.replace("\r\n", "\n").strip("\n\r \t\u3000").count("\n")


def check_newlines(source: str, translation: str) -> Finding | None:
    """NEWLINES_DIFFER: the number of line breaks inside the paragraph differs."""
    expected = _inner_newlines(source)
    actual = _inner_newlines(translation)
    if expected == actual:
        return None
    return Finding(
        "NEWLINES_DIFFER",
        f"the source has {counted(expected, 'line break')} inside the paragraph, the translation {actual}",
    )
