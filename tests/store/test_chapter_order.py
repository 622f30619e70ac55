"""Chapter order (issue 29, item 5; design section 21): enough digits in new chapter names, and every listing
in book order (``.proofdesk/book.json``) or else natural order (``ch2`` before ``ch10``, ``ch100`` before
``ch1000``) — the workspace's listing, ``run``/``check``'s expansion of a folder and the workstation's.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from store.chapter_order import chapter_ids, natural_key
from store.loader import load_chapter
from store.workspace import Workspace
from tui.cli import main
from tui.commands.chapter_files import chapter_files
from tui.commands.run_workspace import expand_workspaces

NATURAL = ["ch1.json", "ch2.json", "ch10.json", "ch99.json", "ch100.json", "ch999.json", "ch1000.json", "ch1001.json"]


def test_natural_key_reads_numbers() -> None:
    shuffled = NATURAL[:]
    random.Random(29).shuffle(shuffled)
    assert sorted(shuffled, key=natural_key) == NATURAL
    assert sorted(["b.json", "a10.json", "a9.json", "ch01.json", "ch1.json"], key=natural_key) == [
        "a9.json",
        "a10.json",
        "b.json",
        "ch01.json",
        "ch1.json",
    ]


def test_chapter_ids_have_enough_digits() -> None:
    assert chapter_ids(3) == ["ch001", "ch002", "ch003"]
    assert chapter_ids(999)[-1] == "ch999"
    ids = chapter_ids(1000)
    assert ids[0] == "ch0001" and ids[-1] == "ch1000" and sorted(ids) == ids


def _files(folder: Path, names: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text("{}", encoding="utf-8")


def test_every_listing_is_natural_without_a_book_file(tmp_path: Path) -> None:
    shuffled = NATURAL[:]
    random.Random(1).shuffle(shuffled)
    _files(tmp_path, shuffled)
    assert [p.name for p in Workspace(tmp_path).chapter_paths()] == NATURAL
    assert [p.name for p in expand_workspaces([tmp_path])] == NATURAL  # proofdesk run WORKSPACE
    assert [p.name for p in chapter_files([tmp_path])] == NATURAL  # check, review, stats


def test_the_book_file_orders_the_listing(tmp_path: Path) -> None:
    _files(tmp_path, ["a.json", "b.json", "c.json", "extra2.json", "extra10.json"])
    book = tmp_path / ".proofdesk" / "book.json"
    book.parent.mkdir()
    book.write_text(json.dumps({"chapters": [{"file": "c.json"}, {"file": "a.json"}, {"file": "b.json"}]}))
    assert [p.name for p in Workspace(tmp_path).chapter_paths()] == [
        "c.json",
        "a.json",
        "b.json",
        "extra2.json",  # not in the book: after it, naturally
        "extra10.json",
    ]
    book.write_text("{ not json")  # a broken book file: natural order, never an error
    assert [p.name for p in Workspace(tmp_path).chapter_paths()][:3] == ["a.json", "b.json", "c.json"]


@pytest.mark.slow
def test_a_thousand_chapters_are_numbered_and_listed_in_order(tmp_path: Path) -> None:
    novel = tmp_path / "novel.txt"
    novel.write_text("".join(f"第{n}章\n本文{n}\n" for n in range(1, 1002)), encoding="utf-8")
    ws = tmp_path / "ws"
    assert main(["import", str(novel), "--split-chapters", "-o", str(ws)]) == 0
    listed = Workspace(ws).chapter_paths()
    assert [p.name for p in listed[:2]] == ["ch0001.json", "ch0002.json"] and listed[-1].name == "ch1001.json"
    assert [load_chapter(p).id for p in (listed[0], listed[999])] == ["ch0001", "ch1000"]
    assert load_chapter(listed[999]).title == "第1000章"


@pytest.mark.slow
def test_a_book_of_a_thousand_documents_gets_four_digit_chapters(tmp_path: Path) -> None:
    from tests.store.books.epub_builder import build_epub

    book = build_epub(tmp_path / "b.epub", [(f"d{n}.xhtml", f"T{n}", f"<p>{n}</p>") for n in range(1, 1001)])
    ws = tmp_path / "ws"
    assert main(["import", str(book), "-o", str(ws)]) == 0
    listed = Workspace(ws).chapter_paths()
    assert len(listed) == 1000 and listed[0].name == "ch0001.json" and listed[-1].name == "ch1000.json"
    assert [load_chapter(p).title for p in listed[98:101]] == ["T99", "T100", "T101"]
    entries = json.loads((ws / ".proofdesk" / "book.json").read_text())["chapters"]
    assert entries[999] == {"file": "ch1000.json", "href": "d1000.xhtml"}
