"""The demo model's plan: probes the boundary, recovers, errs once by index in part 2, submits in batches."""

from __future__ import annotations

import json
from typing import Any

from engine.demo_plan import parse_chunk, plan_turn

CHUNK = "This is part 2 of 3 of the chapter.\n\n[3] [ID: aa000003] 一\n\n[5] [ID: aa000005] 二\n\n[6] [ID: aa000006] 三"


def answer(messages: list[dict[str, Any]], task: str, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    turn = plan_turn(messages, task=task)
    calls = [
        {"id": f"c{len(messages)}{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        for i, (name, args) in enumerate(turn.tool_calls)
    ]
    messages = [*messages, {"role": "assistant", "content": turn.text, "tool_calls": calls}]
    for call, result in zip(calls, results, strict=False):
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)})
    return messages


def test_parse_chunk_reads_original_indexes_and_ids() -> None:
    lines, part = parse_chunk(CHUNK)
    assert part == 2
    assert [(ln.index, ln.paragraph_id, ln.source) for ln in lines] == [
        (3, "aa000003", "一"),
        (5, "aa000005", "二"),
        (6, "aa000006", "三"),
    ]


def test_translate_plan_probes_recovers_errs_once_then_submits() -> None:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "s"}, {"role": "user", "content": CHUNK}]
    first = plan_turn(msgs, task="translate")
    assert first.tool_calls == (("get_previous_paragraphs", {"paragraph_id": "aa000003", "count": 2}),)
    msgs = answer(msgs, "translate", [{"success": False, "error_code": "CHUNK_BOUNDARY"}])
    second = plan_turn(msgs, task="translate")
    assert second.tool_calls[0][0] == "get_next_paragraphs" and "outside my chunk" in second.text
    msgs = answer(msgs, "translate", [{"success": True, "paragraphs": []}])
    third = plan_turn(msgs, task="translate")
    items = third.tool_calls[0][1]["paragraphs"]
    assert items[0] == {"index": 3, "translated_text": "[demo en] 一"}  # the deliberate mistake of part 2
    msgs = answer(msgs, "translate", [{"success": False, "error_code": "INDEX_NOT_ACCEPTED"}])
    fourth = plan_turn(msgs, task="translate")
    assert [i["paragraph_id"] for i in fourth.tool_calls[0][1]["paragraphs"]] == ["aa000003", "aa000005", "aa000006"]
    msgs = answer(msgs, "translate", [{"success": True, "accepted": ["aa000003", "aa000005", "aa000006"]}])
    assert plan_turn(msgs, task="translate").tool_calls == ()


def test_polish_plan_submits_only_changed_paragraphs_then_answers_in_text() -> None:
    chunk = "part 1 of 1\n\n[3] [ID: p3] Source: 一\nTranslation: One\n\n[4] [ID: p4] Source: 二\nTranslation: Two"
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "s"}, {"role": "user", "content": chunk}]
    msgs = answer(msgs, "polish", [{"success": False, "error_code": "CHUNK_BOUNDARY"}])
    msgs = answer(msgs, "polish", [{"success": True, "paragraphs": []}])
    submit = plan_turn(msgs, task="polish")
    assert submit.tool_calls[0][1]["paragraphs"] == [
        {
            "paragraph_id": "p3",
            "translated_text": "One [demo polished]",
            "reason": "Demo: a marked stand-in for a smoother sentence.",  # a reviser says why, for the editor
            "category": "fluency",
        }
    ]
    msgs = answer(msgs, "polish", [{"success": True, "accepted": ["p3"]}])
    assert plan_turn(msgs, task="polish").tool_calls == ()


def test_parse_chunk_reads_a_paragraph_of_several_lines_whole() -> None:
    """A paragraph with line breaks (an EPUB's <br/>) is read whole, so the demo keeps the codes of every line."""
    chunk = (
        "This is part 1 of 1 of the chapter.\n\n"
        "[1] [ID: aa000001] 一行目⟦1/⟧\n二行目⟦2⟧語⟦/2⟧\n\n"
        "[2] [ID: aa000002] Source: 三\nTranslation: Three\nand ⟦1/⟧\n"
        "(reviewed by the editor: suggest only a real error)\n\n"
        "(context) [3] 四\nfive"
    )
    lines, _ = parse_chunk(chunk)
    assert [(ln.source, ln.translation) for ln in lines] == [
        ("一行目⟦1/⟧\n二行目⟦2⟧語⟦/2⟧", None),
        ("三", "Three\nand ⟦1/⟧"),
    ]
