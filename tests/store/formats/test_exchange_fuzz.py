"""Any text survives the trip out and back: a paragraph's source and translation written to XLIFF 2.1 or PO and read
back are the same strings (spaces, CR, tabs, U+2028, ``]]>``, control characters, lone surrogates aside), and so
through XLIFF 1.2 for every text XML can hold. An ID of any characters comes back too."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store.formats.po_read import read_po
from store.formats.po_write import po_text
from store.formats.xliff2_write import xliff2_bytes
from store.formats.xliff12_write import xliff12_bytes
from store.formats.xliff_read import read_xliff
from store.formats.xml_chars import xml_safe
from store.model import Chapter, Paragraph, is_empty_text
from tests.store.formats.exchange_chapters import version

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# Any character but a lone surrogate (a chapter file is UTF-8 JSON; no writer can put one in a PO or XML file).
TEXT = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=40).filter(
    lambda t: not is_empty_text(t)
)
IDS = st.text(st.characters(exclude_categories=("Cs", "Zs", "Cc")), min_size=1, max_size=12).filter(
    lambda t: not any(c.isspace() for c in t)
)


def chapter_of(pid: str, source: str, target: str) -> Chapter:
    para = Paragraph(id=pid, text=source, translations=(version("v1", target),), selected_translation_id="v1")
    return Chapter(id="ch01", source_language="ja", target_language="en", paragraphs=(para,))


@FUZZ
@given(pid=IDS, source=TEXT, target=TEXT)
def test_xliff2_and_po_give_back_every_text(tmp_path: Path, pid: str, source: str, target: str) -> None:
    chapter = chapter_of(pid, source, target)
    xlf, po = tmp_path / "x.xlf", tmp_path / "x.po"
    xlf.write_bytes(xliff2_bytes([("ch01.json", chapter)]))
    po.write_text(po_text(chapter), "utf-8")
    for path, read in ((xlf, read_xliff), (po, read_po)):
        (section,) = read(path)
        (unit,) = section.units
        assert (section.key, unit.paragraph_id, unit.source, unit.target) == ("ch01", pid, source, target)


@FUZZ
@given(source=TEXT.map(xml_safe), target=TEXT.map(xml_safe))
def test_xliff12_gives_back_every_text_xml_can_hold(tmp_path: Path, source: str, target: str) -> None:
    xlf = tmp_path / "x.xlf"
    xlf.write_bytes(xliff12_bytes([("ch01.json", chapter_of("a1", source, target))]))
    (section,) = read_xliff(xlf)
    assert [(u.source, u.target) for u in section.units] == [(source, target)]
