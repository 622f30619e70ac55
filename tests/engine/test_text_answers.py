"""Text answers: the ``[ID: …]`` lines a model writes instead of a call, read exactly (design section 19)."""

from __future__ import annotations

import pytest

from engine.chunks import PROTECTED_MARK
from engine.text_answers import TextItem, text_items

A, B = "a0000001", "a0000003"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (f"[ID: {A}] One.\n[ID: {B}] Two.", [(A, "One."), (B, "Two.")]),
        (f"[1] [ID: {A}] One.\n[3] [ID: {B}] Two.", [(A, "One."), (B, "Two.")]),
        (f"- [ID: {A}] One.\n* [ID: {B}] Two.", [(A, "One."), (B, "Two.")]),
        (f"**[ID: {A}]** One.\n**[ID: {B}] Two.**", [(A, "One."), (B, "Two.")]),
        (f"**[1] [ID: {A}]:** One.\n- **[3]** [ID: {B}] Two.", [(A, "One."), (B, "Two.")]),
        (f"[ ID : {A} ] One.\n[id:{B}] Two.", [(A, "One."), (B, "Two.")]),
        (f"[ID: {A}] Translation: One.\n[ID: {B}]: translation: Two.", [(A, "One."), (B, "Two.")]),
        (f"```\n[ID: {A}] One.\n[ID: {B}] Two.\n```", [(A, "One."), (B, "Two.")]),
        (f"```text\n[ID: {A}] One.\n```\nThat is all.", [(A, "One.")]),
    ],
    ids=["plain", "index", "bullets", "bold", "bold index colon", "spaces", "translation label", "fence", "fence end"],
)
def test_every_form_of_an_id_line(content: str, expected: list[tuple[str, str]]) -> None:
    assert text_items(content) == [TextItem(pid, text) for pid, text in expected]


def test_an_item_runs_to_the_next_id_line_or_blank_line_and_text_before_is_ignored() -> None:
    content = (
        "Sure! Here are the translations of the chunk.\nThey follow the style guide.\n\n"
        f"[ID: {A}] First line,\nsecond line.\n[ID: {B}]\nOn the next line.\n\nA closing remark, not a paragraph."
    )
    assert text_items(content) == [TextItem(A, "First line,\nsecond line."), TextItem(B, "On the next line.")]


def test_an_item_written_as_a_revising_chunk_shows_it_is_its_translation_part() -> None:
    content = (
        f"[1] [ID: {A}] Source: 雨が降っていた。\nTranslation: It was raining.\n{PROTECTED_MARK}\n"
        f"[3] [ID: {B}] **Source:** 下人は待っていた。\n**Translation:** The servant waited,\nand waited."
    )
    assert text_items(content) == [TextItem(A, "It was raining."), TextItem(B, "The servant waited,\nand waited.")]
    # Without a Translation line the text stays as written (a source sent back is for the batch's checks to catch).
    assert text_items(f"[ID: {A}] Source: 雨が降っていた。") == [TextItem(A, "Source: 雨が降っていた。")]
    assert text_items(f"[ID: {A}] The source: a gate.\nTranslation: kept") == [
        TextItem(A, "The source: a gate.\nTranslation: kept")
    ]


def test_an_item_that_only_says_no_change_is_no_text() -> None:
    content = (
        f"[ID: {A}] No changes.\n[ID: {B}] (unchanged)\n[ID: c0000005] **No changes needed**\n[ID: d] No, change it."
    )
    assert text_items(content) == [TextItem("d", "No, change it.")]
    assert text_items(f"- [ID: {A}] no change\n- [ID: {B}] Unchanged.") is None  # no text at all: not a text answer


def test_repeats_blanks_and_unknown_ids_are_kept_for_the_batch_to_refuse() -> None:
    content = f"[ID: {A}] One.\n[ID: zzzzzzzz] Two.\n[ID: {A}]\n\n[ID: {B}] Three."
    expected = [TextItem(A, "One."), TextItem("zzzzzzzz", "Two."), TextItem(A, ""), TextItem(B, "Three.")]
    assert text_items(content) == expected


@pytest.mark.parametrize(
    "content",
    ["", "I could not translate this.", f"Using each paragraph_id as shown in [ID: {A}], I will submit.", "[3] One."],
)
def test_text_without_an_id_line_is_not_a_text_answer(content: str) -> None:
    assert text_items(content) is None
