"""Chunks: work sets, original indexes with gaps, greedy packing, line formats, and the partition property."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.chunks import SEPARATOR, ChunkSizeError, build_chunks, empty_work_reason, work_set
from tests.engine.tool_chapters import chapter_of, rashomon_texts

MIXED = ["A", "", "B", "   ", "C", "\u3000", "D", "\ufeff", "E", "\u00a0\ufeff \u3000", "F"]


def test_index_counts_empty_paragraphs_and_skips_them() -> None:
    chapter = chapter_of(["A", "", "B", "   ", "C"], ids=["a", "e1", "b", "e2", "c"])
    (chunk,) = build_chunks(chapter, "translate")
    assert chunk.text == "[1] [ID: a] A\n\n[3] [ID: b] B\n\n[5] [ID: c] C"
    assert chunk.paragraph_ids == ("a", "b", "c")
    assert chunk.paragraph_indexes == (1, 3, 5)


def test_every_kind_of_empty_paragraph_is_left_out() -> None:
    chapter = chapter_of(MIXED)
    (chunk,) = build_chunks(chapter, "translate")
    assert [chapter.index_of(pid) for pid in chunk.paragraph_ids] == [1, 3, 5, 7, 9, 11]
    assert [chapter.paragraph(pid).text for pid in chunk.paragraph_ids] == list("ABCDEF")


def test_translate_work_set_skips_translated_unless_all() -> None:
    chapter = chapter_of(["A", "B", "", "C"], translations={1: "b", 2: "empty but translated"})
    assert work_set(chapter, "translate") == [0, 3]
    assert work_set(chapter, "translate", include_all=True) == [0, 1, 3]


def test_polish_and_proofread_take_translated_non_empty_paragraphs() -> None:
    chapter = chapter_of(["A", "B", "", "C"], translations={1: "b", 2: "x", 3: "c"})
    for task in ("polish", "proofread"):
        assert work_set(chapter, task) == [1, 3]
        assert work_set(chapter, task, include_all=True) == [1, 3]


def test_polish_line_format_shows_source_and_selected_translation() -> None:
    chapter = chapter_of(
        ["", "「おはよう」と彼女は言った。"], ids=["e0", "e58ed763"], translations={1: "“早上好。”她说。"}
    )
    for task in ("polish", "proofread"):
        (chunk,) = build_chunks(chapter, task)
        assert chunk.text == "[2] [ID: e58ed763] Source: 「おはよう」と彼女は言った。\nTranslation: “早上好。”她说。"


def test_translate_line_format() -> None:
    chapter = chapter_of(["「おはよう」と彼女は言った。"], ids=["e58ed763"])
    (chunk,) = build_chunks(chapter, "translate")
    assert chunk.text == "[1] [ID: e58ed763] 「おはよう」と彼女は言った。"


def test_greedy_packing_counts_separators_exactly() -> None:
    # Entries "[n] [ID: pI] " + 90 characters: 103 characters for [1]..[9], 104 for [10].
    chapter = chapter_of(["x" * 90] * 10, ids=[f"p{i}" for i in range(10)])
    exact_two = 103 + len(SEPARATOR) + 103
    chunks = build_chunks(chapter, "translate", chunk_chars=exact_two)
    assert [len(c.paragraph_ids) for c in chunks] == [2, 2, 2, 2, 1, 1]
    assert len(chunks[0].text) == exact_two
    assert all(len(c.text) <= exact_two for c in chunks)
    one_less = build_chunks(chapter, "translate", chunk_chars=exact_two - 1)
    assert [len(c.paragraph_ids) for c in one_less] == [1] * 10
    assert [c.index for c in chunks] == [1, 2, 3, 4, 5, 6]
    assert {c.total for c in chunks} == {6}


def test_oversized_paragraph_is_a_chunk_of_its_own_never_split() -> None:
    texts = ["short one", "y" * 700, "short two", "short three"]
    chunks = build_chunks(chapter_of(texts, ids=["a", "b", "c", "d"]), "translate", chunk_chars=200)
    assert [c.paragraph_ids for c in chunks] == [("a",), ("b",), ("c", "d")]
    assert chunks[1].text == "[2] [ID: b] " + "y" * 700


def test_chunk_size_bounds() -> None:
    chapter = chapter_of(["A"])
    for bad in (0, 199, 50001):
        with pytest.raises(ChunkSizeError, match="from 200 to 50000"):
            build_chunks(chapter, "translate", chunk_chars=bad)
    assert build_chunks(chapter, "translate", chunk_chars=200)
    assert build_chunks(chapter, "translate", chunk_chars=50000)


def test_heading_and_json_shape() -> None:
    chapter = chapter_of(["A", "", "B"], ids=["a", "e", "b"])
    (chunk,) = build_chunks(chapter, "translate")
    assert chunk.heading() == "── chunk 1/1 · 2 paragraphs · [1]–[3] ──"
    assert chunk.to_json() == {"index": 1, "paragraph_ids": ["a", "b"], "text": "[1] [ID: a] A\n\n[3] [ID: b] B"}
    (single,) = build_chunks(chapter_of(["", "A"], ids=["e", "a"]), "translate")
    assert single.heading() == "── chunk 1/1 · 1 paragraph · [2] ──"


def test_empty_work_set_gives_no_chunks() -> None:
    assert build_chunks(chapter_of(["", " "]), "translate") == []
    assert build_chunks(chapter_of(["A"]), "polish") == []


def test_an_empty_work_set_says_why() -> None:
    blank, untranslated, translated = (
        chapter_of(["", " "]),
        chapter_of(["A", ""]),
        chapter_of(["A"], translations={0: "a"}),
    )
    assert empty_work_reason(blank, "translate") == "the chapter has no text"
    assert empty_work_reason(blank, "polish") == "the chapter has no text"
    assert empty_work_reason(untranslated, "polish") == empty_work_reason(untranslated, "proofread")
    assert empty_work_reason(untranslated, "proofread") == "no paragraph has a translation yet"
    assert empty_work_reason(translated, "translate") == "every paragraph has a translation already"
    assert empty_work_reason(translated, "polish", stale=True) == "no paragraph's source changed since its translation"
    for chapter, task in ((blank, "translate"), (untranslated, "polish"), (translated, "translate")):
        assert work_set(chapter, task) == []  # each reason above is for a set that is empty


def test_bases_record_source_and_selection_at_build_time() -> None:
    chapter = chapter_of(["A", "B"], ids=["a", "b"], translations={1: "b"})
    (chunk,) = build_chunks(chapter, "translate", include_all=True)
    bases = chunk.base_states()
    assert bases["a"].source_text == "A" and bases["a"].selected_translation_id is None
    assert bases["b"].selected_translation_id == chapter.paragraph("b").selected_translation_id


def test_rashomon_chunks_cover_the_real_text() -> None:
    texts = rashomon_texts()
    chapter = chapter_of(texts)
    chunks = build_chunks(chapter, "translate")
    covered = [pid for c in chunks for pid in c.paragraph_ids]
    assert covered == [chapter.paragraphs[p].id for p in work_set(chapter, "translate")]
    assert len(covered) < len(texts)  # the blank lines became empty paragraphs, left out
    assert all(len(c.text) <= 4000 or len(c.paragraph_ids) == 1 for c in chunks)


# -- property tests -------------------------------------------------------------------------------------

_text = st.one_of(
    st.sampled_from(["", " ", "\u3000", "\ufeff", "\u00a0", "\ufeff\u3000 "]),
    st.text(min_size=1, max_size=400),
)


@settings(max_examples=150, deadline=None)
@given(
    texts=st.lists(_text, min_size=0, max_size=40),
    translated=st.lists(st.booleans(), min_size=40, max_size=40),
    budget=st.integers(min_value=200, max_value=1500),
    task=st.sampled_from(["translate", "polish", "proofread"]),
    include_all=st.booleans(),
)
def test_chunks_partition_the_work_set_in_order(
    texts: list[str], translated: list[bool], budget: int, task: str, include_all: bool
) -> None:
    chapter = chapter_of(texts, translations={i: f"T{i}" for i, t in enumerate(translated[: len(texts)]) if t})
    chunks = build_chunks(chapter, task, chunk_chars=budget, include_all=include_all)
    expected = [chapter.paragraphs[p].id for p in work_set(chapter, task, include_all=include_all)]
    assert [pid for c in chunks for pid in c.paragraph_ids] == expected
    for c in chunks:
        assert c.total == len(chunks)
        assert len(c.text) <= budget or len(c.paragraph_ids) == 1
        assert len(c.entries) == len(c.paragraph_ids)
        for entry, pid, index in zip(c.entries, c.paragraph_ids, c.paragraph_indexes, strict=True):
            assert entry.startswith(f"[{index}] [ID: {pid}] ")
            assert chapter.index_of(pid) == index
            assert not chapter.paragraph(pid).is_empty
    # Greedy: the next chunk's first entry would not have fitted into the previous chunk.
    for before, after in itertools.pairwise(chunks):
        assert len(before.text) + len(SEPARATOR) + len(after.entries[0]) > budget
