"""The detail pane's line breaker: cell widths, spaces, CJK, kinsoku; every character kept."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len, split_graphemes

from tui.widgets.line_break import NO_END, NO_START, line_breaks, wrap


def width_of(line: str) -> int:
    """The cells a line takes, without the spaces it ends with (they hang past the width)."""
    return cell_len(line.rstrip(" "))


def test_latin_text_breaks_after_spaces_and_keeps_them() -> None:
    assert wrap("hello world, this is a test", 10) == ["hello ", "world, ", "this is a ", "test"]


def test_a_space_after_a_full_line_hangs_instead_of_starting_the_next() -> None:
    assert wrap("aaaaaaaaaa bbb", 10) == ["aaaaaaaaaa ", "bbb"]


def test_a_word_longer_than_the_line_is_cut() -> None:
    assert wrap("supercalifragilistic", 8) == ["supercal", "ifragili", "stic"]


def test_cjk_breaks_between_any_two_characters_and_fills_the_line() -> None:
    assert wrap("一二三四五六七", 6) == ["一二三", "四五六", "七"]


def test_a_wide_character_that_does_not_fit_moves_to_the_next_line_whole() -> None:
    assert wrap("abc一二", 4) == ["abc", "一二"]


def test_no_line_starts_with_closing_punctuation_the_previous_character_goes_down_with_it() -> None:
    assert wrap("一二三。四五", 6) == ["一二", "三。四", "五"]
    assert wrap("一二三」四五", 6) == ["一二", "三」四", "五"]


def test_no_line_starts_with_small_kana_or_the_prolonged_sound_mark() -> None:
    assert wrap("待っていたっ", 6) == ["待って", "いたっ"]
    assert wrap("コーヒーとケーキとチョコレートとジュース", 4) == [
        "コー",
        "ヒー",
        "と",
        "ケー",
        "キと",
        "チョ",
        "コ",
        "レー",
        "トと",
        "ジュ",
        "ース",
    ]


def test_no_line_ends_with_an_opening_bracket() -> None:
    assert wrap("一二「三四", 6) == ["一二", "「三四"]


def test_latin_punctuation_does_not_start_a_line() -> None:
    assert wrap("一二三四五六,", 6) == ["一二三", "四五", "六,"]


def test_a_run_of_closing_marks_longer_than_the_line_has_to_start_a_line() -> None:
    assert wrap("ーーーーーーー", 4) == ["ーー", "ーー", "ーー", "ー"]


def test_the_ideographic_space_is_a_character_of_the_text_not_a_break() -> None:
    lines = wrap("Source: \u3000ある日の暮方の事である。", 20)
    assert lines[0] == "Source: \u3000ある日の暮"
    assert "".join(lines) == "Source: \u3000ある日の暮方の事である。"


def test_clusters_are_never_split() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one emoji, five code points
    lines = wrap("ab" + family + "e\u0301" * 5, 4)
    assert "".join(lines) == "ab" + family + "e\u0301" * 5
    for line in lines:
        assert not line.startswith(("\u200d", "\u0301", "\U0001f469"))


def test_empty_text_is_one_empty_line() -> None:
    assert wrap("", 10) == [""]
    assert line_breaks("", 10) == []


def test_text_that_fits_is_not_broken() -> None:
    assert line_breaks("一二三四五", 10) == []
    assert wrap("five words fit in here", 22) == ["five words fit in here"]


def test_a_width_below_two_cells_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        line_breaks("abc", 1)


def boundaries_inside(line: str) -> list[tuple[str, str]]:
    """Each place a line could be cut (between clusters, not before a space) as the last visible character
    before it and the character after it."""
    starts = [start for start, _, _ in split_graphemes(line)[0][1:]]
    return [(line[:start].rstrip(" ")[-1:], line[start]) for start in starts if line[start] != " "]


def check_lines(text: str, width: int) -> None:
    lines = wrap(text, width)
    assert "".join(lines) == text
    for line in lines:
        assert width_of(line) <= width, (line, width)
    for previous, line in pairwise(lines):
        assert line, "an empty line in the middle"
        assert not line.startswith(" "), "a line after a break starts with a space"
        if line[0] in NO_START or previous.rstrip(" ")[-1:] in NO_END:
            # only when the previous line had no other place to break that keeps the rules
            assert all(after in NO_START or before in NO_END for before, after in boundaries_inside(previous)), (
                previous,
                line,
            )


CJK_MIX = "あいう漢字カナ一二三 abc XY、。，．」』）っゃーァ々「『（,.!?)(]\u3000"


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet=CJK_MIX, max_size=120), width=st.integers(min_value=4, max_value=40))
def test_property_cjk_and_latin_keep_every_character_fit_and_follow_kinsoku(text: str, width: int) -> None:
    check_lines(text, width)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(
    text=st.text(alphabet=st.characters(exclude_characters="\n\t"), max_size=80),
    width=st.integers(min_value=4, max_value=30),
)
@example(text="00⺀ \x1f", width=4)  # a space carrying a control character is one cluster, not a hanging space
def test_property_any_text_keeps_every_character_and_fits(text: str, width: int) -> None:
    lines = wrap(text, width)
    assert "".join(lines) == text
    assert all(width_of(line) <= width for line in lines)
