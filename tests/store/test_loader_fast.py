"""The loader's fast path (orjson, built records) agrees with the careful path (json hooks, pydantic) on every
input: the same chapter, field for field, or it declines and the careful path gives the one-line error."""

from __future__ import annotations

import gc
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import astuple

from store.errors import ChapterLoadError
from store.fast_load import parse_fast
from store.loader import _parse_careful, parse_chapter
from store.model import Chapter, Paragraph, TranslationVersion
from store.serialize import chapter_bytes
from tests.store.documents import chapter_document
from tests.store.test_loader_fuzz import chapters, json_values

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def records(chapter: Chapter) -> list[Any]:
    return [chapter, *chapter.paragraphs, *(t for p in chapter.paragraphs for t in p.translations)]


def assert_same(fast: Chapter, careful: Chapter) -> None:
    """Equal records: fields and the types of their values, unknown keys in the same order."""
    assert fast == careful
    for a, b in zip(records(fast), records(careful), strict=True):
        assert type(a) is type(b)
        assert [type(value) for value in astuple(a)] == [type(value) for value in astuple(b)]
        assert a.extra == b.extra
        assert list(a.extra) == list(b.extra)
        assert type(getattr(a, "translations", ())) is tuple


def outcome(parse: Any, raw: bytes) -> tuple[str, Any]:
    try:
        return "ok", chapter_document(parse(raw))
    except ChapterLoadError as exc:
        return "error", exc.line


def careful(raw: bytes) -> Chapter:
    """The loader as it was before the fast path: BOM, emptiness, then the careful path."""
    body = raw.removeprefix(b"\xef\xbb\xbf")
    if not body.strip():
        raise ChapterLoadError("ch.json", None, "the file is empty; expected a JSON chapter object")
    return _parse_careful(body, "ch.json")


def check_agrees(raw: bytes) -> Chapter | None:
    """The fast path's answer (None if it declined), after checking it against the careful path."""
    fast = parse_fast(raw.removeprefix(b"\xef\xbb\xbf"))
    if fast is not None:
        assert_same(fast, careful(raw))
    assert outcome(lambda r: parse_chapter(r, "ch.json"), raw) == outcome(careful, raw)
    return fast


def holds_a_float(value: Any) -> bool:
    """Whether orjson would read a float somewhere in ``value`` (it reads integers past 64 bits as floats)."""
    if isinstance(value, dict):
        return any(holds_a_float(v) for v in value.values())
    if isinstance(value, list):
        return any(holds_a_float(v) for v in value)
    if isinstance(value, int) and not isinstance(value, bool):
        return not -(2**63) <= value < 2**64
    return isinstance(value, float)


@FUZZ
@given(chapters())
def test_files_we_write_take_the_fast_path_and_agree(chapter: Chapter) -> None:
    raw = chapter_bytes(chapter)
    fast = check_agrees(raw)
    # Floats are left to the careful path.
    assert fast is not None or holds_a_float(chapter.extra or {})
    assert chapter_bytes(parse_chapter(raw, "ch.json")) == raw


@FUZZ
@given(chapters(), st.sampled_from(["compact", "spaced", "sorted", "indent4"]))
def test_other_layouts_agree(chapter: Chapter, layout: str) -> None:
    doc = chapter_document(chapter)
    raw = {
        "compact": lambda: json.dumps(doc, ensure_ascii=False, separators=(",", ":")),
        "spaced": lambda: json.dumps(doc, ensure_ascii=True),
        "sorted": lambda: json.dumps(doc, ensure_ascii=False, sort_keys=True, indent=1),
        "indent4": lambda: json.dumps(doc, ensure_ascii=False, indent=4),
    }[layout]().encode()
    check_agrees(raw)


@FUZZ
@given(chapters(), st.data())
def test_mutated_files_agree(chapter: Chapter, data: st.DataObject) -> None:
    doc = chapter_document(chapter)
    paths: list[tuple[Any, Any]] = [(doc, k) for k in doc]
    for p in doc["paragraphs"]:
        paths += [(p, k) for k in p]
        for t in p["translations"]:
            paths += [(t, k) for k in t]
    if paths:
        target, key = data.draw(st.sampled_from(paths))
        if data.draw(st.booleans()):
            target[key] = data.draw(json_values)
        else:
            del target[key]
    raw = (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode()
    check_agrees(raw)
    cut = data.draw(st.integers(0, len(raw)))
    check_agrees(raw[:cut])


@FUZZ
@given(json_values)
def test_random_json_agrees(value: object) -> None:
    check_agrees(json.dumps(value, indent=data_indent(value)).encode())


def data_indent(value: object) -> int | None:
    return 2 if isinstance(value, dict) else None


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes_agree(raw: bytes) -> None:
    check_agrees(raw)


CANONICAL = chapter_bytes(
    Chapter(
        id="ch",
        title="題",
        paragraphs=(
            Paragraph(
                id="p1",
                text="一",
                translations=(
                    TranslationVersion(id="v1", text="one", origin="translation", created_at="2026-11-21T10:00:00Z"),
                ),
                selected_translation_id="v1",
            ),
            Paragraph(id="p2", text=""),
        ),
    )
)


def error_of(raw: bytes) -> str:
    with pytest.raises(ChapterLoadError) as info:
        parse_chapter(raw, "ch.json")
    assert info.value.line == outcome(careful, raw)[1]
    return info.value.line


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        # A key written twice in a file in our own layout: orjson keeps the last; the file is no longer orjson's
        # rendering of what it parsed, and the careful path names the object.
        (
            b'"text": "\xe4\xb8\x80",',
            b'"text": "\xe4\xb8\x80",\n      "text": "x",',
            "ch.json:9:5: invalid JSON: key 'text' appears twice in the object starting here",
        ),
        (b'"id": "ch",', b'"id": "ch",\n  "id": "ch",', "ch.json:1:1: invalid JSON: key 'id' appears twice"),
        (b'"model": null', b'"model": NaN', "ch.json:17:20: invalid JSON: NaN is not a JSON number"),
        (
            b'"reviewed": false\n    }\n  ]',
            b'"reviewed": -Infinity\n    }\n  ]',
            "ch.json:29:19: invalid JSON: -Infinity is not a JSON number",
        ),
        (b'"text": "one"', b'"text": "\\udc00ne"', "ch.json: paragraphs[0].translations[0].text: contains a lone"),
        (
            b'"reviewed": false\n    },',
            b'"reviewed": 0\n    },',
            "ch.json: paragraphs[0].reviewed: expected true or false",
        ),
    ],
)
def test_problems_in_our_own_layout_get_the_careful_message(old: bytes, new: bytes, expected: str) -> None:
    assert old in CANONICAL
    raw = CANONICAL.replace(old, new, 1)
    assert parse_fast(raw) is None
    assert error_of(raw).startswith(expected)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"id":"a","paragraphs":[{"id":"x","text":"t","text":"u"}]}',
        b'{"id": "a", "paragraphs": [], "z": {"k": 1, "k": 2}}',
        b'{"id" : "a", "paragraphs": [], "id" : "b"}',
        b'{"id"\n:"a","paragraphs":[],"id":"b"}',
        b'{"id": "a", "paragraphs": [{"id": "x", "text": "say \\": hi", "text": "b"}]}',
    ],
)
def test_duplicate_keys_in_any_layout_are_refused(raw: bytes) -> None:
    assert parse_fast(raw) is None
    assert "appears twice" in error_of(raw)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"id": "a", "paragraphs": [{"id": "x", "text": ":)"}]}',  # a string starting with a colon
        b'{"id": "a", "paragraphs": [{"id": "x", "text": "Bonjour : \\"cit\xc3\xa9\\" : fin"}]}',
        b'{"id" : "a", "paragraphs" : []}',
    ],
)
def test_look_alikes_of_a_repeated_key_still_load(raw: bytes) -> None:
    assert check_agrees(raw) is None  # the cheap proof cannot tell: the careful path loads it
    parse_chapter(raw, "ch.json")


def test_numbers_in_unknown_keys_keep_their_exact_value_and_text() -> None:
    doc = json.loads(CANONICAL)
    doc["big"] = [2**64 + 1, -(2**70), 1e-07, 1e16, 0.1]
    raw = (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode()
    chapter = parse_chapter(raw, "ch.json")
    assert (chapter.extra or {})["big"] == [2**64 + 1, -(2**70), 1e-07, 1e16, 0.1]
    assert chapter_bytes(chapter) == raw


def test_identifiers_outside_ascii_agree() -> None:
    for pid in ["段落1", "x\u00a0y", "x\x1cy", "x\u2003", "\u180e", "a\x7fb"]:
        raw = json.dumps({"id": "a", "paragraphs": [{"id": pid, "text": "t"}]}).encode()
        check_agrees(raw)


def test_unknown_keys_nested_too_deep_get_the_careful_message() -> None:
    raw = b'{\n  "id": "a",\n  "paragraphs": [],\n  "z": ' + b"[" * 210 + b"]" * 210 + b"\n}\n"
    assert parse_fast(raw) is None
    assert "nested more than 200 levels deep" in error_of(raw)


def test_the_collector_is_paused_only_while_loading() -> None:
    assert gc.isenabled()
    parse_chapter(CANONICAL, "ch.json")
    assert gc.isenabled()
    gc.disable()
    try:
        parse_chapter(CANONICAL, "ch.json")
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(ChapterLoadError):
        parse_chapter(b'{"id": 1}', "ch.json")
    assert gc.isenabled()


def test_a_loaded_chapter_saves_its_own_bytes_and_edits_cost_only_what_changed() -> None:
    chapter = parse_chapter(CANONICAL, "ch.json")
    assert chapter_bytes(chapter) == CANONICAL
    para = chapter.paragraphs[1].replace(text="二")
    edited = chapter.with_paragraphs({1: para})
    expected = json.loads(CANONICAL)
    expected["paragraphs"][1]["text"] = "二"
    assert chapter_bytes(edited) == (json.dumps(expected, indent=2, ensure_ascii=False) + "\n").encode()
    assert edited.positions is chapter.positions  # IDs unchanged: the lookup table is shared
