"""``proofdesk glossary``: list, add, approve, remove, import, export and extract, as a user types them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from store.glossary_commit import GlossaryStore
from store.workspace import Workspace
from tui.cli import main
from tui.sample import sample_bytes

HIRAGANA_ONLY = re.compile(r"^[ぁ-ゖー]+$")
FUNCTION_WORDS = {"の", "こと", "もの", "それ", "これ", "ある", "いる", "云う", "する", "この", "その", "何故", "自分"}


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["glossary", *argv])
    except SystemExit as exc:  # argparse's own usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    path = tmp_path / "rashomon.json"
    path.write_bytes(sample_bytes())
    return path


def test_extract_finds_the_story_s_names_and_no_function_words(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = cli(capsys, str(sample.parent), "extract", str(sample), "--add")
    assert code == 0
    entries = GlossaryStore(Workspace(sample.parent)).load().entries
    top = [e.source for e in entries[:5]]
    assert top[:2] == ["下人", "老婆"] and "羅生門" in [e.source for e in entries[:10]]
    assert all(e.status == "proposed" and e.origin == "extract" and e.target == "" for e in entries)
    assert not [e.source for e in entries if HIRAGANA_ONLY.match(e.source) or e.source in FUNCTION_WORDS]
    assert "candidates added as proposed" in out
    again = cli(capsys, str(sample.parent), "extract", str(sample), "--add")
    assert again[0] == 0 and len(GlossaryStore(Workspace(sample.parent)).load().entries) == len(entries)
    assert "0 candidates added as proposed" in again[1] and f"{len(entries)} already in the glossary" in again[1]
    # filling in a candidate's target keeps its place and ID, and approves it
    code, out, _ = cli(capsys, str(sample), "add", "下人", "the servant", "--kind", "character")
    after = GlossaryStore(Workspace(sample.parent)).load()
    assert code == 0 and "added: 下人 → the servant (character)" in out
    assert after.entries[0].id == entries[0].id and after.entries[0].status == "approved"


def test_extract_shows_the_candidates_and_writes_nothing_without_add(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    glossary = sample.parent / "glossary.json"
    code, out, _ = cli(capsys, str(sample.parent), "extract", str(sample))
    assert code == 0 and not glossary.exists()
    lines = out.splitlines()
    assert lines[0].split() == ["43", "term", "下人"] and lines[1].split() == ["27", "term", "老婆"]
    assert len(lines) - 1 <= 20 and not {"勇気", "人間", "全然", "同時", "一本"} & {ln.split()[-1] for ln in lines[:-1]}
    assert lines[-1].startswith(f"{len(lines) - 1} candidates (0 already in the glossary); nothing written: --add")
    assert cli(capsys, str(sample), "add", "下人", "the servant")[0] == 0
    before = glossary.read_bytes()
    code, out, _ = cli(capsys, str(sample.parent), "extract", str(sample), "--min-count", "8")
    assert code == 0 and glossary.read_bytes() == before
    assert [ln.split()[-1] for ln in out.splitlines()[:-1]] == [
        "glossary)",
        "老婆",
        "死骸",
        "梯子",
        "羅生門",
        "死人",
        "饑死",
    ]
    assert out.splitlines()[0].endswith("下人  (in the glossary)") and "--add adds the 6 new ones" in out
    code, out, _ = cli(capsys, str(sample.parent), "extract", str(sample), "--min-count", "8", "--add")
    added = GlossaryStore(Workspace(sample.parent)).load().entries[1:]
    assert [e.source for e in added] == ["老婆", "死骸", "梯子", "羅生門", "死人", "饑死"]
    assert all(e.origin == "extract" and e.status == "proposed" and e.note.startswith("found ") for e in added)


def test_add_list_approve_remove(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = str(tmp_path)
    assert (
        cli(
            capsys,
            ws,
            "add",
            "老婆",
            "the old woman",
            "--kind",
            "character",
            "--gender",
            "female",
            "--alias",
            "老婆さん",
            "--note",
            "nameless",
        )[0]
        == 0
    )
    assert cli(capsys, ws, "add", "Kyoto", "Kyoto", "--kind", "place")[0] == 0
    code, _, err = cli(capsys, ws, "add", "KYOTO", "Miyako")
    assert code == 2 and "already has 'Kyoto' → 'Kyoto'" in err
    code, out, _ = cli(capsys, ws, "list", "--json")
    listed = json.loads(out)
    assert [e["source"] for e in listed] == ["老婆", "Kyoto"] and listed[0]["aliases"] == ["老婆さん"]
    first = listed[0]["id"]
    proposed = GlossaryStore(Workspace(tmp_path)).load()
    assert all(e.status == "approved" for e in proposed.entries)
    assert cli(capsys, ws, "remove", first)[0] == 0
    code, out, _ = cli(capsys, ws, "list")
    assert code == 0 and "Kyoto → Kyoto" in out and "老婆" not in out
    code, _, err = cli(capsys, ws, "approve", "nope")
    assert code == 2 and err.strip() == "proofdesk: glossary.json: there is no glossary entry 'nope'"
    code, _, err = cli(capsys, ws, "add", "x", "y", "--kind", "planet")
    assert code == 2 and "invalid choice: 'planet'" in err
    code, _, err = cli(capsys, ws, "add", "  ", "y")
    assert code == 2 and err.strip() == "proofdesk: glossary add: source: String should have at least 1 character"


def test_import_galtransl_tsv_and_csv_then_export_round_trips(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    galtransl = tmp_path / "GPT字典.txt"
    galtransl.write_text(
        "// GalTransl dictionary\n下人\tthe servant\tprotagonist\n\n老婆\tthe old woman\t\n", encoding="utf-8"
    )
    code, out, _ = cli(capsys, str(tmp_path), "import", str(galtransl))
    assert code == 0 and "imported 2 of 2 entries" in out
    table = tmp_path / "terms.csv"
    table.write_text(
        'source,target,note,kind\n羅生門,"the Rashomon gate, Kyoto",city gate,place\n下人,the lackey,,term\n',
        encoding="utf-8",
    )
    code, out, _ = cli(capsys, str(tmp_path), "import", str(table))
    assert code == 0 and "imported 1 of 2 entries" in out  # 下人 is there already: kept as it was
    entries = {e.source: e for e in GlossaryStore(Workspace(tmp_path)).load().entries}
    assert entries["下人"].target == "the servant" and entries["羅生門"].kind == "place"
    assert entries["羅生門"].target == "the Rashomon gate, Kyoto" and entries["下人"].origin == "import"
    # Not into the workspace itself: a .json file there would be listed as a chapter (and is refused).
    exports = tmp_path / "exports"
    exports.mkdir()
    for form in ("tsv", "csv", "json"):
        out_file = exports / f"export.{form}"
        assert cli(capsys, str(tmp_path), "export", "--format", form, "-o", str(out_file))[0] == 0
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    for form in ("tsv", "csv"):
        (fresh / "glossary.json").unlink(missing_ok=True)
        assert cli(capsys, str(fresh), "import", str(exports / f"export.{form}"))[0] == 0
        again = {e.source: (e.target, e.note, e.kind) for e in GlossaryStore(Workspace(fresh)).load().entries}
        assert again == {s: (e.target, e.note, e.kind) for s, e in entries.items()}
    assert json.loads((exports / "export.json").read_text())["format"] == "proofdesk.glossary/1"


def test_bad_files_are_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "bad.tsv"
    table.write_text("a\tb\n\tc\n", encoding="utf-8")
    code, _, err = cli(capsys, str(tmp_path), "import", str(table))
    assert code == 2 and f"{table}:2: a row needs a source and a target" in err
    table.write_text("source\ttarget\tnote\tkind\nx\ty\t\tthing\n", encoding="utf-8")
    code, _, err = cli(capsys, str(tmp_path), "import", str(table))
    assert code == 2 and ":2: kind must be one of term, character, place, do_not_translate, not 'thing'" in err
    (tmp_path / "glossary.json").write_text('{"format": "proofdesk.glossary/1", "entries": [1]}')
    code, _, err = cli(capsys, str(tmp_path), "list")
    assert code == 2 and "glossary.json: entries.0" in err and len(err.strip().splitlines()) == 1
    code, _, err = cli(capsys, str(tmp_path / "missing"), "list")
    assert code == 2 and "no such folder or chapter file" in err
    code, _, err = cli(capsys, str(tmp_path))
    assert code == 2 and "name an action" in err


def test_values_that_are_not_utf8_and_huge_cells_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A non-UTF-8 byte in argv arrives as a lone surrogate (surrogateescape); the glossary must stay as it was.
    assert cli(capsys, str(tmp_path), "add", "a", "b")[0] == 0
    before = (tmp_path / "glossary.json").read_bytes()
    for argv in (
        ["add", "x", "b\udcff"],
        ["add", "\udcff", "y"],
        ["add", "x", "y", "--note", "n\udcff"],
        ["add", "x", "y", "--alias", "\udcffz"],
    ):
        code, _, err = cli(capsys, str(tmp_path), *argv)
        assert code == 2 and err.count("\n") == 1 and "UTF-8" in err and "Traceback" not in err, err
        assert (tmp_path / "glossary.json").read_bytes() == before
    table = tmp_path / "big.tsv"
    table.write_text("source\ttarget\n下人\t" + "x" * 140_000 + "\n", encoding="utf-8")
    code, _, err = cli(capsys, str(tmp_path), "import", str(table))
    assert code == 2 and err.count("\n") == 1 and f"{table}:2:" in err and "131,072" in err, err
    assert (tmp_path / "glossary.json").read_bytes() == before


def test_a_target_alias_is_added_and_honoured_by_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from store.model import Chapter, Paragraph, TranslationVersion
    from store.serialize import chapter_bytes

    ws = str(tmp_path)
    assert cli(capsys, ws, "add", "死人", "the dead man", "--target-alias", "the dead men")[0] == 0
    assert cli(capsys, ws, "add", "下人", "the servant")[0] == 0
    out = cli(capsys, ws, "list", "--json")[1]
    listed = json.loads(out)
    assert listed[0]["target_aliases"] == ["the dead men"] and "target_aliases" not in listed[1]
    texts = [
        ("「ここにいる死人どもは、皆、悪い人間ばかりだぞよ。」", "“The dead men here were all wicked people.”"),
        ("　下人は梯子を上った。", "A servant climbed the ladder."),
        ("　下人は死人を見た。", "The lackey looked at the corpse."),
    ]
    paragraphs = []
    for n, (source, translation) in enumerate(texts):
        v = TranslationVersion(id=f"v{n:07d}", text=translation, origin="manual", created_at="2026-11-23T10:00:00Z")
        paragraphs.append(Paragraph(id=f"p{n:07d}", text=source, translations=(v,), selected_translation_id=v.id))
    path = tmp_path / "ch.json"
    path.write_bytes(
        chapter_bytes(Chapter(id="ch", source_language="ja", target_language="en", paragraphs=tuple(paragraphs)))
    )
    assert main(["check", str(path), "--json", "--codes", "GLOSSARY_NOT_APPLIED"]) == 1
    found = json.loads(capsys.readouterr().out)
    assert [(w["paragraph_index"], w["message"]) for w in found] == [
        (3, "glossary entries are not applied: “死人 → the dead man”, “下人 → the servant”")
    ]
