"""CODES_DIFFER: the translation's inline codes are not the source's set (issue 29, item 2; design section 21)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.run_request import RunRequest
from store.loader import load_chapter
from store.model import Chapter, Paragraph
from store.serialize import chapter_bytes
from tests.engine.checks.cases import Case, assert_fires, assert_quiet, params
from tests.engine.loop_support import collect, kinds, settings_for
from tests.support.model_server import ModelServer, tool_reply

SOURCE = "彼は⟦1⟧大きな⟦/1⟧門を見た⟦2/⟧。⟦3⟧雨⟦4⟧が⟦/4⟧降る⟦/3⟧"
GOOD = "He saw the ⟦1⟧great⟦/1⟧ gate⟦2/⟧. ⟦3⟧The rain ⟦4⟧was⟦/4⟧ falling⟦/3⟧"

DIFFER = {
    "a standalone code missing": Case(SOURCE, GOOD.replace("⟦2/⟧", "")),
    "a paired code missing": Case(SOURCE, GOOD.replace("⟦1⟧", "").replace("⟦/1⟧", "")),
    "an extra code": Case(SOURCE, GOOD + " ⟦5/⟧", marked="⟦5/⟧"),
    "a standalone code written as paired": Case(SOURCE, GOOD.replace("⟦2/⟧", "⟦2⟧⟦/2⟧"), marked="⟦2⟧"),
    "a repeated code": Case(SOURCE, GOOD + " ⟦2/⟧", marked="⟦2/⟧"),
    "a paired code never closed": Case(SOURCE, GOOD.replace("⟦/1⟧", "") + "⟦/9⟧", marked="⟦/9⟧"),
    "crossing pairs": Case(SOURCE, GOOD.replace("⟦4⟧was⟦/4⟧ falling⟦/3⟧", "⟦4⟧was⟦/3⟧ falling⟦/4⟧"), marked="⟦/3⟧"),
    "a close before its open": Case(SOURCE, GOOD.replace("⟦1⟧great⟦/1⟧", "⟦/1⟧great⟦1⟧"), marked="⟦/1⟧"),
    "codes in a translation of a source without": Case("雨が降る。", "It ⟦1/⟧rains.", marked="⟦1/⟧"),
}
SAME = {
    "the same codes, moved with their words": Case(SOURCE, GOOD),
    "paired codes reordered, nesting kept": Case(SOURCE, "⟦3⟧Rain ⟦4⟧fell⟦/4⟧⟦/3⟧; he saw the ⟦1⟧big⟦/1⟧ gate⟦2/⟧."),
    "literal brackets (escaped) are text": Case("⟦⟦注⟧⟧は⟦1/⟧", "⟦⟦note⟧⟧ is⟦1/⟧"),
    "no codes on either side": Case("雨が降る。", "It rains."),
}


@pytest.mark.parametrize("case", params(DIFFER))
def test_each_kind_of_difference_is_an_error(case: Case) -> None:
    warning = assert_fires(case, "CODES_DIFFER")
    assert warning.severity == "error"


@pytest.mark.parametrize("case", params(SAME))
def test_the_source_set_in_any_order_is_quiet(case: Case) -> None:
    assert_quiet(case, "CODES_DIFFER")


def test_the_message_names_what_differs() -> None:
    warning = assert_fires(Case(SOURCE, GOOD.replace("⟦2/⟧", "") + " ⟦7/⟧ ⟦1⟧x⟦/1⟧"), "CODES_DIFFER")
    assert "missing ⟦2/⟧" in warning.message
    assert "extra ⟦7/⟧" in warning.message
    assert "repeated ⟦1⟧ ⟦/1⟧" in warning.message


CODED = "彼は⟦1⟧大きな⟦/1⟧門を見た⟦2/⟧。"
CODED_EN = "He saw the ⟦1⟧great⟦/1⟧ gate⟦2/⟧."


async def test_the_batch_result_warns_and_the_model_fixes_the_codes(tmp_path: Path, model_server: ModelServer) -> None:
    """A translation that lost a code is accepted with CODES_DIFFER in the result's warnings (the model's chance to
    fix it); the fixed text the model sends next is selected."""
    path = tmp_path / "book.json"
    para = Paragraph(id="c0000001", text=CODED, extra={"source_ref": {"codes": {"1": "<em>"}}})
    chapter = Chapter(id="ch001", title=None, source_language="ja", target_language="en", paragraphs=(para,))
    path.write_bytes(chapter_bytes(chapter))
    lost = CODED_EN.replace("⟦2/⟧", "")
    for text in (lost, CODED_EN):
        items = [{"paragraph_id": "c0000001", "translated_text": text}]
        model_server.add(tool_reply([("add_translation_batch", {"paragraphs": items})]))
    events = await collect(RunRequest(path, "translate", settings_for(model_server.base_url)))
    first, second = kinds(events, "tool_result")
    assert first.result["success"] is True and first.result["accepted"] == ["c0000001"]
    assert [(w["code"], "missing ⟦2/⟧" in w["message"]) for w in first.result["warnings"]] == [("CODES_DIFFER", True)]
    assert "warnings" not in second.result
    sent = json.loads(model_server.requests[1].body)["messages"]
    assert "CODES_DIFFER" in sent[-1]["content"]  # the fix turn names it
    saved = load_chapter(path).paragraph("c0000001")
    assert saved is not None and [v.text for v in saved.translations] == [lost, CODED_EN]
    assert saved.selected_text == CODED_EN
