"""KANA_LEFT, HANGUL_LEFT, CJK_LEFT, TRADITIONAL_IN_SIMPLIFIED, SIMPLIFIED_IN_TRADITIONAL on real fiction."""

from __future__ import annotations

import pytest

from engine.checks import GlossaryTerm
from tests.engine.checks.cases import Case, assert_fires, assert_quiet, params
from tests.engine.checks.fiction import kuangren, rashomon, unsu

OPENING_EN = "It was one evening. A servant was waiting for the rain to stop under the Rashomon gate."
OPENING_ZH_HANS = "那是某日傍晚的事。一个仆人在罗生门下等雨停。"
OPENING_ZH_HANT = "那是某日傍晚的事。一個僕人在羅生門下等雨停。"

KANA_LEFT = {
    "hiragana verb in English": Case(
        rashomon(4),
        "It was one evening. A servant was waiting for the rain to やむ under the Rashomon gate.",
        marked="やむ",
    ),
    "a cry left as it was": Case(rashomon(24), "“おのれ, where do you think you are going?”", marked="おのれ"),
    "particle in Chinese": Case(rashomon(40), "下人の去向，谁也不知道。", target_language="zh-Hans", marked="の"),
    "half-width katakana": Case(
        rashomon(9), "The rain wrapped the Rashomon and gathered a ｻﾞｧｯ from far away.", marked="ｻﾞｧｯ"
    ),
}
KANA_QUIET = {
    "faithful English": Case(rashomon(4), OPENING_EN),
    "the Latin word of the source": Case(
        rashomon(8),
        "Besides, the day's weather had no small effect on the Sentimentalisme of this servant of the Heian period.",
    ),
    "kana inside a glossary target": Case(
        rashomon(23),
        "The old woman (おばあさん) took one look at the servant and sprang up as if shot from a crossbow.",
        glossary=(GlossaryTerm("老婆", "the old woman (おばあさん)"),),
    ),
    "a middle dot and a dash in Chinese": Case(
        "ジョン・スミスは――と言った。", "约翰・史密斯说——", target_language="zh-Hans"
    ),
    "a long-vowel mark used as a dash": Case(rashomon(40), "下人的去向，谁也不知道ーー", target_language="zh-Hans"),
    "Japanese target": Case(rashomon(4), rashomon(4).strip(), source_language="ja", target_language="ja"),
}

HANGUL_LEFT = {
    "an adverb left in English": Case(
        unsu(4),
        "The sky was 새침하게 overcast, as if it would snow, but instead of snow a half-frozen rain was falling.",
        "ko",
        "en",
        marked="새침하게",
    ),
    "the last line": Case(unsu(12), "“Strange indeed! Today my 운수 had been so good……”", "ko", "en", marked="운수"),
    "into Chinese": Case(unsu(9), "他的妻子咳嗽已经一个多月了。쿨럭", "ko", "zh-Hans", marked="쿨럭"),
    "compatibility jamo": Case(
        unsu(4), "It was a sullen, overcast day ㅋㅋ with freezing rain.", "ko", "en", marked="ㅋㅋ"
    ),
}
HANGUL_QUIET = {
    "faithful English": Case(
        unsu(4),
        "The sky was sullenly overcast as if it would snow, but instead of snow a "
        "half-frozen rain kept drizzling down.",
        "ko",
        "en",
    ),
    "hangul inside a glossary target": Case(
        unsu(5),
        "This was a lucky day at last for Kim Cheomji (김 첨지), who pulled a rickshaw inside Dongsomun.",
        "ko",
        "en",
        glossary=(GlossaryTerm("김 첨지", "Kim Cheomji (김 첨지)"),),
    ),
    "a Korean target (polish)": Case(unsu(4), unsu(4) + " ", "ko", "ko"),
    "not a Korean source": Case(rashomon(4), OPENING_EN + " 끝", "ja", "en"),
}

CJK_LEFT = {
    "a word left in English": Case(
        rashomon(4),
        "It was one evening. A 下人 was waiting for the rain to stop under the Rashomon gate.",
        marked="下人",
    ),
    "Chinese into English": Case(kuangren("【一】"), "Tonight the 月光 is very fine.", "zh-Hans", "en", marked="月光"),
    "an untranslated title": Case(rashomon(1), "羅生門", marked="羅生門"),
    "into French": Case(
        rashomon(4),
        "C'était un soir. Un serviteur attendait la fin de la pluie sous le 羅生門.",
        "ja",
        "fr",
        marked="羅生門",
    ),
}
CJK_QUIET = {
    "faithful English": Case(rashomon(4), OPENING_EN),
    "inside a glossary target": Case(
        rashomon(4),
        "It was one evening. A servant was waiting for the rain to stop under the Rashōmon (羅生門).",
        glossary=(GlossaryTerm("羅生門", "Rashōmon (羅生門)"),),
    ),
    "a Chinese target": Case(rashomon(4), OPENING_ZH_HANS, target_language="zh-Hans"),
    "no target language": Case(rashomon(4), OPENING_ZH_HANS, target_language=None),
    "kana is another check's": Case(rashomon(4), "It was one evening. A servant was waiting for the rain to やむ."),
}

TRADITIONAL = {
    "one traditional character": Case(rashomon(40), "下人的去向，誰也不知道。", target_language="zh-Hans", marked="誰"),
    "a traditional sentence": Case(rashomon(4), OPENING_ZH_HANT, target_language="zh-CN", marked="個"),
    "bare zh is simplified": Case(rashomon(24), "“你这家伙，要去哪裡？”", target_language="zh", marked="裡"),
}
TRADITIONAL_QUIET = {
    "faithful simplified": Case(rashomon(4), OPENING_ZH_HANS, target_language="zh-Hans"),
    "characters both scripts write": Case(
        "乾隆の頃、彼は本を著した。", "乾隆年间，他著有一部书，于是名声在外。", target_language="zh-Hans"
    ),
    "a traditional form the glossary keeps": Case(
        rashomon(4),
        "那是某日傍晚的事。一个仆人在羅生門下等雨停。",
        target_language="zh-Hans",
        glossary=(GlossaryTerm("羅生門", "羅生門"),),
    ),
    "Lu Xun's simplified text": Case(kuangren("【二】", 2), kuangren("【二】", 2), "zh-Hans", "zh-Hans"),
}

SIMPLIFIED = {
    "one simplified character": Case(
        rashomon(4), "那是某日傍晚的事。一个僕人在羅生門下等雨停。", target_language="zh-Hant", marked="个"
    ),
    "an unconverted line": Case(kuangren("【一】", 2), kuangren("【一】", 2), "zh-Hans", "zh-Hant", marked="见"),
    "a character left behind": Case(
        kuangren("【二】", 4), "我明白了。這是他们娘老子教的！", "zh-Hans", "zh-TW", marked="们"
    ),
}
SIMPLIFIED_QUIET = {
    "faithful traditional": Case(
        kuangren("【一】", 2),
        "我不見他，已是三十多年；今天見了，精神分外爽快。"
        "才知道以前的三十多年，全是發昏；然而須十分小心。不然，那趙家的狗，"
        "何以看我兩眼呢？",
        "zh-Hans",
        "zh-Hant",
    ),
    "shared characters only": Case(kuangren("【一】"), kuangren("【一】"), "zh-Hans", "zh-Hant"),
    "Japanese into Taiwanese Mandarin": Case(rashomon(40), "下人的去向，誰也不知道。", target_language="zh-TW"),
}


@pytest.mark.parametrize("case", params(KANA_LEFT))
def test_kana_left_fires(case: Case) -> None:
    assert_fires(case, "KANA_LEFT")


@pytest.mark.parametrize("case", params(KANA_QUIET))
def test_kana_left_stays_quiet(case: Case) -> None:
    assert_quiet(case, "KANA_LEFT")


@pytest.mark.parametrize("case", params(HANGUL_LEFT))
def test_hangul_left_fires(case: Case) -> None:
    assert_fires(case, "HANGUL_LEFT")


@pytest.mark.parametrize("case", params(HANGUL_QUIET))
def test_hangul_left_stays_quiet(case: Case) -> None:
    assert_quiet(case, "HANGUL_LEFT")


@pytest.mark.parametrize("case", params(CJK_LEFT))
def test_cjk_left_fires(case: Case) -> None:
    assert_fires(case, "CJK_LEFT")


@pytest.mark.parametrize("case", params(CJK_QUIET))
def test_cjk_left_stays_quiet(case: Case) -> None:
    assert_quiet(case, "CJK_LEFT")


@pytest.mark.parametrize("case", params(TRADITIONAL))
def test_traditional_in_simplified_fires(case: Case) -> None:
    assert_fires(case, "TRADITIONAL_IN_SIMPLIFIED")


@pytest.mark.parametrize("case", params(TRADITIONAL_QUIET))
def test_traditional_in_simplified_stays_quiet(case: Case) -> None:
    assert_quiet(case, "TRADITIONAL_IN_SIMPLIFIED")


@pytest.mark.parametrize("case", params(SIMPLIFIED))
def test_simplified_in_traditional_fires(case: Case) -> None:
    assert_fires(case, "SIMPLIFIED_IN_TRADITIONAL")


@pytest.mark.parametrize("case", params(SIMPLIFIED_QUIET))
def test_simplified_in_traditional_stays_quiet(case: Case) -> None:
    assert_quiet(case, "SIMPLIFIED_IN_TRADITIONAL")


def test_the_message_lists_what_was_left() -> None:
    warning = assert_fires(Case(rashomon(4), "The servant やむ waited, やむ, and ござる."), "KANA_LEFT")
    assert warning.message == "Japanese kana left in the translation: “やむ”, “ござる”"
    assert warning.severity == "error" and warning.span == (12, 14)
