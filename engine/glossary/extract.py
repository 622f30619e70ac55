"""Candidate glossary terms found without a model: what a translator would want fixed before a run.

Three kinds of evidence, counted over the chapters given:

- katakana runs (``ヴィンセント``, ``ロンドン``): names and loanwords, two characters or more;
- a name before an honorific (``佐藤さん``, ``老婆様``, ``健太君``, ``先生殿``, ``田中先輩``): the part before
  さん/様/君/殿/先輩/ちゃん/くん/氏 is a character's name;
- repeated kanji compounds (a run of 2–6 kanji, as written between kana and punctuation: ``下人``, ``羅生門``).

Function words never qualify: they are written in hiragana, which no rule takes. Everyday words the rules would
take (``勇気``, ``人間``, ``全然``, a verb stem such as ``見開``, a loanword such as ``テーブル``) are left out by
the stop list of ``common_words.py``, and so is a number with a counter (``一本``, ``二三人``, ``四五日前``) and a
word that only ends like an honorific (``空模様``, ``皆さん``). Candidates below ``min_count`` occurrences are
dropped; the rest come most frequent first (first occurrence breaks ties).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.glossary.common_words import COMMON_WORDS, HONORIFIC_LOOKALIKES

_KATAKANA = re.compile(r"[ァ-ヺ][ァ-ヺー・]+")
_NAME = re.compile(r"([一-龯々ァ-ヺー]{1,6}?)(?:さん|さま|様|君|くん|殿|先輩|ちゃん|氏)")
_KANJI = re.compile(r"[一-龯々]{2,6}")
# A number in kanji (一, 二三, 四五, 何) and a counter after it: 一本, 二三人, 四五日前, 三円, 二階, 一層, 何度.
_COUNTED = re.compile(
    r"[一二三四五六七八九十百千万何数幾]+[人本匹羽段日年月分寸尺歩度番足時回枚個冊軒台頭杯円歳層晩目階間]"
)


@dataclass(frozen=True)
class Candidate:
    """A term worth a glossary entry: how it is written, how often it occurs, and why it was picked."""

    source: str
    count: int
    kind: str  # "character" (before an honorific), "term" (katakana run or kanji compound)


def _is_term(term: str, kind: str) -> bool:
    """Whether ``term`` found by the rule of ``kind`` may be a candidate."""
    if term in COMMON_WORDS or not term.strip("ー・"):
        return False
    return kind == "character" or (len(term) >= 2 and _COUNTED.match(term) is None)


def _found(text: str) -> list[tuple[int, str, str]]:
    """(place, term, kind) of every term the rules find in ``text`` (``_is_term`` judges them once counted). A name
    is not the first part of a word that only ends like an honorific (空模様, 皆さん), and a name with its honorific
    is not a term too (田中様)."""
    names = list(_NAME.finditer(text))
    named = {m.span() for m in names}
    found = [(m.start(), m.group(1), "character") for m in names if not text.endswith(HONORIFIC_LOOKALIKES, 0, m.end())]
    found += [(m.start(), m.group(), "term") for m in _KATAKANA.finditer(text) if m.span() not in named]
    found += [(m.start(), m.group(), "term") for m in _KANJI.finditer(text) if m.span() not in named]
    return found


@dataclass
class _Tally:
    """The candidates counted so far over the texts."""

    counts: Counter[str] = field(default_factory=Counter)
    kinds: dict[str, str] = field(default_factory=dict)
    first: dict[str, int] = field(default_factory=dict)

    def add(self, text: str, position: int) -> None:
        seen: set[tuple[int, str]] = set()
        for at, term, kind in _found(text):
            if (at, term) in seen:  # a name before an honorific is a kanji run or a katakana run too: count once
                continue
            seen.add((at, term))
            self.counts[term] += 1
            if kind == "character" or term not in self.kinds:
                self.kinds[term] = kind
            self.first.setdefault(term, position + at)

    def chosen(self, min_count: int) -> list[Candidate]:
        terms = [t for t, n in self.counts.items() if n >= min_count and _is_term(t, self.kinds[t])]
        terms.sort(key=lambda t: (-self.counts[t], self.first[t]))
        return [Candidate(t, self.counts[t], self.kinds[t]) for t in terms]


def extract_candidates(texts: Iterable[str], *, min_count: int = 2) -> list[Candidate]:
    """The candidates in ``texts``, most frequent first."""
    tally = _Tally()
    position = 0
    for text in texts:
        tally.add(text, position)
        position += len(text) + 1
    return tally.chosen(min_count)
