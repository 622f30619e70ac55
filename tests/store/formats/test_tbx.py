"""TBX glossaries (design section 18): ``glossary export --format tbx`` writes TBX-Basic in the 2019 DCA style,
``glossary import FILE.tbx`` reads it back and reads TBX 2008, taking the source term in the workspace's source
language; a hostile TBX is refused with nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import etree

from store.glossary_commit import GlossaryStore
from store.workspace import Workspace
from tests.store.formats.exchange_chapters import states_chapter, write
from tui.cli import main

TBX = "{urn:iso:std:iso:30042:ed-2}"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"

TBX_2008 = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE martif SYSTEM "TBXcoreStructV02.dtd">
<martif type="TBX" xml:lang="en">
  <martifHeader><fileDesc><sourceDesc><p>from a CAT tool</p></sourceDesc></fileDesc></martifHeader>
  <text><body>
    <termEntry id="t1">
      <descrip type="definition">the gate of the story</descrip>
      <langSet xml:lang="en-US"><tig><term>the gate</term></tig></langSet>
      <langSet xml:lang="ja-JP"><tig><term>門</term></tig><ntig><termGrp><term>もん</term></termGrp></ntig></langSet>
    </termEntry>
    <termEntry id="t2">
      <langSet xml:lang="en"><tig><term>only English</term></tig></langSet>
    </termEntry>
  </body></text>
</martif>
"""


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["glossary", *argv])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def workspace(folder: Path) -> Path:
    folder.mkdir()
    write(folder / "ch01.json", states_chapter())  # ja → en
    return folder


def entries(folder: Path) -> list[dict[str, object]]:
    return [e.to_json() for e in GlossaryStore(Workspace(folder)).load().entries]


def test_tbx_export_is_tbx_basic_dca_and_comes_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = workspace(tmp_path / "one")
    cli(capsys, str(one), "add", "下人", "the servant", "--note", "never named", "--alias", "下人さん")
    cli(capsys, str(one), "add", "老婆", "the old woman", "--target-alias", "the crone")
    out = tmp_path / "g.tbx"
    assert cli(capsys, str(one), "export", "--format", "tbx", "-o", str(out))[0] == 0
    root = etree.parse(str(out)).getroot()
    assert (root.tag, root.get("type"), root.get("style")) == (f"{TBX}tbx", "TBX-Basic", "dca")
    first = root.find(f"{TBX}text/{TBX}body/{TBX}conceptEntry")
    assert first.find(f"{TBX}note").text == "never named"
    sections = first.findall(f"{TBX}langSec")
    assert [s.get(XML_LANG) for s in sections] == ["ja", "en"]
    assert [t.text for t in sections[0].iter(f"{TBX}term")] == ["下人", "下人さん"]
    two = workspace(tmp_path / "two")
    code, out_text, _ = cli(capsys, str(two), "import", str(out))
    assert code == 0 and "imported 2 of 2" in out_text
    back = {e["source"]: e for e in entries(two)}
    assert back["下人"]["target"] == "the servant" and back["下人"]["aliases"] == ["下人さん"]
    assert back["下人"]["note"] == "never named" and back["老婆"]["target_aliases"] == ["the crone"]


def test_tbx_2008_takes_the_source_term_in_the_workspace_s_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = workspace(tmp_path / "ws")
    old = tmp_path / "old.tbx"
    old.write_text(TBX_2008, "utf-8")
    assert cli(capsys, str(folder), "import", str(old))[0] == 0
    (entry,) = entries(folder)  # the concept with no Japanese term has no source here
    assert (entry["source"], entry["target"], entry["aliases"], entry["note"]) == (
        "門",
        "the gate",
        ["もん"],
        "the gate of the story",
    )


@pytest.mark.parametrize(
    "hostile",
    [
        '<!DOCTYPE martif [<!ENTITY x SYSTEM "file:///etc/passwd">]><martif><text><body/></text></martif>',
        "<!DOCTYPE martif [<!ELEMENT martif ANY>]><martif/>",
    ],
)
def test_a_hostile_tbx_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], hostile: str) -> None:
    folder = workspace(tmp_path / "ws")
    evil = tmp_path / "evil.tbx"
    evil.write_text(hostile, "utf-8")
    code, _, err = cli(capsys, str(folder), "import", str(evil))
    assert code == 2 and str(evil) in err and len(err.strip().splitlines()) == 1
    assert not (folder / "glossary.json").exists()


def test_tbx_export_without_languages_says_und(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "bare"
    folder.mkdir()
    (folder / "glossary.json").write_text(
        json.dumps({"format": "proofdesk.glossary/1", "entries": [{"id": "1", "source": "a", "target": "b"}]}), "utf-8"
    )
    code, out, _ = cli(capsys, str(folder), "export", "--format", "tbx")
    assert code == 0 and 'xml:lang="und"' in out
