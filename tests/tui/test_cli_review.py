"""``proofdesk review`` and ``proofdesk stats`` on real chapter files: listing, --json, accepting and rejecting
(one commit per chapter, nothing written when any ID is not pending), filters, exit codes."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from store.loader import load_chapter
from store.model import Chapter, Paragraph, TranslationVersion
from store.serialize import chapter_bytes
from tui.cli import main

T0 = "2026-11-21T10:00:00Z"
T1 = "2026-11-22T10:00:00Z"

KEYS = [
    "file",
    "paragraph_index",
    "paragraph_id",
    "version_id",
    "selected_text",
    "text",
    "reason",
    "category",
    "model",
    "task",
    "created_at",
    "based_on",
    "outdated",
]


def v(vid: str, text: str, origin: str = "translation", model: str | None = "m1", at: str = T0) -> TranslationVersion:
    return TranslationVersion(id=vid, text=text, origin=origin, model=model, created_at=at)


def sug(
    vid: str, text: str, based_on: str | None, category: str, model: str = "m1", at: str = T0, **kw: Any
) -> TranslationVersion:
    """A pending proofread suggestion (the optional keys in their file order)."""
    return TranslationVersion(
        id=vid,
        text=text,
        origin="proofreading",
        model=model,
        created_at=at,
        extra={"status": "suggested", **kw, "category": category, "based_on": based_on},
    )


def write(path: Path, chapter_id: str, *paragraphs: Paragraph) -> Path:
    chapter = Chapter(id=chapter_id, source_language="ja", target_language="en", paragraphs=paragraphs)
    path.write_bytes(chapter_bytes(chapter))
    return path


@pytest.fixture
def book(tmp_path: Path) -> Path:
    """ch01: p1 (one style suggestion), an empty paragraph, p3 (two: the newer first in the file), p4 (hand-written
    since its suggestion was made: outdated); ch02: q1 (one style suggestion by m2)."""
    folder = tmp_path / "book"
    folder.mkdir()
    write(
        folder / "ch01.json",
        "ch01",
        Paragraph(
            id="p1",
            text="一",
            translations=(v("a1", "one"), sug("s1", "One.", "a1", "style", reason="Capital.")),
            selected_translation_id="a1",
        ),
        Paragraph(id="e2", text=""),
        Paragraph(
            id="p3",
            text="三",
            translations=(
                v("a3", "three"),
                sug("s3late", "Three!", "a3", "style", at=T1),
                sug("s3early", "Three.", "a3", "grammar", model="m2"),
            ),
            selected_translation_id="a3",
        ),
        Paragraph(
            id="p4",
            text="四",
            translations=(v("a4", "four"), sug("s4", "Four.", "a4", "spelling"), v("m4", "4", "manual", None)),
            selected_translation_id="m4",
        ),
    )
    write(
        folder / "ch02.json",
        "ch02",
        Paragraph(
            id="q1",
            text="五",
            translations=(v("b1", "five"), sug("t1", "Five.", "b1", "style", model="m2")),
            selected_translation_id="b1",
        ),
    )
    return folder


def cli(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's own usage errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def versions(path: Path, paragraph_id: str) -> dict[str, str | None]:
    para = load_chapter(path).paragraph(paragraph_id)
    assert para is not None
    return {x.id: x.status for x in para.translations}


def test_review_lists_one_block_per_pending_suggestion(capsys: pytest.CaptureFixture[str], book: Path) -> None:
    code, out, err = cli(capsys, "review", book)
    one, two = book / "ch01.json", book / "ch02.json"
    assert (code, err) == (0, "")
    assert out.split("\n\n") == [
        f"{one}:[1] p1 s1 style m1 proofread\n  reason: Capital.\n  now: one\n  new: One.",
        f"{one}:[3] p3 s3late style m1 proofread\n  now: three\n  new: Three!",
        f"{one}:[3] p3 s3early grammar m2 proofread\n  now: three\n  new: Three.",
        f"{one}:[4] p4 s4 spelling m1 proofread (outdated)\n  now: 4\n  new: Four.",
        f"{two}:[1] q1 t1 style m2 proofread\n  now: five\n  new: Five.\n",
    ]


def test_review_json_has_exactly_the_keys_of_the_design(capsys: pytest.CaptureFixture[str], book: Path) -> None:
    code, out, _ = cli(capsys, "review", book / "ch01.json", "--json")
    records = json.loads(out)
    assert code == 0 and all(list(r) == KEYS for r in records)
    assert [(r["paragraph_index"], r["version_id"], r["outdated"]) for r in records] == [
        (1, "s1", False),
        (3, "s3late", False),
        (3, "s3early", False),
        (4, "s4", True),
    ]
    assert records[0] == {
        "file": str(book / "ch01.json"),
        "paragraph_index": 1,
        "paragraph_id": "p1",
        "version_id": "s1",
        "selected_text": "one",
        "text": "One.",
        "reason": "Capital.",
        "category": "style",
        "model": "m1",
        "task": "proofread",
        "created_at": T0,
        "based_on": "a1",
        "outdated": False,
    }


def test_accept_selects_marks_reviewed_and_sets_accepted(capsys: pytest.CaptureFixture[str], book: Path) -> None:
    before = snapshot(book)
    code, out, err = cli(capsys, "review", book, "--accept", "s1")
    assert (code, out) == (0, "")
    assert err == f"accepted 1, rejected 0 in {book / 'ch01.json'}\n"
    para = load_chapter(book / "ch01.json").paragraphs[0]
    assert para.selected_translation_id == "s1" and para.reviewed
    assert versions(book / "ch01.json", "p1") == {"a1": None, "s1": "accepted"}
    assert snapshot(book)["ch02.json"] == before["ch02.json"]  # a chapter without decisions is not written


def test_reject_changes_nothing_but_the_status(capsys: pytest.CaptureFixture[str], book: Path) -> None:
    path = book / "ch01.json"
    before = json.loads(path.read_bytes())
    code, _, err = cli(capsys, "review", path, "--reject", "s3early")
    assert code == 0 and err == f"accepted 0, rejected 1 in {path}\n"
    after = json.loads(path.read_bytes())
    rejected = after["paragraphs"][2]["translations"][2]
    assert rejected.pop("status") == "rejected"
    assert list(rejected) == ["id", "text", "origin", "model", "created_at", "category", "based_on"]
    before["paragraphs"][2]["translations"][2].pop("status")
    assert after == before


def test_a_non_pending_id_writes_no_file(capsys: pytest.CaptureFixture[str], book: Path) -> None:
    assert cli(capsys, "review", book, "--reject", "s4")[0] == 0
    before = snapshot(book)
    code, out, err = cli(capsys, "review", book, "--accept", "t1", "s1", "a1", "nope", "--reject", "s4")
    assert (code, out) == (1, "")
    one = book / "ch01.json"
    assert err.splitlines() == [
        f"proofdesk: a1: an ordinary version, not a suggestion ({one}:[1]); nothing was written",
        "proofdesk: nope: no suggestion or paragraph has this ID; nothing was written",
        f"proofdesk: s4: already rejected ({one}:[4]); nothing was written",
    ]
    assert snapshot(book) == before  # ch02's t1 and ch01's s1 were pending, and neither file was written


def test_accept_all_takes_only_the_category(capsys: pytest.CaptureFixture[str], book: Path) -> None:
    code, _, err = cli(capsys, "review", book, "--accept-all", "--category", "style")
    assert code == 0
    assert err.splitlines() == [
        f"accepted 2, rejected 0 in {book / 'ch01.json'}",
        f"accepted 1, rejected 0 in {book / 'ch02.json'}",
    ]
    assert versions(book / "ch01.json", "p3") == {"a3": None, "s3late": "accepted", "s3early": "suggested"}
    assert versions(book / "ch01.json", "p4")["s4"] == "suggested"
    assert versions(book / "ch02.json", "q1")["t1"] == "accepted"


def test_reject_all_takes_only_the_model(capsys: pytest.CaptureFixture[str], book: Path) -> None:
    code, out, _ = cli(capsys, "review", book, "--reject-all", "--model", "m2", "--json")
    assert code == 0
    assert [(r["file"], r["version_id"], r["status"]) for r in json.loads(out)] == [
        (str(book / "ch01.json"), "s3early", "rejected"),
        (str(book / "ch02.json"), "t1", "rejected"),
    ]
    assert versions(book / "ch01.json", "p1")["s1"] == "suggested"


def test_a_paragraph_id_stands_for_its_newest_suggestion(capsys: pytest.CaptureFixture[str], book: Path) -> None:
    assert cli(capsys, "review", book, "--accept", "p3")[0] == 0
    para = load_chapter(book / "ch01.json").paragraphs[2]
    assert para.selected_translation_id == "s3late"  # created a day later, though earlier in the file
    assert versions(book / "ch01.json", "p3")["s3early"] == "suggested"


def test_accepting_an_outdated_suggestion_replaces_the_hand_written_text(
    capsys: pytest.CaptureFixture[str], book: Path
) -> None:
    out = cli(capsys, "review", book, "--json")[1]
    assert [r["version_id"] for r in json.loads(out) if r["outdated"]] == ["s4"]
    assert cli(capsys, "review", book, "--accept", "s4")[0] == 0  # the editor saw it was outdated and chose it
    assert load_chapter(book / "ch01.json").paragraphs[3].selected_text == "Four."


def test_a_broken_chapter_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], book: Path) -> None:
    (book / "ch02.json").write_text('{"format": "proofdesk.chapter/1", "id": "ch02"', encoding="utf-8")
    before = snapshot(book)
    for extra in ([], ["--accept", "s1"]):
        code, out, err = cli(capsys, "review", book, *extra)
        assert (code, out) == (2, "")
        assert len(err.splitlines()) == 1 and str(book / "ch02.json") in err
    assert snapshot(book) == before


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--category", "style"], "--category and --model filter --accept-all or --reject-all"),
        (["--accept", "s1", "--model", "m1"], "--category and --model filter --accept-all or --reject-all"),
        (["--accept-all", "--reject-all"], "not allowed with argument"),
        (["--accept-all", "--category", "tone"], "invalid choice"),
        (["--accept", "p1", "--reject", "s1"], "s1 (BOOK/ch01.json:[1]): both accepted and rejected"),
    ],
)
def test_bad_flags_are_exit_2_and_write_nothing(
    capsys: pytest.CaptureFixture[str], book: Path, argv: list[str], said: str
) -> None:
    before = snapshot(book)
    code, out, err = cli(capsys, "review", book, *argv)
    assert (code, out) == (2, "")
    assert said.replace("BOOK", str(book)) in err and len(err.splitlines()) == 1
    assert snapshot(book) == before


def test_a_read_only_chapter_refuses_before_any_file_is_written(capsys: pytest.CaptureFixture[str], book: Path) -> None:
    os.chmod(book / "ch02.json", 0o444)
    before = snapshot(book)
    code, _, err = cli(capsys, "review", book, "--accept", "s1", "t1")
    assert code == 2 and "ch02.json is read-only" in err and len(err.splitlines()) == 1
    assert snapshot(book) == before
    assert cli(capsys, "review", book, "--accept", "s1", "t1", "--force")[0] == 0


def test_stats_count_what_the_editor_decided(capsys: pytest.CaptureFixture[str], book: Path) -> None:
    assert cli(capsys, "review", book, "--accept", "p1", "p3", "--reject", "t1")[0] == 0
    code, out, err = cli(capsys, "stats", book, "--json")
    assert (code, err) == (0, "")
    zero = dict.fromkeys(["suggested", "accepted", "rejected", "pending", "applied", "kept", "edited", "replaced"], 0)
    assert json.loads(out) == [
        # a1 and a3 were replaced by accepted suggestions, b1 kept; a4 replaced by the later hand-written m4.
        {"model": "m1", "task": "proofread", **zero, "suggested": 3, "accepted": 2, "pending": 1},
        {"model": "m1", "task": "translate", **zero, "applied": 4, "kept": 1, "replaced": 3, "edited": 1},
        {"model": "m2", "task": "proofread", **zero, "suggested": 2, "rejected": 1, "pending": 1},
    ]
    code, out, _ = cli(capsys, "stats", book / "ch02.json")
    assert code == 0
    assert out.splitlines() == [
        "model  task       suggested  accepted  rejected  pending  applied  kept  edited  replaced",
        "m1     translate          0         0         0        0        1     1       0         0",
        "m2     proofread          1         0         1        0        0     0       0         0",
    ]


def test_stats_of_a_broken_chapter_is_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "ch.json").write_text("[]", encoding="utf-8")
    code, out, err = cli(capsys, "stats", tmp_path / "ch.json")
    assert (code, out) == (2, "") and len(err.splitlines()) == 1 and "ch.json" in err
