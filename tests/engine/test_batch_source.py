"""add_translation_batch against the paragraph's source (design section 19): a text that is the source again is
refused with SAME_AS_SOURCE and never replaces a translation; original_text_prefix is compared ignoring whitespace
and the width of punctuation."""

from __future__ import annotations

from pathlib import Path

from store.loader import load_chapter
from tests.engine.test_batch import rejected, submit
from tests.engine.tool_chapters import chapter_of, write_chapter

SOURCES = ["「おはよう！」と彼女は言った：はい，そうです。", "下人は待っていた。", "羅生門"]
IDS = ["p1", "p2", "p3"]


def translated(folder: Path, *, target: str = "en") -> Path:
    translations = {0: "Good morning.", 1: "The servant waited."}
    chapter = chapter_of(SOURCES, ids=IDS, translations=translations, target_language=target)
    return write_chapter(folder / "ch01.json", chapter)


async def test_the_source_sent_as_a_translation_is_refused_and_the_old_translation_kept(tmp_path: Path) -> None:
    path = translated(tmp_path)
    items = [
        {"paragraph_id": "p2", "translated_text": "The servant was waiting."},
        {"paragraph_id": "p1", "translated_text": " 「おはよう！」と彼女は言った：\nはい，そうです。"},  # spacing aside
    ]
    result = await rejected(path, items, "SAME_AS_SOURCE")  # the file is byte-identical: nothing was written
    assert result["invalid_paragraph_ids"] == ["p1"]
    assert result["invalid_items"] == [
        {
            "item": 2,
            "code": "SAME_AS_SOURCE",
            "reason": "the text of 'p1' is (or holds) its source, not a translation",
            "paragraph_id": "p1",
        }
    ]
    assert "not a translation into en" in result["error"] and "never its source" in result["hint"]
    chapter = load_chapter(path)
    assert [chapter.paragraph(pid).selected_text for pid in IDS] == [  # type: ignore[union-attr]
        "Good morning.",
        "The servant waited.",
        None,
    ]


async def test_a_chunk_entry_echoed_back_with_its_source_is_refused_too(tmp_path: Path) -> None:
    """A polish chunk's entry repeated as the text (``Source: … Translation: …``, as a text answer may read it) is not
    a translation either; a text that only keeps a name of the source is."""
    path = translated(tmp_path)
    echoes = (
        f"Source: {SOURCES[1]}\nTranslation: The servant waited.",
        f"source:  {SOURCES[1]}",
        f"Source: {SOURCES[1]}\nTranslation: The servant waited.\n(reviewed by the editor: suggest only a real error)",
    )
    for echoed in echoes:
        result = await rejected(path, [{"paragraph_id": "p2", "translated_text": echoed}], "SAME_AS_SOURCE")
        assert result["invalid_paragraph_ids"] == ["p2"]
    kept = await submit(path, [{"paragraph_id": "p3", "translated_text": "The gate, 羅生門 (Rashōmon)."}])
    assert kept["success"] is True and kept["accepted"] == ["p3"]


async def test_a_name_every_language_writes_alike_and_a_pair_of_one_language_are_not_the_source_again(
    tmp_path: Path,
) -> None:
    path = translated(tmp_path)
    good = await submit(path, [{"paragraph_id": "p3", "translated_text": "羅生門"}])  # a title: nothing to translate
    assert good["success"] is True and good["accepted"] == ["p3"]
    (tmp_path / "ja").mkdir()
    same_language = translated(tmp_path / "ja", target="ja")
    kept = await submit(same_language, [{"paragraph_id": "p2", "translated_text": "下人は待っていた。"}])
    assert kept["success"] is True and kept["accepted"] == ["p2"]


async def test_original_text_prefix_ignores_whitespace_and_the_width_of_punctuation(tmp_path: Path) -> None:
    path = translated(tmp_path)
    for prefix in ("「おはよう!」と 彼女は言った:はい,そう", "「おはよう！」と彼女は言った：はい，", "  「 おはよう"):
        result = await submit(
            path, [{"paragraph_id": "p1", "translated_text": "Morning!", "original_text_prefix": prefix}]
        )
        assert result["success"] is True, (prefix, result)
    # The words still count: another paragraph's start is refused, with the source's real start shown.
    wrong = await rejected(
        path,
        [{"paragraph_id": "p1", "translated_text": "Morning!", "original_text_prefix": "下人は"}],
        "PREFIX_MISMATCH",
    )
    assert wrong["invalid_items"][0]["source_start"] == "「おはよう！」と彼女は言った：はい，そうです。"[:20]
