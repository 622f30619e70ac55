"""``proofdesk export --format xliff|xliff12|po|tmx`` and ``proofdesk import FILE --into`` as a user types them: round
trips that leave every byte as it was, a translator's changes coming back by paragraph ID, every refusal (design
section 18)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from store.loader import load_chapter
from store.model import Chapter
from tests.store.formats.exchange_chapters import states_chapter, write
from tui.cli import main


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def without(chapter: Chapter, *ids: str) -> Chapter:
    return chapter.replace(paragraphs=tuple(p for p in chapter.paragraphs if p.id not in ids))


@pytest.fixture
def book(tmp_path: Path) -> Path:
    """A workspace of two chapters in every paragraph state."""
    folder = tmp_path / "book"
    folder.mkdir()
    write(folder / "ch01.json", states_chapter("ch01"))
    write(folder / "ch02.json", states_chapter("ch02"))
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (locks and state included) and its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def chapters_bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("ch*.json"))}


@pytest.mark.parametrize("fmt", ["xliff", "xliff12"])
def test_export_then_import_with_no_change_leaves_every_chapter_byte_identical(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    if fmt == "xliff12":  # XLIFF 1.2 cannot carry the control character (written as U+FFFD; tested below)
        for name in ("ch01", "ch02"):
            write(book / f"{name}.json", without(states_chapter(name), "a0000008"))
    before = chapters_bytes(book)
    out = tmp_path / "book.xlf"
    assert cli(capsys, "export", str(book), "--format", fmt, "-o", str(out))[0] == 0
    code, _, err = cli(capsys, "import", str(out), "--into", str(book))
    assert code == 0, err
    assert "ch01.json: 0 selected, 0 suggested, 0 marked reviewed, " in err and "skipped" not in err
    assert chapters_bytes(book) == before


def test_po_round_trip_of_a_workspace_one_file_per_chapter(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = chapters_bytes(book)
    code, _, err = cli(capsys, "export", str(book), "--format", "po", "-o", f"{tmp_path / 'po'}/")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "po").iterdir()) == ["ch01.po", "ch02.po"]
    for name in ("ch01.po", "ch02.po"):
        assert cli(capsys, "import", str(tmp_path / "po" / name), "--into", str(book))[0] == 0
    assert chapters_bytes(book) == before


def test_a_translator_s_xliff_changes_come_back_by_id(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ch01.xlf"
    cli(capsys, "export", str(book / "ch01.json"), "--format", "xliff", "-o", str(out))
    text = out.read_text("utf-8")
    text = text.replace(
        '<segment state="translated">\n        <source>二つ目。</source>\n        <target>Second.',
        ('<segment state="final">\n        <source>二つ目。</source>\n        <target>The second.'),
    )
    text = text.replace("<target>Fourth.</target>", "<target>The fourth.</target>")  # reviewed: protected
    text = text.replace("he said. </target>", "she said. </target>")  # the unit p%2F3
    out.write_text(text, "utf-8")
    code, _, err = cli(capsys, "import", str(out), "--into", str(book))
    assert code == 0, err
    chapter = load_chapter(book / "ch01.json")
    second = chapter.paragraph("a0000002")
    assert (second.selected_text, second.selected.origin, second.reviewed) == ("The second.", "import", True)
    fourth = chapter.paragraph("a0000004")
    assert fourth.selected_text == "Fourth." and [v.text for v in fourth.pending] == ["The fourth."]
    assert chapter.paragraph("p/3").selected_text == "“Seven,”\r\n  she said. "
    assert "ch01.json: 2 selected, 1 suggested" in err
    assert load_chapter(book / "ch02.json") == states_chapter("ch02")  # the file named ch01 only


def test_a_po_entry_no_longer_fuzzy_is_reviewed(book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    po = tmp_path / "ch01.po"
    cli(capsys, "export", str(book / "ch01.json"), "--format", "po", "-o", str(po))
    po.write_text(po.read_text("utf-8").replace('#, fuzzy\nmsgctxt "a0000002"', 'msgctxt "a0000002"'), "utf-8")
    assert cli(capsys, "import", str(po), "--into", str(book / "ch01.json"))[0] == 0
    para = load_chapter(book / "ch01.json").paragraph("a0000002")
    assert para.reviewed and len(para.translations) == 1


def test_suggest_stores_every_change_as_a_suggestion(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ch01.xlf"
    cli(capsys, "export", str(book / "ch01.json"), "--format", "xliff", "-o", str(out))
    out.write_text(out.read_text("utf-8").replace("<target>Second.", "<target>The second."), "utf-8")
    assert cli(capsys, "import", str(out), "--into", str(book), "--suggest")[0] == 0
    para = load_chapter(book / "ch01.json").paragraph("a0000002")
    assert para.selected_text == "Second." and [v.text for v in para.pending] == ["The second."]


def test_unknown_ids_changed_sources_and_unknown_chapters_are_named_and_the_rest_applied(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "book.xlf"
    cli(capsys, "export", str(book), "--format", "xliff", "-o", str(out))
    text = out.read_text("utf-8")
    text = text.replace("<target>Second.", "<target>The second.", 1)  # ch01: applied
    text = text.replace("<source>四つ目。</source>", "<source>四つ目?</source>", 1)  # ch01: source changed
    text = text.replace('<unit id="a0000005">', '<unit id="zzz">', 1)  # ch01: unknown ID
    text = text.replace('<file id="ch02"', '<file id="ch99"')  # names no chapter
    out.write_text(text, "utf-8")
    before02 = (book / "ch02.json").read_bytes()
    code, _, err = cli(capsys, "import", str(out), "--into", str(book))
    assert code == 1
    assert f"{out}: unit a0000004 (ch01.json): source changed; skipped" in err
    assert f"{out}: unit zzz (ch01.json): unknown ID; skipped" in err
    assert f"{out}: 'ch99' names no chapter given; its 7 units skipped" in err
    assert load_chapter(book / "ch01.json").paragraph("a0000002").selected_text == "The second."
    assert (book / "ch02.json").read_bytes() == before02


def test_xliff12_cannot_carry_a_control_character_and_that_unit_is_named(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ch01.xlf"
    cli(capsys, "export", str(book / "ch01.json"), "--format", "xliff12", "-o", str(out))
    code, _, err = cli(capsys, "import", str(out), "--into", str(book / "ch01.json"))
    assert code == 1 and "unit a0000008 (ch01.json): source changed; skipped" in err


HOSTILE = {
    "external entity": '<?xml version="1.0"?>\n<!DOCTYPE xliff [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
    '<xliff version="2.1" srcLang="ja" xmlns="urn:oasis:names:tc:xliff:document:2.0"><file id="ch01">'
    '<unit id="a0000002"><segment><source>二つ目。</source><target>&x;</target></segment></unit></file></xliff>',
    "billion laughs": '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
    + "".join(f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10 if i > 1 else "&lol;" * 10}">' for i in range(1, 10))
    + ']>\n<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="ch01.json" '
    'datatype="plaintext" source-language="ja"><body><trans-unit id="a0000002"><source>二つ目。</source>'
    "<target>&lol9;</target></trans-unit></body></file></xliff>",
    "a DOCTYPE alone": '<?xml version="1.0"?>\n<!DOCTYPE xliff SYSTEM "http://example.com/xliff.dtd">\n'
    '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"/>',
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_hostile_xml_is_refused_before_anything_is_read(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, encoding: str
) -> None:
    evil = tmp_path / "evil.xlf"
    evil.write_bytes(HOSTILE[case].encode(encoding))
    before = snapshot(book)
    code, out, err = cli(capsys, "import", str(evil), "--into", str(book))
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(evil) in lines[0] and re.search("DOCTYPE|entities", lines[0])
    assert snapshot(book) == before


def test_import_needs_into_and_a_well_formed_file(
    book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "x.xlf"
    bad.write_text("<xliff", "utf-8")
    assert cli(capsys, "import", str(bad))[0] == 2
    code, _, err = cli(capsys, "import", str(bad), "--into", str(book))
    assert code == 2 and "not well-formed" in err
    text = tmp_path / "x.txt"
    text.write_text("a\n", "utf-8")
    assert cli(capsys, "import", str(text), "--into", str(book))[0] == 2


def test_tmx_and_the_format_list(book: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "export", str(book), "--format", "tmx")
    assert code == 0 and out.count("<tu ") == 2  # the reviewed pair of each chapter
    code, _, err = cli(capsys, "export", str(book), "--format", "epub")
    assert code == 2 and "-o OUT.epub" in err
    code, _, err = cli(capsys, "export", str(book), "--format", "po")
    assert code == 2 and "-o DIR/" in err
    code, out, _ = cli(capsys, "export", "--help")
    assert all(name in out for name in ("xliff12", "tmx", "epub", "markdown"))
