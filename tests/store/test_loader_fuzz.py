"""Loader fuzzing: random bytes and JSON give a valid chapter or the one-line error, never another exception."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store.errors import ChapterLoadError
from store.loader import parse_chapter
from store.model import ORIGINS, Chapter, Paragraph, TranslationVersion
from store.serialize import chapter_bytes
from tests.store.documents import chapter_document

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
identifiers = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")), min_size=1, max_size=10
).filter(lambda s: not any(c.isspace() for c in s))
texts = st.text(max_size=40)


@st.composite
def chapters(draw: st.DrawFn) -> Chapter:
    ids = draw(st.lists(identifiers, unique=True, max_size=8))
    paragraphs = []
    for pid in ids:
        vids = draw(st.lists(identifiers, unique=True, max_size=3))
        versions = tuple(
            TranslationVersion(
                id=v,
                text=draw(texts),
                origin=draw(st.sampled_from(ORIGINS)),
                model=draw(st.none() | texts),
                created_at="2026-11-22T00:00:00Z",
            )
            for v in vids
        )
        selected = draw(st.none() | st.sampled_from(vids)) if vids else None
        paragraphs.append(
            Paragraph(
                id=pid,
                text=draw(texts),
                translations=versions,
                selected_translation_id=selected,
                reviewed=draw(st.booleans()),
            )
        )
    extras = draw(st.dictionaries(st.sampled_from(["future", "meta", "x-y"]), json_values, max_size=2))
    return Chapter(id=draw(identifiers), title=draw(st.none() | texts), paragraphs=tuple(paragraphs), extra=extras)


def _load_or_clean_error(raw: bytes) -> Chapter | None:
    try:
        return parse_chapter(raw, "fuzz.json")
    except ChapterLoadError as exc:
        assert "\n" not in exc.line and exc.line.startswith("fuzz.json")
        return None


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_never_raise_anything_else(raw: bytes) -> None:
    _load_or_clean_error(raw)


@FUZZ
@given(json_values)
def test_random_json_never_raises_anything_else(value: object) -> None:
    _load_or_clean_error(json.dumps(value).encode())


@FUZZ
@given(st.lists(st.integers(0xD700, 0xE000), min_size=1, max_size=4), st.booleans())
def test_surrogate_escapes_load_or_fail_cleanly(codes: list[int], as_key: bool) -> None:
    escaped = "".join(f"\\u{c:04x}" for c in codes)
    field = f'"{escaped}": 1, "text": "t"' if as_key else f'"text": "{escaped}"'
    raw = ('{"id": "a", "paragraphs": [{"id": "x", ' + field + "}]}").encode()
    chapter = _load_or_clean_error(raw)
    if chapter is not None:
        assert parse_chapter(chapter_bytes(chapter), "fuzz.json") == chapter  # whatever loads can be saved


@FUZZ
@given(chapters(), st.data())
def test_mutated_chapters_never_raise_anything_else(chapter: Chapter, data: st.DataObject) -> None:
    raw = chapter_bytes(chapter)
    cut = data.draw(st.integers(0, len(raw)))
    _load_or_clean_error(raw[:cut])
    doc = chapter_document(chapter)
    key = data.draw(st.sampled_from(sorted(doc)))
    doc[key] = data.draw(json_values)
    _load_or_clean_error(json.dumps(doc, ensure_ascii=False).encode())


@FUZZ
@given(chapters())
def test_save_load_is_identity_and_serialiser_matches_json_dumps(chapter: Chapter) -> None:
    raw = chapter_bytes(chapter)
    assert raw == (json.dumps(chapter_document(chapter), indent=2, ensure_ascii=False) + "\n").encode()
    again = parse_chapter(raw, "fuzz.json")
    assert again == chapter
    assert chapter_bytes(again) == raw
