"""Tool calls a model wrote as text are run as calls (design section 19), against the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.client.response import AssembledResponse
from engine.client.text_calls import lift_text_calls
from engine.config import RunDefaults
from engine.run_request import RunRequest
from tests.engine.loop_support import IDS, collect, kinds, selected_texts, settings_for, write_chapter
from tests.support.model_server import ModelServer, text_reply
from tui.event_text import describer

WORK = [pid for i, pid in enumerate(IDS) if i not in (1, 4)]  # the test chapter's non-empty paragraphs
OFFERED = ("get_next_paragraphs", "add_translation_batch")


def batch_json(pids: list[str], prefix: str = "text") -> str:
    items = [{"paragraph_id": pid, "translated_text": f"{prefix} {pid}"} for pid in pids]
    return json.dumps({"name": "add_translation_batch", "arguments": {"paragraphs": items}}, ensure_ascii=False)


def response(content: str, **fields: object) -> AssembledResponse:
    return AssembledResponse(content, "", (), "stop", "stop", None, None, 1.0, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "content",
    [
        "{call}",
        "I will submit now.\n<tool_call>\n{call}\n</tool_call>",
        "Here you go:\n```json\n{call}\n```\nDone.",
    ],
    ids=["bare", "tool_call tags", "code fence"],
)
async def test_a_call_written_as_text_is_run_and_committed(
    tmp_path: Path, model_server: ModelServer, content: str
) -> None:
    path = write_chapter(tmp_path)
    model_server.add(
        text_reply(content.replace("{call}", batch_json(WORK[:3]))),
        text_reply(content.replace("{call}", batch_json(WORK[3:]))),
    )
    events = await collect(RunRequest.configured(path, "translate", settings_for(model_server.base_url), RunDefaults()))
    assert all(selected_texts(path)[pid] == f"text {pid}" for pid in WORK)
    (answer, *_) = kinds(events, "model_response")
    assert answer.lifted_from_content is True and answer.tool_calls[0]["name"] == "add_translation_batch"
    assert "written as text" in describer(answer).step(answer).title
    assert kinds(events, "run_finished")[0].status == "complete"
    # The history shows the call as a call, answered by its tool message.
    second = model_server.requests[1].json["messages"]
    assert second[-2]["role"] == "assistant" and second[-2]["tool_calls"][0]["id"] == "text-1-1"
    assert second[-1]["role"] == "tool" and second[-1]["tool_call_id"] == "text-1-1"


def test_a_name_the_request_did_not_offer_is_not_run_and_nothing_else_is_guessed() -> None:
    not_offered = json.dumps({"name": "delete_everything", "arguments": {}})
    other_shape = json.dumps({"name": "add_translation_batch", "arguments": {"paragraphs": []}, "extra": 1})
    assert lift_text_calls(response(f"{not_offered} {other_shape}"), OFFERED, 1) is None
    assert lift_text_calls(response('{"paragraph_id": "a", "translated_text": "x"}'), OFFERED, 1) is None
    assert lift_text_calls(response("no JSON here"), OFFERED, 1) is None


def test_text_around_the_calls_is_ignored_and_several_calls_are_kept_in_order() -> None:
    first = json.dumps({"name": "get_next_paragraphs", "arguments": '{"paragraph_id": "a", "count": 2}'})
    content = f"Let me think {{not json}}. {first} then {batch_json(['b'])} and that is all."
    lifted = lift_text_calls(response(content), OFFERED, 3)
    assert lifted is not None and lifted.lifted_from_content
    assert [(c.id, c.name) for c in lifted.tool_calls] == [
        ("text-3-1", "get_next_paragraphs"),
        ("text-3-2", "add_translation_batch"),
    ]
    assert lifted.tool_calls[0].arguments == {"paragraph_id": "a", "count": 2}  # a JSON string of an object too


async def test_a_lifted_batch_outside_the_chunk_is_refused_like_any_call(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    before = path.read_bytes()
    model_server.add(text_reply(batch_json(["zzzzzzzz"])), text_reply("done"), text_reply("done"), text_reply("done"))
    events = await collect(RunRequest.configured(path, "translate", settings_for(model_server.base_url), RunDefaults()))
    (result, *_) = kinds(events, "tool_result")
    assert result.error_code == "NOT_IN_CHUNK"
    assert path.read_bytes() == before


def test_hostile_text_is_left_alone() -> None:
    nested = '{"a":' * 100_000 + "1" + "}" * 100_000  # deeper than any call: not decoded at every brace
    assert lift_text_calls(response(nested), OFFERED, 1) is None
    assert lift_text_calls(response("{" * 100_000), OFFERED, 1) is None
    cut = batch_json(["a"])[:-5]  # a call cut off before it ended is not a call
    assert lift_text_calls(response(cut), OFFERED, 1) is None
