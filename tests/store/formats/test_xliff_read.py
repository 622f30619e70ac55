"""Reading what a CAT tool may hand back: a paragraph split into segments, inline codes, another tool's file names."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.formats.exchange_input import ExchangeError
from store.formats.units import ImportUnit
from store.formats.xliff_read import read_xliff

HEAD = '<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="ja" trgLang="en"><file id="ch01">'


def units(tmp_path: Path, body: str) -> tuple[ImportUnit, ...]:
    path = tmp_path / "x.xlf"
    path.write_text(HEAD + body + "</file></xliff>", "utf-8")
    (section,) = read_xliff(path)
    return section.units


def test_a_resegmented_unit_is_joined_in_order_and_done_when_every_segment_is(tmp_path: Path) -> None:
    (unit,) = units(
        tmp_path,
        '<unit id="p%2F3"><segment state="final"><source>一。</source><target>One.</target></segment>'
        "<ignorable><source> </source></ignorable>"
        '<segment state="reviewed"><source>二。</source><target>Two.</target></segment></unit>',
    )
    assert unit == ImportUnit("p/3", "一。 二。", "One. Two.", True)


def test_a_segment_without_target_leaves_the_unit_untranslated(tmp_path: Path) -> None:
    (unit,) = units(
        tmp_path,
        '<unit id="a"><segment state="final"><source>一。</source><target>One.</target></segment>'
        "<segment><source>二。</source></segment></unit>",
    )
    assert unit.target is None and not unit.done


def test_inline_codes_carry_no_text_and_marks_keep_theirs(tmp_path: Path) -> None:
    (unit,) = units(
        tmp_path,
        '<unit id="a"><segment><source>a<ph id="1"/>b<cp hex="0007"/></source>'
        '<target><pc id="2">A<mrk id="m" type="term">B</mrk></pc><sc id="3"/>C</target></segment></unit>',
    )
    assert (unit.source, unit.target) == ("ab\x07", "ABC")


def test_what_is_not_xliff_is_refused_in_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "x.xlf"
    path.write_text('<xliff version="3.0"/>', "utf-8")
    with pytest.raises(ExchangeError, match=r"version '3\.0'"):
        read_xliff(path)
    path.write_text("<html/>", "utf-8")
    with pytest.raises(ExchangeError, match="not an XLIFF file"):
        read_xliff(path)
    path.write_bytes(b"\xff\xfe\xfa")
    with pytest.raises(ExchangeError, match="not UTF-16"):
        read_xliff(path)
