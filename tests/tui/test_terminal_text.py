"""``visible`` and ``json_text``: nothing a terminal acts on survives, everything else is left alone."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from tui.terminal_text import control_pictures, json_text, visible

HOSTILE = ["\x1b]52;c;SGVsbG8=\x07", "\x1b]0;PWNED\x1b\\", "\x1b[2J", "\x9b31m", "\u202e"]
# Every character visible() must escape (newlines=False), and the ones it keeps by default.
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
CONTROL_BUT_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

# Mostly the characters that matter, plus ordinary text (CJK, backslashes, brackets).
interesting = st.text(
    alphabet=st.one_of(
        st.sampled_from("\x00\x07\x08\t\n\r\x1b\x7f\x85\x9b\x9c\u200e\u2028\u202a\u202e\u2066\u2069\\[]abc羅生門"),
        st.characters(codec="utf-8"),
    )
)


def test_hostile_sequences_become_visible_escapes() -> None:
    assert visible("\x1b]52;c;SGVsbG8=\x07") == "\\x1b]52;c;SGVsbG8=\\x07"
    assert visible("\x1b]0;PWNED\x1b\\") == "\\x1b]0;PWNED\\x1b\\"
    assert visible("\x1b[2J") == "\\x1b[2J"
    assert visible("\x9b31m") == "\\x9b31m"
    assert visible("a\u202eb\u2066c") == "a\\u202eb\\u2066c"
    assert visible("\x00\x7f\r") == "\\x00\\x7f\\r"


def test_newlines_and_tabs_are_kept_unless_the_place_is_one_line() -> None:
    assert visible("one\n\ttwo") == "one\n\ttwo"
    assert visible("one\n\ttwo", newlines=False) == "one\\n\\ttwo"


def test_clean_text_is_returned_as_is() -> None:
    text = "羅生門 — [bold]not markup[/] C:\\path\\x1b"
    assert visible(text) is text
    assert visible(text, newlines=False) is text


@given(interesting)
def test_visible_leaves_no_control_character(text: str) -> None:
    assert CONTROL_BUT_LINES.search(visible(text)) is None
    assert CONTROL.search(visible(text, newlines=False)) is None


@given(interesting)
def test_visible_changes_only_text_that_has_controls(text: str) -> None:
    if CONTROL_BUT_LINES.search(text) is None:
        assert visible(text) == text
    else:
        assert visible(text) != text
    if CONTROL.search(text) is None:
        assert visible(text, newlines=False) == text


def test_each_control_reads_as_its_python_escape() -> None:
    for code in range(0x2070):
        char = chr(code)
        if CONTROL.match(char):
            assert visible(char, newlines=False) == repr(char)[1:-1]


def test_a_lone_surrogate_reads_as_its_escape_and_each_control_keeps_one_cell() -> None:
    assert visible("name\udcff.json") == "name\\udcff.json"
    assert control_pictures("a\x1b\n\t\x7f\x9b\u202e\udcffz") == "a\u241b\u240a\u2409\u2421\ufffd\ufffd\ufffdz"
    text = "羅生門\\x1b"
    assert control_pictures(text) is text


def test_json_text_escapes_what_json_dumps_leaves_raw() -> None:
    value = {"t": "羅生門 \x1b[2J \x9b31m \u202e \u2028 \u2029 \x7f", "n": [1, 2]}
    dumped = json_text(value)
    assert json.loads(dumped) == value
    assert "羅生門" in dumped  # CJK stays readable
    for raw in ("\x1b", "\x9b", "\u202e", "\u2028", "\u2029", "\x7f"):
        assert raw not in dumped
    assert "\\u009b" in dumped and "\\u202e" in dumped and "\\u2028" in dumped
    assert json_text({"a": 1}, indent=2) == json.dumps({"a": 1}, indent=2)
    assert json_text({"p": object()}, default=lambda _: "x") == '{"p": "x"}'


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | interesting,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(interesting, inner, max_size=3),
        max_leaves=8,
    )
)
def test_json_text_round_trips_and_has_no_control_character(value: object) -> None:
    dumped = json_text(value, indent=2)
    assert json.loads(dumped) == value
    assert CONTROL_BUT_LINES.search(dumped) is None
    assert "\u2028" not in dumped and "\u2029" not in dumped
