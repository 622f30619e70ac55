"""Warnings in the tool-call loop: add_translation_batch tells the model about what it just submitted, and a
model that reads them fixes the paragraph (a run against the scripted server)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.checks import Finding, batch_findings, batch_warnings, dismiss
from engine.run_request import RunRequest
from engine.trace import read_trace
from store.commit import ChapterStore
from store.loader import load_chapter
from store.model import Chapter, Paragraph
from store.serialize import chapter_bytes
from tests.engine.checks.fiction import rashomon
from tests.engine.loop_support import collect, kinds, settings_for
from tests.engine.tool_chapters import REGISTRY
from tests.support.model_server import ModelServer, text_reply, tool_reply

OPENING, LAST = "a0000001", "a0000002"
KANA = "It was one evening. A servant was waiting under the Rashomon for the rain to やむ."
FIXED = "It was one evening. A servant was waiting under the Rashomon for the rain to stop."
LAST_EN = "Nobody knows where the servant went."


def two_paragraphs() -> Chapter:
    """Rashomon's first and last paragraphs, ja → en, untranslated."""
    return Chapter(
        id="rashomon",
        title="羅生門",
        source_language="ja",
        target_language="en",
        paragraphs=(Paragraph(id=OPENING, text=rashomon(4)), Paragraph(id=LAST, text=rashomon(40))),
    )


def write(folder: Path) -> Path:
    path = folder / "rashomon.json"
    path.write_bytes(chapter_bytes(two_paragraphs()))
    return path


async def submit(path: Path, items: list[dict[str, Any]]) -> dict[str, Any]:
    return await REGISTRY.handle_tool_call(
        "add_translation_batch",
        json.dumps({"paragraphs": items}),
        source=ChapterStore(path),
        task="translate",
        paragraph_ids=[OPENING, LAST],
    )


async def test_a_success_carries_the_warnings_of_the_accepted_paragraphs(tmp_path: Path) -> None:
    path = write(tmp_path)
    result = await submit(
        path, [{"paragraph_id": OPENING, "translated_text": KANA}, {"paragraph_id": LAST, "translated_text": LAST_EN}]
    )
    assert result["success"] is True and result["accepted"] == [OPENING, LAST]
    assert result["warnings"] == [
        {"paragraph_id": OPENING, "code": "KANA_LEFT", "message": "Japanese kana left in the translation: “やむ”"}
    ]
    assert load_chapter(path).paragraph(OPENING).selected_text == KANA  # type: ignore[union-attr]


async def test_no_warnings_key_when_all_is_well_or_nothing_was_accepted(tmp_path: Path) -> None:
    path = write(tmp_path)
    clean = await submit(path, [{"paragraph_id": LAST, "translated_text": LAST_EN}])
    assert clean["success"] is True and "warnings" not in clean
    again = await submit(path, [{"paragraph_id": LAST, "translated_text": LAST_EN}])
    assert again["unchanged"] == [LAST] and "warnings" not in again


async def test_a_rejected_batch_never_carries_warnings(tmp_path: Path) -> None:
    path = write(tmp_path)
    before = path.read_bytes()
    result = await submit(
        path, [{"paragraph_id": OPENING, "translated_text": KANA}, {"paragraph_id": "nope", "translated_text": "x"}]
    )
    assert result["success"] is False and result["error_code"] == "NOT_IN_CHUNK" and "warnings" not in result
    assert path.read_bytes() == before


def test_batch_warnings_leave_out_a_dismissed_text() -> None:
    chapter = two_paragraphs()
    para = dismiss(chapter.paragraphs[0], "KANA_LEFT", KANA)
    chapter = chapter.with_paragraphs({0: para})
    assert batch_warnings(chapter, [(OPENING, KANA)]) == []
    assert [w["code"] for w in batch_warnings(chapter, [(OPENING, KANA + " やむ")])] == ["KANA_LEFT"]
    assert batch_warnings(chapter, [("gone", KANA)]) == []


def test_batch_warnings_take_findings_made_before_the_commit_only_for_the_committed_source() -> None:
    chapter = two_paragraphs()
    made = batch_findings(chapter, [(OPENING, rashomon(4), KANA), (LAST, "another source", LAST_EN)])
    assert [f.code for f in made[OPENING, rashomon(4), KANA]] == ["KANA_LEFT"]
    # What was made is what the model is told (a stand-in finding shows it is not made again) ...
    made[OPENING, rashomon(4), KANA] = [Finding("REPETITION", "made before")]
    told = batch_warnings(chapter, [(OPENING, KANA), (LAST, LAST_EN)], found=made)
    assert [(w["paragraph_id"], w["message"]) for w in told if w["paragraph_id"] == OPENING] == [
        (OPENING, "made before")
    ]
    # ... but findings of another source (the paragraph changed before the commit) are made again.
    made[LAST, "another source", LAST_EN] = [Finding("REPETITION", "stale")]
    assert all(w["message"] != "stale" for w in batch_warnings(chapter, [(LAST, LAST_EN)], found=made))


async def test_the_model_reads_the_warning_and_fixes_the_paragraph(tmp_path: Path, model_server: ModelServer) -> None:
    path = write(tmp_path)
    trace = tmp_path / "run.jsonl"
    model_server.add(
        tool_reply([("add_translation_batch", {"paragraphs": [{"paragraph_id": OPENING, "translated_text": KANA}]})])
    )
    model_server.add(
        tool_reply(
            [
                (
                    "add_translation_batch",
                    {
                        "paragraphs": [
                            {"paragraph_id": OPENING, "translated_text": FIXED},
                            {"paragraph_id": LAST, "translated_text": LAST_EN},
                        ]
                    },
                )
            ]
        )
    )
    events = await collect(RunRequest(path, "translate", settings_for(model_server.base_url), trace_path=trace))
    assert kinds(events, "run_finished")[0].status == "complete"

    first, second = kinds(events, "tool_result")
    assert first.result["warnings"] == [
        {"paragraph_id": OPENING, "code": "KANA_LEFT", "message": "Japanese kana left in the translation: “やむ”"}
    ]
    assert "warnings" not in second.result
    # The model saw the warning: the second request carries it in the tool message.
    sent = json.loads(model_server.requests[1].body)["messages"]
    tool_message = json.loads(next(m for m in sent if m["role"] == "tool")["content"])
    assert tool_message["warnings"][0]["code"] == "KANA_LEFT"
    # The file holds the fix (the first text kept as an earlier version); the trace shows the warning.
    para = load_chapter(path).paragraph(OPENING)
    assert para is not None and para.selected_text == FIXED and [v.text for v in para.translations] == [KANA, FIXED]
    recorded = [e for e in read_trace(trace) if e["kind"] == "tool_result"]
    assert recorded[0]["result"]["warnings"][0]["code"] == "KANA_LEFT"
    system = json.loads(model_server.requests[0].body)["messages"][0]["content"]
    assert "If an accepted batch carries warnings, resubmit those paragraphs corrected." in system


async def test_a_one_paragraph_chunk_gets_one_turn_to_fix_an_error(tmp_path: Path, model_server: ModelServer) -> None:
    """A translate chunk ends once every paragraph is accepted, but when that batch carries an error-severity
    warning the model gets one more turn with it (design section 19); whatever it answers, the chunk then ends."""
    path = write(tmp_path)
    model_server.add(
        tool_reply([("add_translation_batch", {"paragraphs": [{"paragraph_id": OPENING, "translated_text": KANA}]})])
    )
    model_server.add(text_reply("Done."))
    events = await collect(RunRequest(path, "translate", settings_for(model_server.base_url), only_paragraph=OPENING))
    (result,) = kinds(events, "tool_result")
    assert result.result["warnings"][0]["code"] == "KANA_LEFT"
    assert kinds(events, "run_finished")[0].status == "complete" and len(model_server.requests) == 2
    fix = json.loads(model_server.requests[1].body)["messages"][-1]
    assert fix["role"] == "user" and f"'{OPENING}' KANA_LEFT: Japanese kana left" in fix["content"]
