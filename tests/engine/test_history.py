"""Bounded history: later requests resend the answered turns shrunk, the prefix and the latest turn as they are."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from engine.config import ModelSettings
from engine.estimate import MESSAGE_OVERHEAD, estimate_run
from engine.history import MAX_KEPT_TEXT_CHARS, bounded, result_line, shrunk
from engine.run_request import RunRequest
from engine.token_estimate import estimate_tokens
from tests.engine.loop_support import IDS, collect, kinds, settings_for, write_chapter
from tests.support.model_server import ModelServer, RecordedRequest, Scripted, tool_reply
from tui.sample import sample_bytes

A1, A2, A3, A4, A5, A6, A7, A8 = IDS
BATCH = "add_translation_batch"
HINT = "Submit only paragraph_ids shown as [ID: …]"


def submits(name: str) -> bool:
    return name == BATCH


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def turn(number: int) -> list[dict[str, Any]]:
    """One answered turn: a long text, a reading call and a rejected batch, and their results."""
    items = [
        {"paragraph_id": A1, "translated_text": f"One, try {number}."},
        {"paragraph_id": "zz", "translated_text": "?"},
    ]
    rejected = {"success": False, "error": "The whole batch was rejected: 'zz' is not in the chunk.", "hint": HINT}
    read = {"success": True, "paragraph_id": A3, "paragraphs": [{"paragraph_id": A1, "text": "ある日" * 40}]}
    return [
        {
            "role": "assistant",
            "content": "Let me think. " * 40,
            "reasoning_content": "kept as it is",
            "tool_calls": [
                call("r", "get_previous_paragraphs", {"paragraph_id": A3}),
                call("b", BATCH, {"paragraphs": items}),
            ],
        },
        {"role": "tool", "tool_call_id": "r", "content": json.dumps(read, ensure_ascii=False)},
        {"role": "tool", "tool_call_id": "b", "content": json.dumps({**rejected, "error_code": "NOT_IN_CHUNK"})},
    ]


PREFIX = [{"role": "system", "content": "rules"}, {"role": "user", "content": "[1] [ID: a0000001] ある日"}]


def test_the_prefix_and_the_latest_turn_go_as_they_are_the_answered_turns_shrunk() -> None:
    history = [*PREFIX, *turn(1), *turn(2)]
    sent = bounded(history, 5, submits)
    assert sent[:2] == PREFIX and sent[5:] == history[5:]  # the model has not answered turn 2 yet
    answer, read, rejected = sent[2:5]
    assert answer["content"] == history[2]["content"][:MAX_KEPT_TEXT_CHARS] + " […]"
    assert answer["reasoning_content"] == "kept as it is"
    (reading, batch) = [c["function"] for c in answer["tool_calls"]]
    assert reading == history[2]["tool_calls"][0]["function"]  # small arguments stay
    assert json.loads(batch["arguments"]) == {"paragraphs": [{"paragraph_id": A1}, {"paragraph_id": "zz"}]}
    assert json.loads(read["content"]) == {"success": True, "note": "earlier result, shortened (paragraphs: 1)"}
    assert json.loads(rejected["content"]) == {
        "success": False,
        "error_code": "NOT_IN_CHUNK",
        "error": "The whole batch was rejected: 'zz' is not in the chunk.",
        "note": "earlier result, shortened",
    }
    assert [m.get("tool_call_id") for m in sent] == [m.get("tool_call_id") for m in history]  # every call answered


def test_the_first_request_and_the_second_send_everything() -> None:
    history = [*PREFIX, *turn(1)]
    assert bounded(PREFIX, 0, submits) == PREFIX
    assert bounded(history, 2, submits) == history


def test_a_message_once_shrunk_stays_the_same_so_a_prefix_cache_keeps_hitting() -> None:
    history = [*PREFIX, *turn(1), *turn(2), *turn(3)]
    third, fourth = bounded(history[:8], 5, submits), bounded(history, 8, submits)
    assert fourth[:5] == third[:5]
    assert fourth[8:] == history[8:]
    size = [len(json.dumps(messages[2:8], ensure_ascii=False)) for messages in (fourth, history)]
    assert size[0] < 0.7 * size[1]


def test_small_results_notes_and_odd_arguments() -> None:
    small = {"role": "tool", "tool_call_id": "x", "content": '{"success": true}'}
    assert shrunk(small, submits) is small  # a line already
    note = {"role": "user", "content": "Paragraphs still missing: a0000004"}
    assert shrunk(note, submits) is note
    long_args = {"role": "assistant", "content": None, "tool_calls": [call("k", "find", {"keywords": ["x" * 600]})]}
    assert shrunk(long_args, submits)["tool_calls"][0]["function"]["arguments"] == "{}"
    not_json = {"role": "assistant", "content": "", "tool_calls": [call("c", BATCH, {})]}
    not_json["tool_calls"][0]["function"]["arguments"] = '{"paragraphs": [{"paragraph_id": "a0'
    assert (
        shrunk(not_json, submits)["tool_calls"][0]["function"]["arguments"]
        == not_json["tool_calls"][0]["function"]["arguments"]
    )
    # A batch's ID lists stay (what was saved is what a model, and the demo model, goes by); other lists are counted.
    batch = {"success": True, "accepted": [A1, A3], "remaining": [], "warnings": [{"paragraph_id": A1, "code": "X"}]}
    assert result_line(batch) == {
        "success": True,
        "accepted": [A1, A3],
        "remaining": [],
        "note": "earlier result, shortened (warnings: 1)",
    }


class Stubborn:
    """Reads, then submits the whole chunk with one foreign ID every turn: always rejected."""

    def __init__(self) -> None:
        self.turns = 0

    def __call__(self, request: RecordedRequest) -> Scripted:
        self.turns += 1
        ids = [pid for pid in IDS if f"[ID: {pid}]" in request.json["messages"][1]["content"]]
        items = [{"paragraph_id": pid, "translated_text": f"Try {self.turns}: " + "下人の話。" * 20} for pid in ids]
        items[-1]["paragraph_id"] = "not-here"
        return tool_reply(
            [("get_next_paragraphs", {"paragraph_id": ids[0], "count": 1}), (BATCH, {"paragraphs": items})]
        )


def tokens(body: dict[str, Any]) -> int:
    messages = body["messages"]
    calls = [json.dumps(m.get("tool_calls"), ensure_ascii=False) if m.get("tool_calls") else "" for m in messages]
    texts = [m.get("content") or "" for m in messages]
    tools = json.dumps(body["tools"], ensure_ascii=False)
    return estimate_tokens(tools) + sum(map(estimate_tokens, texts + calls)) + MESSAGE_OVERHEAD * len(messages)


async def test_a_stubborn_model_stays_within_the_estimate_s_upper_bound(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    request = RunRequest(path, "translate", settings_for(model_server.base_url), chunk_chars=300, max_turns=6)
    model_server.responder = Stubborn()
    events = await collect(request)
    assert [c.end_code for c in kinds(events, "chunk_finished")] == ["MAX_TURNS", "MAX_TURNS"]
    bodies = [r.json for r in model_server.requests]
    assert len(bodies) == 12
    for chunk in (bodies[:6], bodies[6:]):
        assert all(b["messages"][:2] == chunk[0]["messages"][:2] for b in chunk)  # byte-identical prefix
        for earlier, later in itertools.pairwise(chunk):  # what was shrunk stays as it was sent
            shrunk_part = max(2, len(earlier["messages"]) - 3)
            assert later["messages"][:shrunk_part] == earlier["messages"][:shrunk_part]
        last = chunk[-1]["messages"]
        assert HINT in last[-1]["content"] and "translated_text" in last[-3]["tool_calls"][1]["function"]["arguments"]
        assert HINT not in last[4]["content"] and "translated_text" not in json.dumps(last[2]["tool_calls"])
    (low, high) = estimate_run(request)["total"]["input_tokens"]
    assert low < sum(map(tokens, bodies)) <= high


async def test_the_demo_model_still_finishes_the_sample_from_shrunk_results(tmp_path: Path) -> None:
    # The demo model plans each turn from the messages it is sent, as a real model does: what was saved must
    # survive the shrinking (a batch's accepted IDs), or it resubmits and the chunk stops on NO_PROGRESS.
    path = tmp_path / "rashomon.json"
    path.write_bytes(sample_bytes())
    demo = ModelSettings(model="demo", base_url="demo://offline")
    for task in ("translate", "polish"):
        events = await collect(RunRequest(path, task, demo))  # type: ignore[arg-type]
        assert kinds(events, "run_finished")[0].status == "complete", task
        assert max(e.turn for e in kinds(events, "model_request")) >= 3  # later turns did resend shrunk history
