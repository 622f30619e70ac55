"""CONTROL_CHARS: a translation holding characters no text should (issue 25, item 7)."""

from __future__ import annotations

import pytest

from tests.engine.checks.cases import Case, assert_fires, assert_quiet, params
from tests.engine.checks.fiction import rashomon

OPENING_EN = "It was one evening. A servant was waiting for the rain to stop under the Rashomon gate."

CONTROLS = {
    "an escape sequence from a terminal": Case(rashomon(4), "It was one \x1b[31mevening\x1b[0m.", marked="\x1b"),
    "a NUL": Case(rashomon(4), OPENING_EN + "\x00", marked="\x00"),
    "a C1 control": Case(rashomon(4), "It was one\x85 evening.", marked="\x85"),
    "a noncharacter": Case(rashomon(4), "It was\ufffe one evening.", marked="\ufffe"),
    "a carriage return": Case(rashomon(4), "It was one evening.\r", marked="\r"),
}
CLEAN = {
    "newline and tab": Case("ある日\nの暮方\tの事である。", "It was\none\tevening."),
    "bidi marks are text, not controls": Case(rashomon(4), "It was one \u200fevening."),
}


@pytest.mark.parametrize("case", params(CONTROLS))
def test_control_characters_fire_as_an_error(case: Case) -> None:
    warning = assert_fires(case, "CONTROL_CHARS")
    assert warning.severity == "error"


@pytest.mark.parametrize("case", params(CLEAN))
def test_newline_tab_and_other_text_stay_quiet(case: Case) -> None:
    assert_quiet(case, "CONTROL_CHARS")
