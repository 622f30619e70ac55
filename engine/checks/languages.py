"""A chapter's language pair as the checks need it: base languages, script, which Chinese.

Codes are BCP 47-ish as chapter files hold them (``ja``, ``en``, ``zh-Hans``, ``zh_TW``); an unknown or missing
code gives a pair the language-dependent checks leave alone.
"""

from __future__ import annotations

from functools import cache
from typing import Literal

from msgspec import Struct

ChineseScript = Literal["simplified", "traditional"]

CJK_LANGUAGES = frozenset({"ja", "zh", "ko"})

# Languages written in Latin letters (ISO 639-1), the targets where Han characters cannot belong.
LATIN_LANGUAGES = frozenset(
    {
        "af",
        "ca",
        "cs",
        "cy",
        "da",
        "de",
        "en",
        "eo",
        "es",
        "et",
        "eu",
        "fi",
        "fil",
        "fr",
        "ga",
        "gl",
        "hr",
        "hu",
        "id",
        "is",
        "it",
        "la",
        "lt",
        "lv",
        "ms",
        "mt",
        "nb",
        "nl",
        "nn",
        "no",
        "pl",
        "pt",
        "ro",
        "sk",
        "sl",
        "sq",
        "sv",
        "sw",
        "tl",
        "tr",
        "vi",
    }
)
_SIMPLIFIED_TAGS = frozenset({"hans", "cn", "sg", "my"})
_TRADITIONAL_TAGS = frozenset({"hant", "tw", "hk", "mo"})


class Language(Struct, frozen=True):
    """One language code, understood."""

    code: str  # lower case, "-" separated
    base: str  # "zh" for "zh-Hant"
    latin: bool  # written in Latin letters
    chinese: ChineseScript | None  # which characters a Chinese text uses; None for other languages


class Languages(Struct, frozen=True):
    """A chapter's source and target language (either may be None: unknown)."""

    source: Language | None
    target: Language | None

    @property
    def differ(self) -> bool:
        """Whether both are known and not the same language (zh-Hans and zh-Hant differ)."""
        return self.source is not None and self.target is not None and self.source.code != self.target.code

    def source_is(self, base: str) -> bool:
        """Whether the source's base language is ``base``."""
        return self.source is not None and self.source.base == base

    def target_is(self, base: str) -> bool:
        """Whether the target's base language is ``base``."""
        return self.target is not None and self.target.base == base


@cache
def language(code: str | None) -> Language | None:
    """``code`` understood, or None when blank."""
    if code is None or not code.strip():
        return None
    norm = code.strip().replace("_", "-").lower()
    parts = norm.split("-")
    base = parts[0]
    tags = set(parts[1:])
    chinese: ChineseScript | None = None
    if base == "zh":
        # A bare "zh" is taken as Simplified, the script of most Chinese readers and of the "zh" locale default.
        chinese = "traditional" if tags & _TRADITIONAL_TAGS else "simplified"
    latin = base in LATIN_LANGUAGES or "latn" in tags
    return Language(norm, base, latin, chinese)


@cache
def languages(source: str | None, target: str | None) -> Languages:
    """The pair for a chapter's ``source_language`` and ``target_language``."""
    return Languages(language(source), language(target))
