"""``export --format xliff|xliff12|po|tmx`` (design section 18): what each writes for every paragraph state, and the
XLIFF documents valid against the vendored OASIS schemas."""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from store.formats.po_write import po_text
from store.formats.tmx_write import tmx_bytes
from store.formats.unit_ids import decode_id, encode_id
from store.formats.xliff2_write import xliff2_bytes
from store.formats.xliff12_write import xliff12_bytes
from store.model import Chapter, Paragraph
from tests.store.formats.exchange_chapters import states_chapter, version
from tests.store.formats.xliff_schemas import problems, xliff2_schema, xliff12_schema

X2 = "{urn:oasis:names:tc:xliff:document:2.0}"
X12 = "{urn:oasis:names:tc:xliff:document:1.2}"


def nmtoken_chapter() -> Chapter:
    """The states chapter without its one ID that is not an NMTOKEN (which the XLIFF 2 schema cannot take)."""
    chapter = states_chapter()
    return chapter.replace(paragraphs=tuple(p for p in chapter.paragraphs if p.id != "p/3"))


def test_xliff2_is_valid_against_the_oasis_core_schema() -> None:
    data = xliff2_bytes([("ch01.json", nmtoken_chapter()), ("ch02.json", nmtoken_chapter().replace(id="ch02"))])
    assert problems(xliff2_schema(), data) == []


def test_the_schema_check_can_fail() -> None:
    data = xliff2_bytes([("ch01.json", nmtoken_chapter())]).replace(b'state="initial"', b'state="done"', 1)
    assert problems(xliff2_schema(), data)


def test_xliff2_units_states_targets_and_notes() -> None:
    root = etree.fromstring(xliff2_bytes([("ch01.json", states_chapter())]))
    assert (root.get("version"), root.get("srcLang"), root.get("trgLang")) == ("2.1", "ja", "en")
    file = root.find(f"{X2}file")
    assert (file.get("id"), file.get("original")) == ("ch01", "ch01.json")
    units = {u.get("id"): u for u in file.iter(f"{X2}unit")}
    assert list(units) == ["a0000001", "a0000002", "a0000004", "a0000005", "a0000006", "p%2F3", "a0000008"]
    states = {uid: u.find(f"{X2}segment").get("state") for uid, u in units.items()}
    assert states["a0000001"] == "initial" and states["a0000002"] == "translated" and states["a0000004"] == "reviewed"
    assert units["a0000001"].find(f"{X2}segment/{X2}target") is None
    assert units["a0000002"].find(f"{X2}segment/{X2}target").text == "Second."
    notes = units["a0000006"].findall(f"{X2}notes/{X2}note")
    assert [(n.get("category"), n.get("appliesTo"), n.text) for n in notes] == [
        ("suggestion", "target", "The sixth. — An article.")
    ]
    cp = units["a0000008"].find(f"{X2}segment/{X2}source/{X2}cp")
    assert cp.get("hex") == "0007"


def test_ids_that_are_not_nmtokens_are_percent_encoded_and_decoded() -> None:
    assert encode_id("p/3") == "p%2F3" and decode_id("p%2F3") == "p/3"
    assert encode_id("e58ed763") == "e58ed763"
    for odd in ("a%b", "段落1", "x y", "~"):
        assert "%" in encode_id(odd) and decode_id(encode_id(odd)) == odd
    assert decode_id("%ZZ") == "%ZZ" and decode_id("%FF") == "%FF"  # no valid encoding: an unknown ID as it is


def test_xliff12_is_valid_against_the_oasis_strict_schema() -> None:
    data = xliff12_bytes([("ch01.json", states_chapter()), ("ch02.json", states_chapter("ch02"))])
    assert problems(xliff12_schema(), data) == []
    broken = data.replace(b'datatype="plaintext"', b"", 1)
    assert problems(xliff12_schema(), broken)


def test_xliff12_files_units_and_approval() -> None:
    root = etree.fromstring(xliff12_bytes([("ch01.json", states_chapter())]))
    file = root.find(f"{X12}file")
    assert (file.get("original"), file.get("datatype")) == ("ch01.json", "plaintext")
    units = {u.get("id"): u for u in file.iter(f"{X12}trans-unit")}
    assert "p/3" in units and "a0000003" not in units  # the ID as it is; an empty paragraph is no unit
    assert units["a0000001"].find(f"{X12}target") is None
    assert units["a0000004"].get("approved") == "yes" and units["a0000002"].get("approved") is None
    assert units["p/3"].find(f"{X12}source").text == "「七」\r\n  と言った。 "


def test_po_entries() -> None:
    text = po_text(states_chapter())
    assert '"X-Proofdesk-Chapter: ch01\\n"' in text and '"Language: en\\n"' in text
    assert 'msgctxt "a0000001"\nmsgid "一つ目。"\nmsgstr ""' in text  # untranslated: no flag
    assert '#, fuzzy\nmsgctxt "a0000002"\nmsgid "二つ目。"\nmsgstr "Second."' in text
    assert '\n\nmsgctxt "a0000004"\nmsgid "四つ目。"\nmsgstr "Fourth."' in text  # reviewed: not fuzzy
    assert '# suggestion: The sixth. — An article.\n#, fuzzy\nmsgctxt "a0000006"' in text
    assert 'msgctxt "a0000003"' not in text


def test_tmx_holds_the_reviewed_pairs_and_reads_back(tmp_path: Path) -> None:
    from store.tmx import read_tmx

    chapter = states_chapter()
    reviewed = Paragraph(
        id="z1", text="「七」", translations=(version("w1", "Seven."),), selected_translation_id="w1", reviewed=True
    )
    chapter = chapter.replace(paragraphs=(*chapter.paragraphs, reviewed))
    path = tmp_path / "memory.tmx"
    path.write_bytes(tmx_bytes([chapter]))
    assert read_tmx(path, "ja", "en") == [("四つ目。", "Fourth."), ("「七」", "Seven.")]
