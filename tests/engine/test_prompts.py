"""Prompts: the key sentences (snapshots), byte-identical system prompts per run, the chunk message, overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.chunks import TaskType, build_chunks
from engine.prompts import PromptError, PromptSet, user_prompts_dir
from engine.services import TaskService, TaskSetupError
from tests.engine.tool_chapters import chapter_of, rashomon_texts

SUBMIT = "Submit with add_translation_batch by the paragraph_id from [ID: …], never by the [n] index: translated_text"
REJECTED = "If a batch is rejected, fix what the error names and send it again."
WARNINGS = "If an accepted batch carries warnings, resubmit those paragraphs corrected."
REVIEWED = '"(reviewed by the editor: suggest only a real error)"'
GLOSSARY = 'Use the Glossary lines\' translations (a "(proposed)" one unless clearly wrong).'
INDEX = "[n] is for reading only: submit"
ONLY_CHANGED = "Submit only the paragraphs you change."


@pytest.mark.parametrize("task", ["translate", "polish", "proofread"])
def test_system_prompt_key_sentences(task: str) -> None:
    text = PromptSet.load().system_prompt(task, source_language="ja", target_language="zh-Hans")
    for sentence in (SUBMIT, REJECTED, WARNINGS, REVIEWED, GLOSSARY):
        assert sentence in text
    # A translate chunk ends once every paragraph is accepted; a polish/proofread one on `no changes`.
    assert ("answer `no changes` without a tool call" in text) == (task != "translate")
    assert "Japanese (ja)" in text and "Simplified Chinese (zh-Hans)" in text
    assert "$" not in text  # every placeholder filled
    # Each rule is stated once, but for the seeds' first (submit by paragraph_id): what else the chunk message says
    # (the [n] numbers skip, only the changed paragraphs) and the batch limit (the schema's
    # maxItems) are not repeated here.
    assert "skip" not in text and ONLY_CHANGED not in text
    assert '"(context)" lines are neighbours, for reading only.' in text  # design 17: the prompt says what they are
    assert "20" not in text


@pytest.mark.parametrize(("task", "translated"), [("translate", False), ("polish", True), ("proofread", True)])
def test_the_chunk_message_states_the_index_and_id_rules(task: TaskType, translated: bool) -> None:
    chapter = chapter_of(["A", "B"], ids=["a", "b"], translations={0: "x", 1: "y"} if translated else None)
    message = PromptSet.load().chunk_message(build_chunks(chapter, task)[0])
    assert "Empty paragraphs were left out, so the [n] numbers may skip." in message
    assert INDEX in message and "using the paragraph_id shown as [ID: …]" in message
    assert (ONLY_CHANGED in message) is (task != "translate")


def test_the_batch_limit_reaches_the_model_through_the_schema() -> None:
    (config, *_) = TaskService(chapter_of(["A", "B"]), "translate", max_batch=8).loop_configs()
    (batch,) = [t["function"] for t in config.tools if t["function"]["name"] == "add_translation_batch"]
    assert batch["parameters"]["properties"]["paragraphs"]["maxItems"] == 8


def test_translate_prompt_opening_snapshot() -> None:
    text = PromptSet.load().system_prompt("translate", source_language="ja", target_language="en", max_batch=8)
    assert text.splitlines()[0] == (
        "You are a literary translator from Japanese (ja) into English (en), working through a book chapter chunk "
        "by chunk. Translate faithfully and naturally: keep meaning, tone and register; add, omit and summarise "
        "nothing; one paragraph for each; keep names and terms consistent."
    )
    assert "A paragraph marked " + REVIEWED + " is translated too: your text becomes a suggestion." in text


def test_unknown_or_missing_languages() -> None:
    text = PromptSet.load().system_prompt("polish", source_language="xx-Test", target_language=None)
    assert "written in xx-Test" in text and "a translation into the target language of" in text


@pytest.mark.parametrize(("task", "translated"), [("translate", False), ("polish", True), ("proofread", True)])
def test_system_prompt_and_tools_are_byte_identical_for_every_chunk(task: TaskType, translated: bool) -> None:
    texts = rashomon_texts()
    chapter = chapter_of(texts, translations={i: f"T{i}" for i in range(len(texts))} if translated else None)
    configs = TaskService(chapter, task, chunk_chars=1000).loop_configs()
    assert len(configs) > 3
    assert len({c.system_prompt for c in configs}) == 1
    assert len({repr(c.tools) for c in configs}) == 1
    system = configs[0].system_prompt
    for c in configs:  # nothing chunk-specific in the system prompt
        assert all(pid not in system for pid in c.paragraph_ids)
        assert f"part {c.chunk_index} of" not in system
        assert c.initial_messages() == [
            {"role": "system", "content": system},
            {"role": "user", "content": c.user_message},
        ]


def test_chunk_message_translate() -> None:
    chapter = chapter_of(["A", "", "B", "C"], ids=["a", "e", "b", "c"])
    (chunk,) = build_chunks(chapter, "translate")
    message = PromptSet.load().chunk_message(chunk)
    assert message == (
        "This is part 1 of 1 of the chapter. It holds 3 paragraphs to translate, [1] to [4].\n"
        "Empty paragraphs were left out, so the [n] numbers may skip. [n] is for reading only: submit every result "
        "with add_translation_batch using the paragraph_id shown as [ID: …].\n\n"
        "[1] [ID: a] A\n\n[3] [ID: b] B\n\n[4] [ID: c] C"
    )


def test_chunk_message_polish_says_only_changed() -> None:
    chapter = chapter_of(["A", "B"], ids=["a", "b"], translations={0: "x", 1: "y"})
    chunks = build_chunks(chapter, "polish", chunk_chars=200)
    message = PromptSet.load().chunk_message(chunks[0])
    assert message.startswith("This is part 1 of 1 of the chapter. It holds 2 paragraphs to polish, [1] to [2].")
    assert ONLY_CHANGED in message
    assert message.endswith(chunks[0].text)


def test_user_override_from_the_config_dir() -> None:
    folder = user_prompts_dir()
    assert "proofdesk" in folder.parts  # the platform config dir, isolated per test by conftest
    folder.mkdir(parents=True)
    (folder / "translate_system.md").write_text(
        "Translate $source_language to $target_language. Cost: $$5.\n", encoding="utf-8"
    )
    prompts = PromptSet.load()
    assert prompts.sources["translate_system.md"] == folder / "translate_system.md"
    assert (
        prompts.system_prompt("translate", source_language="ja", target_language="en")
        == "Translate Japanese (ja) to English (en). Cost: $5."
    )
    # Templates not overridden still come from the package.
    assert prompts.sources["polish_system.md"].parent.name == "prompts"
    assert SUBMIT in prompts.system_prompt("polish", source_language="ja", target_language="en")


def test_one_set_per_process_until_a_file_changes(tmp_path: Path) -> None:
    (tmp_path / "translate_system.md").write_text("To $target_language.\n", encoding="utf-8")
    first = PromptSet.load(tmp_path)
    assert PromptSet.load(tmp_path) is first  # the chapters of a --jobs run share it
    prompt = first.system_prompt("translate", source_language="ja", target_language="en")
    assert first.system_prompt("translate", source_language="ja", target_language="en") is prompt
    assert first.system_prompt("translate", source_language="ja", target_language="de") == "To German (de)."
    (tmp_path / "translate_system.md").write_text("Into $target_language, please.\n", encoding="utf-8")
    edited = PromptSet.load(tmp_path)
    assert edited is not first
    assert edited.system_prompt("translate", source_language="ja", target_language="en") == "Into English (en), please."
    (tmp_path / "translate_system.md").unlink()  # back to the packaged file
    assert PromptSet.load(tmp_path).sources["translate_system.md"].parent.name == "prompts"


def test_unreadable_override_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "chunk_revise.md").write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(PromptError, match=r"chunk_revise\.md: cannot read prompt file"):
        PromptSet.load(tmp_path)


def test_translating_needs_a_target_language() -> None:
    with pytest.raises(TaskSetupError, match="target language"):
        TaskService(chapter_of(["A"], target_language=None), "translate")
    assert (
        TaskService(chapter_of(["A"], target_language=None), "translate", target_language="de").target_language == "de"
    )
