"""CODES_DIFFER: the translation's inline codes are not the source's set (issue 29, item 2; design section 21)."""

from __future__ import annotations

import pytest

from tests.engine.checks.cases import Case, assert_fires, assert_quiet, params

SOURCE = "彼は⟦1⟧大きな⟦/1⟧門を見た⟦2/⟧。⟦3⟧雨⟦4⟧が⟦/4⟧降る⟦/3⟧"
GOOD = "He saw the ⟦1⟧great⟦/1⟧ gate⟦2/⟧. ⟦3⟧The rain ⟦4⟧was⟦/4⟧ falling⟦/3⟧"

DIFFER = {
    "a standalone code missing": Case(SOURCE, GOOD.replace("⟦2/⟧", "")),
    "a paired code missing": Case(SOURCE, GOOD.replace("⟦1⟧", "").replace("⟦/1⟧", "")),
    "an extra code": Case(SOURCE, GOOD + " ⟦5/⟧", marked="⟦5/⟧"),
    "a standalone code written as paired": Case(SOURCE, GOOD.replace("⟦2/⟧", "⟦2⟧⟦/2⟧"), marked="⟦2⟧"),
    "a repeated code": Case(SOURCE, GOOD + " ⟦2/⟧", marked="⟦2/⟧"),
    "a paired code never closed": Case(SOURCE, GOOD.replace("⟦/1⟧", "") + "⟦/9⟧", marked="⟦/9⟧"),
    "crossing pairs": Case(SOURCE, GOOD.replace("⟦4⟧was⟦/4⟧ falling⟦/3⟧", "⟦4⟧was⟦/3⟧ falling⟦/4⟧"), marked="⟦/3⟧"),
    "a close before its open": Case(SOURCE, GOOD.replace("⟦1⟧great⟦/1⟧", "⟦/1⟧great⟦1⟧"), marked="⟦/1⟧"),
    "codes in a translation of a source without": Case("雨が降る。", "It ⟦1/⟧rains.", marked="⟦1/⟧"),
}
SAME = {
    "the same codes, moved with their words": Case(SOURCE, GOOD),
    "paired codes reordered, nesting kept": Case(SOURCE, "⟦3⟧Rain ⟦4⟧fell⟦/4⟧⟦/3⟧; he saw the ⟦1⟧big⟦/1⟧ gate⟦2/⟧."),
    "literal brackets (escaped) are text": Case("⟦⟦注⟧⟧は⟦1/⟧", "⟦⟦note⟧⟧ is⟦1/⟧"),
    "no codes on either side": Case("雨が降る。", "It rains."),
}


@pytest.mark.parametrize("case", params(DIFFER))
def test_each_kind_of_difference_is_an_error(case: Case) -> None:
    warning = assert_fires(case, "CODES_DIFFER")
    assert warning.severity == "error"


@pytest.mark.parametrize("case", params(SAME))
def test_the_source_set_in_any_order_is_quiet(case: Case) -> None:
    assert_quiet(case, "CODES_DIFFER")


def test_the_message_names_what_differs() -> None:
    warning = assert_fires(Case(SOURCE, GOOD.replace("⟦2/⟧", "") + " ⟦7/⟧ ⟦1⟧x⟦/1⟧"), "CODES_DIFFER")
    assert "missing ⟦2/⟧" in warning.message
    assert "extra ⟦7/⟧" in warning.message
    assert "repeated ⟦1⟧ ⟦/1⟧" in warning.message
