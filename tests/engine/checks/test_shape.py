"""SAME_AS_SOURCE, NUMBERS_DIFFER, NEWLINES_DIFFER and LENGTH_RATIO on real fiction."""

from __future__ import annotations

import pytest

from engine.checks.languages import languages
from engine.checks.length_ratio import expected_ratio, letters
from tests.engine.checks.cases import Case, assert_fires, assert_quiet, params
from tests.engine.checks.fiction import kuangren, rashomon, unsu

OPENING_EN = "It was one evening. A servant was waiting for the rain to stop under the Rashomon gate."
# 「羅生門」 [8], translated whole for these tests.
AUTHOR_EN = (
    "The author wrote a moment ago that “a servant was waiting for the rain to stop.” But even when the rain "
    "stopped, the servant had nothing in particular he meant to do. Ordinarily, of course, he should have gone back "
    "to his master's house. But four or five days earlier that master had dismissed him. As I wrote before, the city "
    "of Kyoto was then in no ordinary decline, and this servant's dismissal by the master he had served for years "
    "was in fact nothing but a small ripple of that decline. So rather than saying “a servant was waiting for the "
    "rain to stop,” it would be more fitting to say “a servant shut in by the rain had nowhere to go and was at his "
    "wits' end.” Besides, the day's weather had no small effect on the Sentimentalisme of this servant of the Heian "
    "period. The rain that had begun after the hour of the Monkey showed no sign yet of letting up. And so the "
    "servant, intent above all on getting through tomorrow somehow—trying, so to speak, to do something about what "
    "could not be helped—had for some time been following aimless thoughts while listening, without really "
    "hearing, to the rain falling on Suzaku Avenue."
)

SAME = {
    "Japanese copied into English": Case(rashomon(4), rashomon(4)),
    "Chinese copied into English": Case(kuangren("【一】", 2), kuangren("【一】", 2), "zh-Hans", "en"),
    "Korean copied, spaces changed": Case(unsu(4), unsu(4).replace(" ", "  ") + "\n", "ko", "en"),
    "Simplified left as it was for Traditional": Case(
        kuangren("【二】", 4), kuangren("【二】", 4), "zh-Hans", "zh-Hant"
    ),
}
NOT_SAME = {
    "a title both languages write": Case(rashomon(1), rashomon(1), target_language="zh-Hant"),
    "an author's name": Case(rashomon(2), rashomon(2), target_language="zh-Hans"),
    "an English word already in the source": Case("OK", "OK"),
    "a Latin word already in the source": Case("Sentimentalisme", "Sentimentalisme"),
    "a date line": Case(rashomon(42), rashomon(42), target_language="zh-Hant"),
    "polishing in one language": Case(rashomon(4), rashomon(4), "ja", "ja"),
    "a translation": Case(rashomon(4), OPENING_EN),
}

NUMBERS = {
    "ASCII digits dropped": Case("　下人は3日も何も食べていなかった。", "The servant had not eaten anything for days."),
    "full-width digits dropped": Case(
        "　梯子の口までは、僅に５歩を数えるばかりである。", "It was only a few steps to the top of the ladder."
    ),
    "a year changed": Case("（1915年9月）", "(September 1916)"),
    "a month changed": Case("（1915年9月）", "(October 1915)"),
    "a number in Chinese": Case("我不见他，已是30多年。", "I had not seen him for decades.", "zh-Hans", "en"),
}
NUMBERS_KEPT = {
    "numbers in kanji": Case(
        rashomon(6)[:60],
        "Why? Because in these two or three years Kyoto had been struck by "
        "one disaster after another: earthquakes, whirlwinds, fires and famines.",
    ),
    "proportions in kanji": Case(
        rashomon(19)[:30],
        "Moved by sixty parts fear and forty parts curiosity, the servant for a while forgot even to breathe.",
    ),
    "spelled out in English": Case("　下人は3日も何も食べていなかった。", "The servant had not eaten for three days."),
    "spelled out in Chinese": Case("　下人は３人いた。", "有三个下人。", target_language="zh-Hans"),
    "a thousands separator": Case("銭は1,000文あった。", "He had 1000 mon."),
    "digits kept": Case("（1915年9月）", "(1915/9)"),
    "a month named": Case("（1915年9月）", "(September 1915)"),
}

NEWLINES = {
    "two lines joined": Case(
        "「おのれ、どこへ行く。」\n　下人は、こう罵った。", "“You wretch, where are you going?” the servant cursed."
    ),
    "a line break added": Case(rashomon(4), "It was one evening.\nA servant was waiting for the rain to stop."),
    "verse lines lost": Case(
        "狮子似的凶心，\n兔子的怯弱，\n狐狸的狡猾，……",
        "The fierce heart of a lion, the timidity of a rabbit,\nthe cunning of a fox...",
        "zh-Hans",
    ),
}
NEWLINES_SAME = {
    "one line each": Case(rashomon(4), OPENING_EN),
    "CRLF against LF": Case(
        "「おのれ、どこへ行く。」\r\n　下人は、こう罵った。", "“You wretch, where are you going?”\nthe servant cursed."
    ),
    "a trailing newline": Case(rashomon(40), "Nobody knows where the servant went.\n"),
    "verse kept": Case(
        "狮子似的凶心，\n兔子的怯弱，\n狐狸的狡猾，……",
        "The fierce heart of a lion,\nthe timidity of a rabbit,\nthe cunning of a fox...",
        "zh-Hans",
    ),
}

LENGTH = {
    "a long paragraph cut to a line": Case(rashomon(8), "The servant waited for the rain to stop."),
    "Chinese cut short": Case(kuangren("【二】", 1), "It was dark today.", "zh-Hans"),
    "padded far beyond the source": Case(rashomon(40), "Nobody knows where the servant went. " + AUTHOR_EN),
    "Korean cut short": Case(unsu(7), "He was happy.", "ko"),
}
LENGTH_FINE = {
    "faithful English": Case(rashomon(4), OPENING_EN),
    "the Latin word is not counted": Case(rashomon(8), AUTHOR_EN),
    "a short line says nothing": Case(rashomon(35), "“Is that really so? Truly, truly, is that so, old woman?”"),
    "Japanese into Chinese": Case(
        rashomon(4), "那是某日傍晚的事。一个仆人在罗生门下等雨停。", target_language="zh-Hans"
    ),
    "Chinese into English": Case(
        kuangren("【一】", 2),
        "I had not seen him for over thirty years; seeing him today, I "
        "feel wonderfully refreshed. So I know now that the thirty-odd years before were all "
        "a daze; but I must be very careful. Otherwise why would that dog of the Zhaos have "
        "looked at me twice?",
        "zh-Hans",
    ),
    "Korean into English": Case(unsu(9), "His wife had been coughing for more than a month now.", "ko"),
}


@pytest.mark.parametrize("case", params(SAME))
def test_same_as_source_fires(case: Case) -> None:
    assert_fires(case, "SAME_AS_SOURCE")


@pytest.mark.parametrize("case", params(NOT_SAME))
def test_same_as_source_stays_quiet(case: Case) -> None:
    assert_quiet(case, "SAME_AS_SOURCE")


@pytest.mark.parametrize("case", params(NUMBERS))
def test_numbers_differ_fires(case: Case) -> None:
    assert_fires(case, "NUMBERS_DIFFER")


@pytest.mark.parametrize("case", params(NUMBERS_KEPT))
def test_numbers_differ_stays_quiet(case: Case) -> None:
    assert_quiet(case, "NUMBERS_DIFFER")


@pytest.mark.parametrize("case", params(NEWLINES))
def test_newlines_differ_fires(case: Case) -> None:
    assert_fires(case, "NEWLINES_DIFFER")


@pytest.mark.parametrize("case", params(NEWLINES_SAME))
def test_newlines_differ_stays_quiet(case: Case) -> None:
    assert_quiet(case, "NEWLINES_DIFFER")


@pytest.mark.parametrize("case", params(LENGTH))
def test_length_ratio_fires(case: Case) -> None:
    assert_fires(case, "LENGTH_RATIO")


@pytest.mark.parametrize("case", params(LENGTH_FINE))
def test_length_ratio_stays_quiet(case: Case) -> None:
    assert_quiet(case, "LENGTH_RATIO")


def test_numbers_message_names_what_is_missing() -> None:
    warning = assert_fires(NUMBERS["a year changed"], "NUMBERS_DIFFER")
    assert warning.message == "numbers of the source missing from the translation: “1915”"
    assert warning.span is None


def test_expected_ratios_of_the_table() -> None:
    assert expected_ratio(languages("ja", "en")) == 2.2
    assert expected_ratio(languages("en", "ja")) == pytest.approx(1 / 2.2)
    assert expected_ratio(languages("zh-Hans", "en")) == 3.0
    assert expected_ratio(languages("ko", "fr")) == 2.0
    assert expected_ratio(languages("ja", "zh-Hant")) == 0.75
    assert expected_ratio(languages("zh", "ja")) == pytest.approx(1 / 0.75)
    assert expected_ratio(languages("de", "en")) == expected_ratio(languages("ja", "ja")) == 1.0
    assert expected_ratio(languages(None, "en")) is None
    assert letters("「おのれ、どこへ行く。」") == 8 and letters("Where, then?") == 9


def test_the_sample_opening_sits_near_the_expected_ratio() -> None:
    """The table's ja → en figure against the hand translations of these tests: within the band, near 1."""
    for source, translation in ((rashomon(4), OPENING_EN), (rashomon(8), AUTHOR_EN)):
        ratio = letters(translation) / letters(source) / 2.2
        assert 0.7 < ratio < 1.5, ratio
