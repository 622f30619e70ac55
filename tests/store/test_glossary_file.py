"""The glossary file: its format, one-line loading errors, and commits that merge onto what is on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from store.glossary import Glossary, GlossaryEntry, GlossaryLoadError, glossary_bytes
from store.glossary_commit import (
    GlossaryConflict,
    GlossaryEditError,
    GlossaryStore,
    add_entries,
    add_entry,
    approve_entries,
    remove_entries,
    update_entries,
    update_entry,
)
from store.glossary_read import entry_from, parse_glossary
from store.workspace import Workspace


def entry(eid: str, source: str, target: str, **extra: object) -> GlossaryEntry:
    return entry_from({"id": eid, "source": source, "target": target, "created_at": "2026-11-23T10:00:00Z", **extra})


def test_the_design_s_example_round_trips_byte_for_byte_and_unknown_keys_are_kept() -> None:
    raw = (
        json.dumps(
            {
                "format": "proofdesk.glossary/1",
                "entries": [
                    {
                        "id": "3fa2c0d1",
                        "source": "下人",
                        "target": "the servant",
                        "kind": "term",
                        "aliases": [],
                        "note": "the story's protagonist is never named",
                        "status": "approved",
                        "origin": "manual",
                        "created_at": "2026-11-23T10:00:00Z",
                    },
                    {
                        "id": "9b1e77a0",
                        "source": "老婆",
                        "target": "the old woman",
                        "kind": "character",
                        "aliases": ["老婆さん"],
                        "gender": "female",
                        "note": "",
                        "status": "proposed",
                        "origin": "model",
                        "model": "deepseek-chat",
                        "created_at": "2026-11-23T10:05:00Z",
                    },
                ],
            },
            ensure_ascii=False,
            indent=2,
        )
        + "\n"
    )
    glossary = parse_glossary(raw.encode(), "glossary.json")
    assert glossary_bytes(glossary) == raw.encode()
    assert glossary.entries[1].line() == "老婆 → the old woman (character; female) (proposed)"
    assert glossary.entries[0].line() == "下人 → the servant (term; the story's protagonist is never named)"
    extra = json.loads(raw)
    extra["editor"] = "kept"
    extra["entries"][0]["colour"] = "blue"
    again = json.loads(glossary_bytes(parse_glossary(json.dumps(extra).encode(), "g.json")))
    assert again["editor"] == "kept" and again["entries"][0]["colour"] == "blue"


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('{"format": "proofdesk.glossary/1", "entries": [}', "glossary.json:1:48: invalid JSON"),
        ('{"format": "proofdesk.glossary/2", "entries": []}', "format must be 'proofdesk.glossary/1'"),
        ("[1]", 'expected a JSON object with "format" and "entries"'),
        (
            '{"format": "proofdesk.glossary/1", "entries": '
            '[{"id": "a", "source": "x", "target": "y", "kind": "thing"}]}',
            "entries.0.kind",
        ),
        (
            '{"format": "proofdesk.glossary/1", "entries": [{"id": "a", "source": "", "target": "y"}]}',
            "entries.0.source",
        ),
        (
            '{"format": "proofdesk.glossary/1", "entries": [{"id": "a", "source": "Tokyo", "target": "T"}, '
            '{"id": "b", "source": "tokyo", "target": "t"}]}',
            "entries.1: the source 'tokyo' is already entry 'a'",
        ),
        (
            '{"format": "proofdesk.glossary/1", "entries": [{"id": "a", "source": "x", "target": "y"}, '
            '{"id": "a", "source": "z", "target": "y"}]}',
            "the id 'a' is used twice",
        ),
        (
            '{"format": "proofdesk.glossary/1", "entries": [1]}',
            "entries.0: Input should be a valid dictionary or instance of GlossaryEntry",
        ),
        (
            '{"format": "proofdesk.glossary/1", "entries": '
            '[{"id": "a", "source": "x", "target": "y", "aliases": "z"}]}',
            "entries.0.aliases: Input should be a valid tuple",
        ),
    ],
)
def test_a_broken_file_is_one_line_naming_the_place(tmp_path: Path, content: str, said: str) -> None:
    path = tmp_path / "glossary.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(GlossaryLoadError) as caught:
        GlossaryStore(Workspace(tmp_path)).load()
    assert said in caught.value.line and "\n" not in caught.value.line and str(path) in caught.value.line


def test_no_file_is_an_empty_glossary_and_the_glossary_is_never_a_chapter(tmp_path: Path) -> None:
    assert GlossaryStore(Workspace(tmp_path)).load() == Glossary()
    (tmp_path / "ch01.json").write_text("{}")
    (tmp_path / "glossary.json").write_text('{"format": "proofdesk.glossary/1", "entries": []}')
    assert [p.name for p in Workspace(tmp_path).chapter_paths()] == ["ch01.json"]


def test_edits_apply_to_the_file_as_it_is_on_disk(tmp_path: Path) -> None:
    store = GlossaryStore(Workspace(tmp_path))
    store.change(add_entry(entry("a1", "下人", "the servant")))
    # a person edits the file by hand (another entry, and a note on the first) ...
    data = json.loads(store.path.read_text(encoding="utf-8"))
    data["entries"][0]["note"] = "never named"
    data["entries"].append({"id": "p1", "source": "羅生門", "target": "the Rashomon gate"})
    store.path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    # ... and the next change is applied to that file, not to what this process read before
    store.change(add_entry(entry("m1", "老婆", "the old woman", status="proposed", origin="model")))
    got = store.load()
    assert [e.id for e in got.entries] == ["a1", "p1", "m1"] and got.entries[0].note == "never named"
    with pytest.raises(GlossaryConflict, match="'下人' → 'the servant'"):
        store.change(add_entry(entry("x", "下人", "the lackey")))
    before = store.path.read_bytes()
    store.change(add_entry(entry("y", "下人", "The Servant")))  # the same translation: nothing to write
    assert store.path.read_bytes() == before
    store.change(approve_entries(["m1"]))
    store.change(update_entry("p1", target="Rashōmon", kind="place"))
    store.change(remove_entries(["a1"]))
    got = store.load()
    assert [(e.id, e.status, e.target, e.kind) for e in got.entries] == [
        ("p1", "approved", "Rashōmon", "place"),
        ("m1", "approved", "the old woman", "term"),
    ]
    with pytest.raises(GlossaryEditError, match="no glossary entry 'nope'"):
        store.change(remove_entries(["nope"]))
    with pytest.raises(GlossaryEditError, match="kind"):
        store.change(update_entry("p1", kind="planet"))
    added = store.change(
        add_entries([entry("e1", "死骸", "corpse"), entry("e2", "老婆", "hag"), entry("e3", "死骸", "body")])
    )
    assert [e.source for e in added.entries] == ["羅生門", "老婆", "死骸"]  # never a duplicate source


@pytest.mark.slow
def test_a_hundred_thousand_entries_load_and_change(tmp_path: Path) -> None:
    store = GlossaryStore(Workspace(tmp_path))
    big = Glossary(entries=tuple(entry(f"{n:08x}", f"名前{n}", f"name {n}") for n in range(100_000)))
    store.path.write_bytes(glossary_bytes(big))
    store.change(add_entry(entry("new", "新語", "new word")))
    assert len(store.load().entries) == 100_001


def test_the_same_bytes_are_not_parsed_again_and_an_edit_is_seen(tmp_path: Path) -> None:
    store = GlossaryStore(Workspace(tmp_path))
    store.path.write_bytes(glossary_bytes(Glossary(entries=(entry("a1", "下人", "the servant"),))))
    first = store.load()
    assert store.load() is first  # unchanged on disk: the glossary already parsed
    changed = Glossary(entries=(entry("a1", "下人", "the lowly servant"),))
    store.path.write_bytes(glossary_bytes(changed))  # same size or not, an outside edit is read
    assert store.load() == changed
    store.path.write_bytes(b'{"format": "proofdesk.glossary/1", "entries": [')
    with pytest.raises(GlossaryLoadError):
        store.load()  # a broken file is never answered from what was parsed before


def test_a_change_is_read_back_without_parsing_it_and_as_a_parse_would_give_it(tmp_path: Path) -> None:
    store = GlossaryStore(Workspace(tmp_path))
    changed = store.change(add_entry(entry("a1", "老婆", "the old woman")))
    assert store.load() is changed  # our own write, not parsed again
    assert changed == parse_glossary(store.path.read_bytes(), store.path)


def test_a_big_glossary_is_validated_in_slices_and_a_bad_entry_is_named_where_it_is() -> None:
    entries = [{"id": f"e{n}", "source": f"語{n}", "target": f"t{n}"} for n in range(2_500)]
    doc = {"format": "proofdesk.glossary/1", "entries": entries, "extra": 1}
    glossary = parse_glossary(json.dumps(doc).encode(), "glossary.json")
    assert [e.id for e in glossary.entries] == [f"e{n}" for n in range(2_500)]
    assert glossary.extra == {"extra": 1}
    assert all(isinstance(e, GlossaryEntry) for e in glossary.entries)
    entries[1_700]["kind"] = "thing"
    with pytest.raises(GlossaryLoadError, match=r"entries\.1700\.kind"):
        parse_glossary(json.dumps(doc).encode(), "glossary.json")
    entries[1_700]["kind"] = "term"
    entries[2_400]["source"] = "語3"  # the uniqueness rule holds across slices
    with pytest.raises(GlossaryLoadError, match=r"entries\.2400: the source '語3' is already entry 'e3'"):
        parse_glossary(json.dumps(doc).encode(), "glossary.json")


def test_many_entries_get_the_same_fields_in_one_edit(tmp_path: Path) -> None:
    store = GlossaryStore(Workspace(tmp_path))
    for n, source in enumerate(("下人", "老婆", "羅生門")):
        store.change(add_entry(GlossaryEntry(id=f"e{n}", source=source, target=f"t{n}")))
    changed = store.change(update_entries(["e0", "e1"], kind="character", gender="female"))
    assert [(e.kind, e.gender) for e in changed.entries] == [("character", "female")] * 2 + [("term", None)]
    assert store.change(update_entries(["e1"], gender=None)).by_id("e1").gender is None  # type: ignore[union-attr]
    before = store.path.read_bytes()
    with pytest.raises(GlossaryEditError, match="there is no glossary entry 'nope'"):
        store.change(update_entries(["e0", "nope"], kind="place"))
    with pytest.raises(GlossaryEditError, match="kind"):
        store.change(update_entries(["e0"], kind="planet"))
    assert store.path.read_bytes() == before
