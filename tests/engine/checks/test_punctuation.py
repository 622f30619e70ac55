"""QUOTES_UNBALANCED, QUOTES_LOST, END_PUNCTUATION on real fiction."""

from __future__ import annotations

import pytest

from tests.engine.checks.cases import Case, assert_fires, assert_quiet, params
from tests.engine.checks.fiction import kuangren, rashomon, unsu

WHERE = "“You wretch, where do you think you are going?”"
STRIP = "“Then you won’t hold it against me if I strip you. I’m a man who’d starve to death if I didn’t do the same.”"
TELL_ME = "I am not afraid; I go my own way. I could not help shouting, “Tell me!” And they ran away."

UNBALANCED = {
    "a closing quote lost": Case(rashomon(24), "“You wretch, where do you think you are going?", marked="“"),
    "a closing quote without an opening": Case(
        rashomon(26), "What were you doing? Speak! If you don’t, this is what you’ll get.”", marked="”"
    ),
    "nested corner brackets broken": Case(
        "「『下人が雨やみを待っていた』と書いた。」",
        "「我写过『下人在等雨停。」",
        target_language="zh-Hans",
        marked="『",
    ),
    "a bracket left open": Case(
        kuangren("【二】", 2), TELL_ME.replace("ran away.", "ran (away."), "zh-Hans", marked="("
    ),
}
BALANCED = {
    "faithful English": Case(rashomon(24), WHERE),
    "nested corner brackets": Case(
        "「『下人が雨やみを待っていた』と書いた。」", "「我写过『下人在等雨停』。」", target_language="zh-Hans"
    ),
    "apostrophes between letters": Case(rashomon(37), STRIP),
    "a plural possessive and an elision": Case(rashomon(12), "He looked round the servants’ gate; ’twas empty."),
    "the source is unbalanced too": Case("「雨はまだやまない。", "“The rain still had not stopped."),
    "a numbered list": Case("一）門\n二）梯子", "1) the gate\n2) the ladder", target_language="en"),
}

LOST = {
    "Japanese dialogue": Case(rashomon(24), "You wretch, where do you think you are going?"),
    "Lu Xun's 『』 dialogue": Case(kuangren("【二】", 2), TELL_ME.replace("“Tell me!”", "tell me!"), "zh-Hans"),
    "Korean dialogue": Case(unsu(12), "Strange indeed! Today my luck had been so good……", "ko"),
    "into Chinese": Case(rashomon(26), "你在干什么？说！不说，就给你这个。", target_language="zh-Hans"),
}
KEPT = {
    "curly quotes": Case(rashomon(24), WHERE),
    "straight single quotes": Case(rashomon(24), "'You wretch, where do you think you are going?'"),
    "corner brackets in Chinese": Case(
        rashomon(26), "「你在干什么？说！不说，就给你这个。」", target_language="zh-Hans"
    ),
    "a book title in 『』": Case("『羅生門』を読んだ。", "I read Rashomon.", target_language="en"),
    "no dialogue in the source": Case(rashomon(4), "It was one evening. A servant was waiting for the rain to stop."),
}

END_DIFFERS = {
    "a question lost": Case(
        kuangren("【一】", 2),
        "I had not seen him for over thirty years; seeing him today, I "
        "feel wonderfully refreshed. So the thirty-odd years before were all a daze; but I must "
        "be very careful. Otherwise, that dog of the Zhaos would not have looked at me twice.",
        "zh-Hans",
    ),
    "an exclamation lost": Case(
        kuangren("【二】", 4), "I understand. It was their parents who taught them.", "zh-Hans"
    ),
    "an ellipsis lost": Case(
        kuangren("【六】", 2), "The fierce heart of a lion, the timidity of a rabbit, the cunning of a fox.", "zh-Hans"
    ),
    "an exclamation added": Case(rashomon(40), "Nobody knows where the servant went!", marked="!"),
}
END_SAME = {
    "…… as ...": Case(
        kuangren("【六】", 2),
        "The fierce heart of a lion, the timidity of a rabbit, the cunning of a fox...",
        "zh-Hans",
    ),
    "…… as … inside quotes": Case(unsu(12), "“How strange! Today my luck held so well…”", "ko"),
    "a question through closing quotes": Case(kuangren("【八】", 3), "“Is it right?”", "zh-Hans"),
    "a Japanese question without ？": Case(rashomon(24), WHERE),
    "？！ as ?!": Case("「まだ雨がやまないのか？！」", "“Is it still raining?!”"),
    "―― trailing off as …": Case("下人は考えた――", "The servant thought…"),
    "a plain statement": Case(rashomon(40), "Nobody knows where the servant went."),
}


@pytest.mark.parametrize("case", params(UNBALANCED))
def test_quotes_unbalanced_fires(case: Case) -> None:
    assert_fires(case, "QUOTES_UNBALANCED")


@pytest.mark.parametrize("case", params(BALANCED))
def test_quotes_unbalanced_stays_quiet(case: Case) -> None:
    assert_quiet(case, "QUOTES_UNBALANCED")


@pytest.mark.parametrize("case", params(LOST))
def test_quotes_lost_fires(case: Case) -> None:
    assert_fires(case, "QUOTES_LOST")


@pytest.mark.parametrize("case", params(KEPT))
def test_quotes_lost_stays_quiet(case: Case) -> None:
    assert_quiet(case, "QUOTES_LOST")


@pytest.mark.parametrize("case", params(END_DIFFERS))
def test_end_punctuation_fires(case: Case) -> None:
    assert_fires(case, "END_PUNCTUATION")


@pytest.mark.parametrize("case", params(END_SAME))
def test_end_punctuation_stays_quiet(case: Case) -> None:
    assert_quiet(case, "END_PUNCTUATION")


def test_end_punctuation_says_which_side() -> None:
    lost = assert_fires(END_DIFFERS["a question lost"], "END_PUNCTUATION")
    assert lost.message == "the source ends with a question mark and the translation does not"
    added = assert_fires(END_DIFFERS["an exclamation added"], "END_PUNCTUATION")
    assert added.message == "the translation ends with an exclamation mark and the source does not"
    assert added.severity == "info"
