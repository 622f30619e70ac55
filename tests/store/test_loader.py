"""Loading chapter files: every bad input is one line naming the file and the place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from store.errors import ChapterLoadError
from store.loader import load_chapter, parse_chapter
from store.serialize import chapter_bytes

GOOD = {
    "format": "proofdesk.chapter/1",
    "id": "ch01",
    "title": "第一章",
    "title_translation": None,
    "source_language": "ja",
    "target_language": "en",
    "paragraphs": [
        {
            "id": "e58ed763",
            "text": "「おはよう」と彼女は言った。",
            "translations": [
                {
                    "id": "1f0c9a2b",
                    "text": "'Morning,' she said.",
                    "origin": "translation",
                    "model": "m",
                    "created_at": "2026-11-21T10:00:00Z",
                }
            ],
            "selected_translation_id": "1f0c9a2b",
            "reviewed": False,
        },
        {"id": "0b7d33e1", "text": "", "translations": [], "selected_translation_id": None, "reviewed": False},
    ],
}


def canonical(doc: dict) -> bytes:
    return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode()


def error_of(raw: bytes) -> str:
    with pytest.raises(ChapterLoadError) as info:
        parse_chapter(raw, "ch.json")
    line = info.value.line
    assert "\n" not in line
    assert line.startswith("ch.json")
    return line


def test_canonical_file_round_trips_byte_identical() -> None:
    raw = canonical(GOOD)
    assert chapter_bytes(parse_chapter(raw, "ch.json")) == raw


def test_unknown_keys_are_preserved_at_every_level() -> None:
    doc = json.loads(json.dumps(GOOD))
    doc["future_setting"] = {"nested": [1, 2, {"x": None}]}
    doc["paragraphs"][0]["note"] = "keep me"
    doc["paragraphs"][0]["translations"][0]["score"] = 0.5
    raw = canonical(doc)
    assert chapter_bytes(parse_chapter(raw, "ch.json")) == raw


def test_bom_prefixed_file_loads_and_is_saved_without_bom() -> None:
    raw = canonical(GOOD)
    chapter = parse_chapter(b"\xef\xbb\xbf" + raw, "ch.json")
    assert chapter.id == "ch01"
    assert chapter_bytes(chapter) == raw


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"", "ch.json: the file is empty"),
        (b"   \n", "ch.json: the file is empty"),
        (b'{"id": "a", "paragraphs": [', "ch.json:1:28: invalid JSON: Expecting value: the file ends too early"),
        (b'{"id": "a",\n "paragraphs": [{"id": "x", "text": NaN}]}', "ch.json:2:37: invalid JSON: NaN"),
        (b'{"id": "a", "paragraphs": [], "z": -Infinity}', "ch.json:1:36: invalid JSON: -Infinity"),
        (
            b'{"id": "a",\n "paragraphs": [{"id": "x", "text": "a", "text": "b"}]}',
            "ch.json:2:17: invalid JSON: key 'text' appears twice",
        ),
        (b'\n\n  {"id": "a", "paragraphs": [], "id": "b"}', "ch.json:3:3: invalid JSON: key 'id' appears twice"),
        (b'{"id": "a"}', "ch.json: paragraphs: required field is missing"),
        (b"[1, 2]", "ch.json: expected a JSON object"),
        (b'{"id": "a", "paragraphs": {}}', "ch.json: paragraphs: expected a list"),
        (b'{"id": "a", "paragraphs": [{"id": "x", "text": 3}]}', "ch.json: paragraphs[0].text: expected a string"),
        (b'{"id": "a", "paragraphs": [{"text": "t"}]}', "ch.json: paragraphs[0].id: required field is missing"),
        (
            b'{"id": "a", "paragraphs": [{"id": "x", "text": "a"}, {"id": "x", "text": "b"}]}',
            "ch.json: paragraphs[1].id: duplicate paragraph id 'x'",
        ),
        (
            b'{"id": "a", "paragraphs": [{"id": "x y", "text": "a"}]}',
            "ch.json: paragraphs[0].id: expected an identifier",
        ),
        (
            b'{"id": "a", "paragraphs": [{"id": "x", "text": "a", "reviewed": "yes"}]}',
            "ch.json: paragraphs[0].reviewed: expected true or false",
        ),
        (
            b'{"id": "a", "paragraphs": [{"id": "x", "text": "a", "selected_translation_id": "q"}]}',
            "ch.json: paragraphs[0]: selected_translation_id 'q' names no translation",
        ),
        (b'{"format": "other/2", "id": "a", "paragraphs": []}', "ch.json: format: expected 'proofdesk.chapter/1'"),
        (
            b'{"id": "a", "paragraphs": [{"id": "x", "text": "a", "translations": [{"id": "v", "text": "t", '
            b'"origin": "robot", "created_at": "x"}]}]}',
            "ch.json: paragraphs[0].translations[0].origin: expected",
        ),
        (b"\xff\xfe{}", "ch.json:1:1: not UTF-8 text"),
        (
            b'{"id": "a", "paragraphs": [{"id": "x", "text": "ok\xe3\x81"}]}',
            "ch.json:1:51: not UTF-8 text (byte 0xe3 at offset 50)",
        ),
    ],
)
def test_bad_input_gets_one_line_naming_file_and_place(raw: bytes, expected: str) -> None:
    assert error_of(raw).startswith(expected)


def test_lone_surrogate_escape_is_refused_but_an_escaped_pair_loads() -> None:
    lone = b'{"id": "a", "paragraphs": [{"id": "x", "text": "ok\\ud800"}]}'
    assert error_of(lone) == (
        "ch.json: paragraphs[0].text: contains a lone UTF-16 surrogate escape (\\ud800-\\udfff "
        "without its pair), which is not text and could never be saved"
    )
    pair = b'{"id": "a", "paragraphs": [{"id": "x", "text": "\\ud83d\\ude00"}]}'
    chapter = parse_chapter(pair, "ch.json")
    assert chapter.paragraphs[0].text == "\U0001f600"
    assert parse_chapter(chapter_bytes(chapter), "ch.json") == chapter


def test_nesting_deep_enough_for_recursion_error() -> None:
    deep = b'{"id": "a", "paragraphs": [], "z": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert "nested more than" in error_of(deep)
    shallow_but_too_deep = b'{"id": "a", "paragraphs": [], "z": ' + b"[" * 300 + b"]" * 300 + b"}"
    assert "nested more than" in error_of(shallow_but_too_deep)


def test_truncated_file_says_it_ends_too_early() -> None:
    raw = canonical(GOOD)
    assert "ends too early" in error_of(raw[: len(raw) // 2])


def test_load_chapter_names_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(ChapterLoadError, match="no such file"):
        load_chapter(tmp_path / "nope.json")
    with pytest.raises(ChapterLoadError, match="is a folder"):
        load_chapter(tmp_path)


def test_empty_paragraph_rule() -> None:
    doc = json.loads(json.dumps(GOOD))
    texts = ["", "   ", "\u3000", "\ufeff", "\ufeff \u3000\u00a0", "x", "\u3000あ"]
    doc["paragraphs"] = [{"id": f"p{i}", "text": t} for i, t in enumerate(texts)]
    chapter = parse_chapter(canonical(doc), "ch.json")
    assert [p.is_empty for p in chapter.paragraphs] == [True, True, True, True, True, False, False]
