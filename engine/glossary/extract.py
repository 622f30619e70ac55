"""Candidate glossary terms found without a model: what a translator would want fixed before a run.

Three kinds of evidence, counted over the chapters given:

- katakana runs (``ヴィンセント``, ``ロンドン``): names and loanwords, two characters or more;
- a name before an honorific (``佐藤さん``, ``老婆様``, ``健太君``, ``先生殿``, ``田中先輩``): the part before
  さん/様/君/殿/先輩/ちゃん/くん/氏 is a character's name;
- repeated kanji compounds (a run of 2–6 kanji, as written between kana and punctuation: ``下人``, ``羅生門``).

Function words never qualify: they are written in hiragana, which no rule takes, and the few kanji adverbs and
pronouns of fiction (``何故``, ``自分``, ``此処`` …) are left out by name. Candidates below ``min_count``
occurrences are dropped; the rest come most frequent first (first occurrence breaks ties).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

_KATAKANA = re.compile(r"[ァ-ヺ][ァ-ヺー・]+")
_NAME = re.compile(r"([一-龯々ァ-ヺー]{1,6}?)(?:さん|さま|様|君|くん|殿|先輩|ちゃん|氏)")
_KANJI = re.compile(r"[一-龯々]{2,6}")
_COMMON = frozenset(
    {
        "何故",
        "自分",
        "此処",
        "其処",
        "彼処",
        "何処",
        "一人",
        "二人",
        "今日",
        "明日",
        "昨日",
        "其の",
        "此の",
        "彼の",
        "我々",
        "人々",
        "時々",
        "色々",
        "一番",
        "一度",
        "一緒",
        "以上",
        "以下",
        "今度",
        "唯一",
        "丁度",
        "到頭",
        "矢張",
        "如何",
        "何時",
        "何人",
        "大抵",
        "勿論",
        "所々",
        "先刻",
        "少時",
        "一時",
        "今夜",
        "今朝",
        "毎日",
        "是非",
        "大分",
        "出来",
        "仕方",
        "一通",
        "一番上",
        "様子",
        "有様",
        "以前",
        "以後",
        "最後",
        "最初",
        "途中",
        "場合",
        "必要",
    }
)


@dataclass(frozen=True)
class Candidate:
    """A term worth a glossary entry: how it is written, how often it occurs, and why it was picked."""

    source: str
    count: int
    kind: str  # "character" (before an honorific), "term" (katakana run or kanji compound)


def extract_candidates(texts: Iterable[str], *, min_count: int = 2) -> list[Candidate]:
    """The candidates in ``texts``, most frequent first."""
    counts: Counter[str] = Counter()
    kinds: dict[str, str] = {}
    first: dict[str, int] = {}
    position = 0
    for text in texts:
        found: list[tuple[int, str, str]] = []
        found += [(m.start(), m.group(1), "character") for m in _NAME.finditer(text)]
        found += [(m.start(), m.group(), "term") for m in _KATAKANA.finditer(text)]
        found += [(m.start(), m.group(), "term") for m in _KANJI.finditer(text)]
        seen: set[tuple[int, str]] = set()
        for at, term, kind in found:
            if (at, term) in seen:  # a name before an honorific is a kanji run or a katakana run too: count once
                continue
            seen.add((at, term))
            if term in _COMMON or (len(term) < 2 and kind != "character") or not term.strip("ー・"):
                continue
            counts[term] += 1
            if kind == "character" or term not in kinds:
                kinds[term] = kind
            first.setdefault(term, position + at)
        position += len(text) + 1
    chosen = [t for t, n in counts.items() if n >= min_count]
    chosen.sort(key=lambda t: (-counts[t], first[t]))
    return [Candidate(t, counts[t], kinds[t]) for t in chosen]
