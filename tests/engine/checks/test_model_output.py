"""REPETITION and AI_CHATTER: what a model writes when it goes wrong, against what fiction does on purpose."""

from __future__ import annotations

import random

import pytest

from engine.checks.repetition import _RUN, _may_loop
from tests.engine.checks.cases import Case, assert_fires, assert_quiet, params
from tests.engine.checks.fiction import kuangren, rashomon, unsu

OPENING_EN = "It was one evening. A servant was waiting for the rain to stop under the Rashomon gate."
STRIP = "“Then you won't hold it against me if I strip you. I cannot do otherwise, or I shall starve to death myself.”"

REPEATED = {
    "a sentence twice": Case(
        rashomon(4),
        OPENING_EN + " A servant was waiting for the rain to stop under the Rashomon gate.",
        marked="A servant was waiting for the rain to stop under the Rashomon gate.",
    ),
    "a word in a loop": Case(
        rashomon(40), "Nobody knows where the servant went went went went went went went went went."
    ),
    "a character in a loop": Case(
        kuangren("【一】"),
        "今夜は、とても良い月の光だ。光光光光光光光光光光",
        "zh-Hans",
        "ja",
        marked="光光光光光光光光光光",
    ),
    "a phrase in a loop": Case(
        unsu(6),
        "Thirty jeon the first time, fifty the second — money, money, money, "
        "money, money, money, money, money, money, money.",
        "ko",
    ),
}
NOT_REPEATED = {
    "the source repeats itself": Case(rashomon(30), "“I pull out this hair, I pull out this hair, to make a wig.”"),
    "a cry the source draws out too": Case("「あああああああああ！」", "“Aaaaaaaaaah!”"),
    "Lu Xun's ellipses": Case(
        kuangren("【八】", 4),
        "“Why ask about such things? You really are... joking... The weather is fine today.”",
        "zh-Hans",
    ),
    "a long ellipsis": Case("「……………………」", "“……………………”"),
    "a large number": Case("十億円", "1000000000 yen"),
    "faithful English": Case(rashomon(4), OPENING_EN),
}

CHATTER = {
    "an announced translation": Case(
        rashomon(4), "Here is the translation: " + OPENING_EN, marked="Here is the translation"
    ),
    "a translator's note": Case(
        rashomon(40), "Nobody knows where the servant went. (Note: a 下人 is a low servant.)", marked="(Note:"
    ),
    "an announcement in Chinese": Case(rashomon(40), "以下是翻译：下人的去向，谁也不知道。", target_language="zh-Hans"),
    "a refusal": Case(rashomon(38), "I cannot translate this passage because it describes violence."),
    "a cheerful opening": Case(rashomon(4), "Sure, here's the English version:\n" + OPENING_EN, marked="Sure, here"),
    "a code fence": Case(rashomon(4), "```\n" + OPENING_EN + "\n```", marked="```"),
    "T/N": Case(
        kuangren("【一】", 2),
        "…that dog of the Zhaos looked at me twice? (T/N: the Zhaos are the village's gentry.)",
        "zh-Hans",
        marked="T/N",
    ),
}
NO_CHATTER = {
    "a character who cannot": Case(rashomon(37), STRIP),
    "a narrator who is sure": Case("　確かに、雨は降っていた。", "Sure, it was raining."),
    "the source says it too": Case("T/N stands for the translator's note.", "T/N steht für die Anmerkung.", "en", "de"),
    "as an old man": Case(rashomon(23), "As an old woman would, she sprang up as if shot from a crossbow."),
    "faithful Chinese": Case(rashomon(40), "下人的去向，谁也不知道。", target_language="zh-Hans"),
}


@pytest.mark.parametrize("case", params(REPEATED))
def test_repetition_fires(case: Case) -> None:
    assert_fires(case, "REPETITION")


@pytest.mark.parametrize("case", params(NOT_REPEATED))
def test_repetition_stays_quiet(case: Case) -> None:
    assert_quiet(case, "REPETITION")


@pytest.mark.parametrize("case", params(CHATTER))
def test_ai_chatter_fires(case: Case) -> None:
    assert_fires(case, "AI_CHATTER")


@pytest.mark.parametrize("case", params(NO_CHATTER))
def test_ai_chatter_stays_quiet(case: Case) -> None:
    assert_quiet(case, "AI_CHATTER")


def test_repetition_message_names_the_unit() -> None:
    warning = assert_fires(REPEATED["a word in a loop"], "REPETITION")
    assert warning.message == "“went” repeated 8 times in a row" and warning.severity == "error"


def test_the_cheap_loop_test_never_misses_what_the_regex_finds() -> None:
    """``_may_loop`` is a necessary condition: wherever the full pattern finds a run, it says so too."""
    rng = random.Random(13)
    alphabet = "ab の下人 ……!"
    found = 0
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        if rng.random() < 0.5:
            unit = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 11)))
            at = rng.randrange(0, len(text) + 1)
            text = text[:at] + unit * rng.randrange(6, 10) + text[at:]
        if _RUN.search(text):
            found += 1
            assert _may_loop(text), text
    assert found > 500
