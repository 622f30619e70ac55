"""What a polish/proofread answer without a call says: empty, ``no changes``, an echo of the chunk, or else."""

from __future__ import annotations

import pytest

from engine.chapter_source import StaticChapter
from engine.chunks import build_chunks
from engine.echoes import TextAnswer, classify
from engine.loop_config import ToolCallLoopConfig
from engine.nudges import ChunkNudges
from engine.prompts import PromptSet
from engine.scope import ChunkScope
from tests.engine.tool_chapters import chapter_of

ENTRIES = {
    "a1": "[1] [ID: a1] Source: 雨が降っていた。\nTranslation: It was raining.",
    "a3": "[3] [ID: a3] Source: 下人は待っていた。\nTranslation: The servant waited.",
}
MESSAGE = (
    "This is part 1 of 1 of the chapter. It holds 2 paragraphs to polish, [1] to [3].\n"
    "Submit only the paragraphs you change. When none is left to change, answer `no changes`.\n\n"
    + "\n\n".join(ENTRIES.values())
)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("", "empty"),
        ("  \n ", "empty"),
        (MESSAGE, "echo"),  # the whole chunk message back: its `no changes` is not the model's word
        ("\n\n".join(ENTRIES.values()), "echo"),
        ("[ID: a1] It was raining.\n[ID: a3] The servant waited.", "echo"),  # the translations only
        ("- **[ID: a1]** Translation: It was raining.\n\nSure!", "echo"),
        ("[1] [ID: a1] It  was\nraining.", "echo"),  # whitespace aside
        ("Here it is:\n```\n" + "\n\n".join(ENTRIES.values()) + "\n```", "echo"),  # in a code fence
        ("[ID: a1] It was pouring.\n[ID: a3] The servant waited.", "other"),  # a change, written as text
        ("[ID: zz] whatever", "other"),  # no paragraph of the chunk
        ("I have reviewed the chunk.", "other"),
        ("No changes.", "no_changes"),
        ("no further changes needed", "no_changes"),
        ("\n\n".join(ENTRIES.values()) + "\n\nNo changes.", "no_changes"),
    ],
)
def test_an_answer_is_read_for_what_it_says(content: str, expected: TextAnswer) -> None:
    assert classify(content, ENTRIES, True, MESSAGE) == expected


def test_a_translate_answer_is_never_an_echo_or_no_changes() -> None:
    assert classify("No changes.", ENTRIES, False, MESSAGE) == "other"
    assert classify(MESSAGE, ENTRIES, False, MESSAGE) == "other"
    assert classify("", ENTRIES, False, MESSAGE) == "empty"


def test_the_nudges_tell_an_echo_of_a_revising_chunk_only() -> None:
    prompts = PromptSet.load()
    for task, echoes in (("polish", True), ("proofread", True), ("translate", False)):
        translations = {} if task == "translate" else {0: "Rain.", 1: "Wait."}
        chapter = chapter_of(["雨が降っていた。", "下人は待っていた。"], ids=["a1", "a3"], translations=translations)
        (chunk,) = build_chunks(chapter, task)
        config = ToolCallLoopConfig(
            scope=ChunkScope.for_chunk(chunk, StaticChapter(chapter)),
            system_prompt="",
            user_message=prompts.chunk_message(chunk),
            tools=(),
        )
        nudges = ChunkNudges(config)
        assert nudges.echoed(config.user_message) is echoes
        assert not nudges.echoed("[ID: a1] Pouring rain.")
