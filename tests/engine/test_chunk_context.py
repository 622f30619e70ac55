"""Context lines around a chunk (design section 17): read-only text in the chunk message, never part of the chunk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.checks.dismissal import dismiss
from engine.chunk_context import AFTER_HEADING, BEFORE_HEADING, ContextSettings, chunk_context
from engine.chunks import build_chunks
from engine.config import RunDefaults
from engine.run_request import RunRequest
from engine.services import TaskService
from engine.tools import default_registry
from store.commit import ChapterStore
from store.loader import load_chapter
from store.model import Chapter
from store.serialize import chapter_bytes
from tests.engine.loop_support import collect, settings_for
from tests.engine.tool_chapters import chapter_of
from tests.support.model_server import ModelServer, RecordedRequest, Scripted, text_reply, tool_reply
from tui.cli import main

# Ten paragraphs, [3] empty, each ~100 characters as an entry (a budget of 250 holds two); English texts are clean
# translations, kana left in one is an error (KANA_LEFT).
FILL = "雨は羅生門をつつんで遠くからざあっと云う音をあつめて来る。" * 3
NUMBERS = ["一", "二", "", "四", "五", "六", "七", "八", "九", "十"]
TEXTS = [f"{n}。{FILL}" if n else "" for n in NUMBERS]
SMALL = 250
IDS = [f"q{i}" for i in range(1, 11)]


def book(translated: dict[int, str]) -> Chapter:
    return chapter_of(TEXTS, ids=IDS, translations=translated)


def chunk_of(chapter: Chapter, first: int, last: int, task: str = "translate"):  # type: ignore[no-untyped-def]
    """The chunk holding paragraphs [first]..[last] (1-based) of the translate work set."""
    for chunk in build_chunks(chapter, task, chunk_chars=200, include_all=True):  # type: ignore[arg-type]
        if chunk.first_index == first and chunk.last_index == last:
            return chunk
    raise AssertionError("no such chunk")


def test_before_nearest_last_after_in_order_with_clean_translations_only() -> None:
    chapter = book({0: "One.", 1: "ふたつ", 3: "Four."})
    chunk = next(c for c in build_chunks(chapter, "translate", chunk_chars=SMALL) if c.first_index == 5)
    context = chunk_context(chapter, chunk, ContextSettings(before=3, after=1))
    assert [line.index for line in context.before] == [1, 2, 4]  # the empty [3] is skipped; nearest last
    assert context.before_section() == (
        f"{BEFORE_HEADING}\n(context) [1] {TEXTS[0]}\n  → One.\n(context) [2] {TEXTS[1]}\n"
        f"(context) [4] {TEXTS[3]}\n  → Four."
    )  # [2]'s translation keeps kana (an error): its source is shown, never its translation
    assert [line.index for line in context.after] == [7]  # the chunk is [5] and [6]


def test_reviewed_or_dismissed_errors_make_a_translation_clean() -> None:
    chapter = book({0: "ひとつ", 1: "ふたつ", 3: "Four."})
    paragraphs = list(chapter.paragraphs)
    paragraphs[0] = paragraphs[0].replace(reviewed=True)
    paragraphs[1] = dismiss(paragraphs[1], "KANA_LEFT", "ふたつ")
    chapter = chapter.replace(paragraphs=tuple(paragraphs))
    chunk = next(c for c in build_chunks(chapter, "translate", chunk_chars=SMALL) if c.first_index == 5)
    section = chunk_context(chapter, chunk, ContextSettings(before=3)).before_section()
    assert "  → ひとつ" in section and "  → ふたつ" in section


def test_context_lines_show_no_ids_and_their_paragraphs_stay_outside_the_chunk(tmp_path: Path) -> None:
    chapter = book({0: "One.", 1: "Two."})
    path = tmp_path / "ch.json"
    path.write_bytes(chapter_bytes(chapter))
    service = TaskService(load_chapter(path), "translate", source=ChapterStore(path), chunk_chars=SMALL)
    config = service.loop_configs()[0]
    message = config.user_message
    assert f"(context) [1] {TEXTS[0]}" in message and "[ID: q1]" not in message and "[ID: q2]" not in message
    assert message.index(BEFORE_HEADING) < message.index("[4] [ID: q4]")
    import asyncio

    reply = asyncio.run(
        default_registry().call(
            "add_translation_batch", {"paragraphs": [{"paragraph_id": "q1", "translated_text": "x"}]}, config.scope
        )
    )
    assert reply.result["error_code"] == "NOT_IN_CHUNK"
    neighbours = asyncio.run(
        default_registry().call("get_previous_paragraphs", {"paragraph_id": config.paragraph_ids[0]}, config.scope)
    )
    assert neighbours.result["error_code"] == "CHUNK_BOUNDARY"


def test_after_comes_before_the_glossary_and_the_instruction() -> None:
    chapter = book({})
    service = TaskService(chapter, "translate", chunk_chars=SMALL, instruction="more formal")
    config = service.loop_configs()[0]
    message = config.user_message
    assert message.index(config.chunk.entries[-1]) < message.index(AFTER_HEADING)
    assert message.rstrip().endswith("The editor's instruction for this work: more formal")
    assert message.index(AFTER_HEADING) < message.index("The editor's instruction")


def test_the_cap_drops_whole_paragraphs_farthest_first_before_on_a_tie() -> None:
    chapter = book({})
    chunk = next(c for c in build_chunks(chapter, "translate", chunk_chars=SMALL) if c.first_index == 6)
    full = chunk_context(chapter, chunk, ContextSettings(before=3, after=3, chars=10_000))
    assert [line.index for line in full.before] == [2, 4, 5] and [line.index for line in full.after] == [8, 9, 10]
    size = {line.index: len(line.rendered()) for line in (*full.before, *full.after)}
    everything = sum(size.values())
    assert chunk_context(chapter, chunk, ContextSettings(3, 3, chars=everything)) == full
    # One character short: [2] and [10] are the farthest (a tie): the one before the chunk goes first.
    short = chunk_context(chapter, chunk, ContextSettings(3, 3, chars=everything - 1))
    assert [line.index for line in short.before] == [4, 5] and [line.index for line in short.after] == [8, 9, 10]
    # Then [10], then [4] and [9] ...
    shorter = chunk_context(chapter, chunk, ContextSettings(3, 3, chars=everything - size[2] - 1))
    assert [line.index for line in shorter.before] == [4, 5] and [line.index for line in shorter.after] == [8, 9]
    rendered = shorter.before_section() + "\n" + shorter.after_section() + "\n"
    lines_only = rendered.replace(BEFORE_HEADING + "\n", "").replace(AFTER_HEADING + "\n", "")
    assert len(lines_only) <= everything - size[2] - 1  # the lines, newlines included, within the cap
    assert chunk_context(chapter, chunk, ContextSettings(3, 3, chars=0)).before == ()


def test_zero_turns_each_side_off() -> None:
    chapter = book({})
    chunk = next(c for c in build_chunks(chapter, "translate", chunk_chars=SMALL) if c.first_index == 6)
    assert chunk_context(chapter, chunk, ContextSettings(0, 1)).before == ()
    assert chunk_context(chapter, chunk, ContextSettings(2, 0)).after == ()


def test_the_system_prompt_and_tools_stay_byte_identical_with_context() -> None:
    chapter = book({0: "One."})
    configs = TaskService(chapter, "translate", chunk_chars=SMALL).loop_configs()
    assert len(configs) > 3 and len({c.system_prompt for c in configs}) == 1
    assert len({repr(c.tools) for c in configs}) == 1
    assert "(context)" in configs[0].system_prompt  # the prompt says what context lines are
    assert all("(context) [" not in c.system_prompt for c in configs)


# -- runs --------------------------------------------------------------------------------------------------------------


def ids_in(request: RecordedRequest) -> list[str]:
    import re

    return re.findall(r"^\[\d+\] \[ID: ([^\]\s]+)\]", request.json["messages"][-1]["content"], re.M)


def translating(server: ModelServer) -> None:
    def answer(request: RecordedRequest) -> Scripted:
        if request.json["messages"][-1]["role"] != "user":
            return text_reply("done")
        items = [{"paragraph_id": pid, "translated_text": f"English {pid}."} for pid in ids_in(request)]
        return tool_reply([("add_translation_batch", {"paragraphs": items})])

    server.responder = answer


async def test_chunk_k_reads_what_chunk_k_minus_one_committed(tmp_path: Path, model_server: ModelServer) -> None:
    path = tmp_path / "ch.json"
    path.write_bytes(chapter_bytes(book({})))
    translating(model_server)
    request = RunRequest.configured(
        path, "translate", settings_for(model_server.base_url), RunDefaults(), chunk_chars=SMALL
    )
    await collect(request)
    firsts = [r for r in model_server.requests if r.json["messages"][-1]["role"] == "user"]
    second = firsts[1].json["messages"][-1]["content"]
    assert f"(context) [2] {TEXTS[1]}\n  → English q2." in second  # committed by chunk 1, clean, shown


def test_a_workspace_run_starts_from_the_end_of_the_previous_chapter(tmp_path: Path, model_server: ModelServer) -> None:
    folder = tmp_path / "book"
    folder.mkdir()
    first = chapter_of(["甲。", "乙。"], ids=["a1", "a2"], translations={0: "Ko.", 1: "Otsu."}, chapter_id="ch1")
    (folder / "ch1.json").write_bytes(chapter_bytes(first.replace(title="第一章")))
    (folder / "ch2.json").write_bytes(chapter_bytes(chapter_of(["丙。", "丁。"], ids=["b1", "b2"], chapter_id="ch2")))
    translating(model_server)
    code = main(["run", str(folder), "--task", "translate", "--base-url", model_server.base_url, "--model", "m"])
    assert code == 0
    (message,) = [
        r.json["messages"][-1]["content"]
        for r in model_server.requests
        if "[ID: b1]" in r.json["messages"][-1].get("content", "")
    ]
    assert (
        f"{BEFORE_HEADING}\n(from the previous chapter: 第一章)\n"
        "(context) [1] 甲。\n  → Ko.\n(context) [2] 乙。\n  → Otsu." in message
    )
    # a chapter run on its own never reaches into another chapter
    seen = len(model_server.requests)
    (folder / "ch2.json").write_bytes(chapter_bytes(chapter_of(["丙。", "丁。"], ids=["b1", "b2"], chapter_id="ch2")))
    assert (
        main(
            [
                "run",
                str(folder / "ch2.json"),
                "--task",
                "translate",
                "--base-url",
                model_server.base_url,
                "--model",
                "m",
            ]
        )
        == 0
    )
    alone = model_server.requests[seen:]
    assert alone and all("previous chapter" not in r.json["messages"][-1].get("content", "") for r in alone)


async def test_a_one_paragraph_run_reads_three_on_each_side(tmp_path: Path, model_server: ModelServer) -> None:
    path = tmp_path / "ch.json"
    path.write_bytes(chapter_bytes(book({i: f"T{i}." for i in range(10)})))
    model_server.add(
        tool_reply([("add_translation_batch", {"paragraphs": [{"paragraph_id": "q6", "translated_text": "Six."}]})]),
        text_reply("ok"),
    )
    request = RunRequest.configured(
        path, "polish", settings_for(model_server.base_url), RunDefaults(), only_paragraph="q6"
    )
    await collect(request)
    message = model_server.requests[0].json["messages"][-1]["content"]
    assert [f"(context) [{i}]" in message for i in (2, 4, 5, 7, 8, 9)] == [True] * 6
    assert "(context) [1]" not in message and "(context) [10]" not in message


@pytest.mark.parametrize("flags", [[], ["--context-before", "0", "--context-after", "2"]])
def test_proofdesk_chunks_prints_the_context(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str]
) -> None:
    path = tmp_path / "ch.json"
    path.write_bytes(chapter_bytes(book({0: "One.", 1: "ふたつ"})))
    assert main(["chunks", str(path), "--task", "translate", "--chunk-chars", str(SMALL), "--json", *flags]) == 0
    chunks = json.loads(capsys.readouterr().out)
    first = chunks[0]
    assert "(context)" not in first["text"]  # the entries only
    if flags:
        assert first["context_before"] == [] and len(first["context_after"]) == 2
    else:
        assert first["context_before"] == [
            {"paragraph_id": "q1", "index": 1, "text": TEXTS[0], "translation": "One."},
            {"paragraph_id": "q2", "index": 2, "text": TEXTS[1], "translation": None},
        ]
        assert len(first["context_after"]) == 1
    assert main(["chunks", str(path), "--task", "translate", "--chunk-chars", str(SMALL), *flags]) == 0
    out = capsys.readouterr().out
    assert (BEFORE_HEADING in out) is not bool(flags) and AFTER_HEADING in out
