"""The serialiser's orjson path and its caches write exactly ``json.dumps(doc, indent=2, ensure_ascii=False)``."""

from __future__ import annotations

import json

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store.loader import parse_chapter
from store.model import ORIGINS, Chapter, Paragraph, TranslationVersion, append_version
from store.model_check import checked_chapter
from store.serialize import chapter_bytes
from tests.store.documents import chapter_document
from tests.store.test_loader_fuzz import chapters

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Every character json.dumps and orjson could escape differently: controls, quotes, backslash, DEL, the line
# and paragraph separators, BOM, non-characters, astral characters.
tricky = st.text(
    alphabet=st.one_of(
        st.characters(max_codepoint=0xA0),
        st.sampled_from('\u2028\u2029\ufeff\ufffe\uffff\U0001f600\U0010ffff\u00ad\u200b\u202e"\\/'),
        st.characters(blacklist_categories=("Cs",)),
    ),
    max_size=30,
)


def reference(chapter: Chapter) -> bytes:
    return (json.dumps(chapter_document(chapter), indent=2, ensure_ascii=False) + "\n").encode()


@st.composite
def plain_chapters(draw: st.DrawFn) -> Chapter:
    """Chapters without unknown keys, with texts full of characters that need escaping."""
    paragraphs = []
    for i in range(draw(st.integers(0, 6))):
        versions = tuple(
            TranslationVersion(
                id=f"v{i}.{j}",
                text=draw(tricky),
                origin=draw(st.sampled_from(ORIGINS)),
                model=draw(st.none() | tricky),
                created_at=draw(tricky),
            )
            for j in range(draw(st.integers(0, 3)))
        )
        selected = draw(st.none() | st.sampled_from([v.id for v in versions])) if versions else None
        paragraphs.append(
            Paragraph(
                id=f"p{i}",
                text=draw(tricky),
                translations=versions,
                selected_translation_id=selected,
                reviewed=draw(st.booleans()),
            )
        )
    return Chapter(
        id="ch", title=draw(st.none() | tricky), source_language=draw(st.none() | tricky), paragraphs=tuple(paragraphs)
    )


@FUZZ
@given(plain_chapters() | chapters())
def test_every_way_to_the_bytes_matches_json_dumps(chapter: Chapter) -> None:
    expected = reference(chapter)
    assert chapter_bytes(chapter) == expected  # nothing cached: one orjson call (or by hand, for unknown keys)
    loaded = parse_chapter(expected, "ch.json")
    assert chapter_bytes(loaded) == expected  # cut out of the file it was read from
    assert chapter_bytes(checked_chapter(chapter_document(chapter))) == expected
    if loaded.paragraphs:
        pos = len(loaded.paragraphs) // 2
        para, _ = append_version(loaded.paragraphs[pos], '新\u2028"訳"', origin="manual", model=None)
        edited = loaded.with_paragraphs({pos: para})
        assert chapter_bytes(edited) == reference(edited)


def test_orjson_escapes_every_character_as_json_dumps() -> None:
    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    assert orjson.dumps([text], option=orjson.OPT_INDENT_2) == json.dumps([text], indent=2, ensure_ascii=False).encode()


def test_values_orjson_would_write_differently_are_written_by_hand() -> None:
    para = Paragraph(id="p", text="t").replace(reviewed=1, future=1e-07)
    chapter = Chapter(id="ch", paragraphs=(para,))
    raw = chapter_bytes(chapter)
    assert b'"reviewed": true' in raw and b'"future": 1e-07' in raw


def test_a_lone_surrogate_is_still_a_unicode_error() -> None:
    chapter = Chapter(id="ch", paragraphs=(Paragraph(id="a", text="ok"), Paragraph(id="b", text="x\ud800")))
    with pytest.raises(UnicodeEncodeError):
        chapter_bytes(chapter)


def test_a_commit_encodes_only_what_it_touched() -> None:
    chapter = parse_chapter(
        reference(Chapter(id="ch", paragraphs=tuple(Paragraph(id=f"p{i}", text=f"text {i}") for i in range(50)))),
        "ch.json",
    )
    chapter_bytes(chapter)
    para, _ = append_version(chapter.paragraphs[7], "seven", origin="manual", model=None)
    edited = chapter.with_paragraphs({7: para})
    inners = edited.cached("inners")
    assert inners is not None and inners.count(None) == 1 and inners[7] is None
    assert chapter_bytes(edited) == reference(edited)
    assert edited.cached("inners")[8] is chapter.cached("inners")[8]  # the same bytes object, not a copy
