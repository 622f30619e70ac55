"""The one diff rule of the workstation (``tui.text_diff``), without the app: words for Latin script, characters
for CJK, both in a mixed text, and ``rewritten`` when more than half changed."""

from __future__ import annotations

import pytest

from tui.text_diff import Piece, TextDiff, text_diff, tokens


def sides(pieces: tuple[Piece, ...]) -> tuple[str, str]:
    """The old and the new text the pieces spell."""
    old = "".join(text for op, text in pieces if op != "insert")
    new = "".join(text for op, text in pieces if op != "delete")
    return old, new


def changes(diff: TextDiff) -> list[Piece]:
    return [piece for piece in diff.pieces if piece[0] != "equal"]


def test_tokens_are_words_in_latin_script_and_characters_in_cjk() -> None:
    assert tokens("The cat, sat.") == ["The", " ", "cat", ",", " ", "sat", "."]
    assert tokens("羅生門の下") == ["羅", "生", "門", "の", "下"]
    assert tokens("Café au 下人 was") == ["Café", " ", "au", " ", "下", "人", " ", "was"]
    assert tokens("e\u0301te\u0301") == ["e\u0301te\u0301"]  # combining accents stay in their word
    assert tokens("안녕 세상") == ["안녕", " ", "세상"]  # Hangul is written with spaces: words


def test_an_english_change_is_a_whole_word() -> None:
    diff = text_diff("The cat sat on the mat.", "The cat sat on a mat.")
    assert diff.pieces == (("equal", "The cat sat on "), ("delete", "the"), ("insert", "a"), ("equal", " mat."))
    assert not diff.rewritten


def test_a_word_changed_in_part_is_replaced_whole() -> None:
    diff = text_diff("He walked home.", "He walks home.")
    assert changes(diff) == [("delete", "walked"), ("insert", "walks")]  # never "walk" + "ed" → "s"


def test_spaces_between_changed_words_belong_to_the_change() -> None:
    diff = text_diff("The big cat sat.", "A small dog sat.")
    assert diff.pieces == (("delete", "The big cat"), ("insert", "A small dog"), ("equal", " sat."))


def test_japanese_and_chinese_are_diffed_by_character() -> None:
    ja = text_diff("羅生門の下で雨やみを待っていた。", "羅生門の下で雨が止むのを待っていた。")
    assert ja.pieces == (
        ("equal", "羅生門の下で雨"),
        ("delete", "やみ"),
        ("insert", "が止むの"),
        ("equal", "を待っていた。"),
    )
    zh = text_diff("他在门下等雨停。", "他在城门下等雨停。")
    assert zh.pieces == (("equal", "他在"), ("insert", "城"), ("equal", "门下等雨停。"))


def test_a_mixed_text_diffs_each_part_by_its_own_rule() -> None:
    diff = text_diff("He said 「こんにちは」 today.", "He said 「こんばんは」 yesterday.")
    assert changes(diff) == [("delete", "にち"), ("insert", "ばん"), ("delete", "today"), ("insert", "yesterday")]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("", ""),
        ("", "New text."),
        ("Old text.", ""),
        ("same", "same"),
        ("a\nb\tc", "a\r\nb c\x1b"),
        ("下人は" * 400 + "。", "下人が" * 400 + "。"),  # long: aligned by sentences first
        ("word " * 600, "word " * 300 + "CHANGED " + "word " * 300),
    ],
)
def test_the_pieces_spell_both_texts(old: str, new: str) -> None:
    assert sides(text_diff(old, new).pieces) == (old, new)


def test_empty_texts() -> None:
    both = text_diff("", "")
    assert both.pieces == () and not both.rewritten
    assert text_diff("", "New.").pieces == (("insert", "New."),) and text_diff("", "New.").rewritten
    assert text_diff("Old.", "").pieces == (("delete", "Old."),) and text_diff("Old.", "").rewritten
    assert not text_diff("  ", "\n").rewritten  # nothing but whitespace: nothing to have rewritten


def test_rewritten_is_more_than_half_of_the_longer_text_changed() -> None:
    # "abcd efgh" → "abcd wxyz": 4 of 8 characters kept (spaces not counted): exactly half, not rewritten
    half = text_diff("abcd efgh", "abcd wxyz")
    assert (half.kept, half.longer, half.rewritten) == (4, 8, False)
    # one character fewer kept: more than half changed
    more = text_diff("abc defgh", "abc wxyzv")
    assert (more.kept, more.longer, more.rewritten) == (3, 8, True)


def test_rewritten_counts_the_longer_side() -> None:
    # everything of the old text is kept, but the new one is more than twice as long: rewritten
    longer_new = text_diff("Yes.", "Yes. And much more besides.")
    assert longer_new.kept == 4 and longer_new.longer == 23 and longer_new.rewritten
    # the same the other way round: most of the old text deleted
    longer_old = text_diff("Yes. And much more besides.", "Yes.")
    assert longer_old.rewritten
    # a short addition to a long text is not
    assert not text_diff("It rained all day in Kyoto.", "It rained all day long in Kyoto.").rewritten


def test_rewritten_in_cjk_counts_characters() -> None:
    kept = text_diff("一二三四五六七八九十", "一二三四五甲乙丙丁戊")  # 5 of 10 kept: half
    assert (kept.kept, kept.longer, kept.rewritten) == (5, 10, False)
    assert text_diff("一二三四五六七八九十", "一二三四甲乙丙丁戊己").rewritten  # 4 of 10 kept


def test_repetitive_text_agrees_where_a_person_sees_it_agree() -> None:
    old, new = "word " * 200, "word " * 100 + "CHANGED " + "word " * 100
    assert text_diff(old, new).pieces == (("equal", "word " * 100), ("insert", "CHANGED "), ("equal", "word " * 100))
