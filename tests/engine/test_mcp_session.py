"""The MCP session's logic without the SDK (design section 18): chapters by id or file name, the open chunk and its
boundaries, commits with the chunk's origin and the client's model, tool errors as results, and the trace."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from engine.events import BatchCommitted, ChunkStarted, SessionFinished, SessionStarted, ToolCalled, ToolResult
from engine.mcp.session import McpSession
from engine.trace import read_events
from store.loader import load_chapter
from store.workspace import Workspace
from tests.engine.mcp_book import SMALL, write_book
from tests.support.model_server import ModelServer, RecordedRequest, Scripted, text_reply, tool_reply
from tui.cli import main


@pytest.fixture
def book(tmp_path: Path) -> Path:
    return write_book(tmp_path / "book")


@pytest.fixture
def session(book: Path) -> McpSession:
    opened = McpSession(Workspace(book))
    opened.meet("tester", "1.0")
    return opened


async def test_list_chapters_names_each_chapter_and_the_files_that_are_none(book: Path, session: McpSession) -> None:
    (book / "notes.json").write_text("{}", encoding="utf-8")
    result = await session.call("list_chapters", {})
    assert result["chapters"] == [
        {"chapter": "one", "file": "ch01.json", "title": "第一章"},
        {"chapter": "two", "file": "ch02.json", "title": "第二章"},
    ]
    assert [p["file"] for p in result["problems"]] == ["notes.json"]


async def test_get_chunk_opens_it_and_close_chunk_lifts_the_bounds(session: McpSession) -> None:
    chunk = await session.call("get_chunk", {"chapter": "two", "task": "translate", "index": 1, "chunk_chars": SMALL})
    assert (chunk["index"], chunk["count"], chunk["paragraph_ids"]) == (1, 2, ["b1", "b3"])
    beyond = await session.call("get_next_paragraphs", {"chapter": "two", "paragraph_id": "b3"})
    assert beyond["error_code"] == "CHUNK_BOUNDARY"
    outside = await session.call("get_paragraph_position", {"chapter": "ch02.json", "paragraph_id": "b5"})
    assert outside["error_code"] == "OUT_OF_CHUNK"
    other = await session.call("get_paragraph_info", {"chapter": "one", "paragraph_id": "a1"})
    assert other["error_code"] == "OUT_OF_CHUNK" and other["chunk_range"]["first_paragraph_id"] == "b1"
    assert (await session.call("close_chunk", {}))["closed"] is True
    after = await session.call("get_next_paragraphs", {"chapter": "two", "paragraph_id": "b3"})
    assert [p["paragraph_id"] for p in after["paragraphs"]] == ["b4", "b5"]
    assert (await session.call("close_chunk", {}))["closed"] is False


async def test_a_batch_in_the_open_chunk_has_its_task_and_the_client_and_a_reviewed_paragraph_gets_a_suggestion(
    book: Path, session: McpSession
) -> None:
    await session.call("get_chunk", {"chapter": "two", "task": "polish", "index": 1})
    items = [
        {"paragraph_id": "b2", "translated_text": "The lowly servant.", "reason": "register", "category": "style"},
    ]
    result = await session.call("add_translation_batch", {"chapter": "two", "paragraphs": items})
    assert result["success"] is True and result["suggested"] == ["b2"]
    b2 = load_chapter(book / "ch02.json").paragraph("b2")
    assert b2 is not None and b2.selected_text == "The servant." and b2.reviewed
    (new,) = [v for v in b2.translations if v.text == "The lowly servant."]
    assert (new.origin, new.model, new.status) == ("polish", "tester", "suggested")


async def test_without_an_open_chunk_a_batch_is_unbounded_and_a_translation(book: Path, session: McpSession) -> None:
    items = [{"paragraph_id": "b5", "translated_text": "Five."}, {"paragraph_id": "b1", "translated_text": "One."}]
    result = await session.call("add_translation_batch", {"chapter": "ch02.json", "paragraphs": items})
    assert result["accepted"] == ["b5", "b1"]
    b5 = load_chapter(book / "ch02.json").paragraph("b5")
    assert b5 is not None and b5.selected_text == "Five."
    assert (b5.translations[-1].origin, b5.translations[-1].model) == ("translation", "tester")


@pytest.mark.parametrize(
    ("name", "arguments", "code"),
    [
        ("get_next_paragraphs", {"chapter": "two", "paragraph_id": "b1", "count": "many"}, "INVALID_ARGUMENTS"),
        ("get_next_paragraphs", {"paragraph_id": "b1"}, "INVALID_ARGUMENTS"),
        ("get_paragraph_info", {"chapter": "two", "paragraph_id": "nope"}, "PARAGRAPH_NOT_FOUND"),
        ("get_paragraph_info", {"chapter": "three", "paragraph_id": "b1"}, "CHAPTER_NOT_FOUND"),
        ("get_paragraph_info", "[1, 2]", "INVALID_ARGUMENTS"),
        ("get_chunk", {"chapter": "two", "task": "translate", "index": 9}, "CHUNK_NOT_FOUND"),
        ("get_chunk", {"chapter": "two", "task": "summarise", "index": 1}, "INVALID_ARGUMENTS"),
        ("check", {"chapter": 2}, "INVALID_ARGUMENTS"),
        ("delete_chapter", {"chapter": "two"}, "UNKNOWN_TOOL"),
        (
            "add_translation_batch",
            {"chapter": "two", "paragraphs": [{"index": 3, "translated_text": "x"}]},
            "INDEX_NOT_ACCEPTED",
        ),
    ],
)
async def test_a_bad_call_is_a_failure_result_and_the_session_goes_on(
    session: McpSession, name: str, arguments: Any, code: str
) -> None:
    result = await session.call(name, arguments)
    assert result["success"] is False and result["error_code"] == code and result["hint"]
    assert (await session.call("list_chapters", {}))["count"] == 2


async def test_a_chapter_file_that_cannot_be_read_is_named_not_a_crash(book: Path, session: McpSession) -> None:
    (book / "ch03.json").symlink_to(book / "ch01.json")
    (book / "ch04.json").write_text('{"format": "proofdesk.chapter/1", "id": "four", "paragraphs": [', encoding="utf-8")
    listed = await session.call("list_chapters", {})
    assert [p["file"] for p in listed["problems"]] == ["ch03.json", "ch04.json"]
    for name in ("ch03.json", "ch04.json"):
        refused = await session.call("get_paragraph_info", {"chapter": name, "paragraph_id": "a1"})
        assert refused["error_code"] == "CHAPTER_UNAVAILABLE", refused
    refused = await session.call("check", {"chapter": "ch04.json"})
    assert refused["error_code"] == "CHAPTER_UNAVAILABLE"


async def test_get_chunk_takes_all_and_the_revising_tasks_work_sets(session: McpSession) -> None:
    every = await session.call("get_chunk", {"chapter": "two", "task": "translate", "index": 1, "all": True})
    assert every["paragraph_ids"] == ["b1", "b2", "b3", "b4", "b5"]
    polish = await session.call("get_chunk", {"chapter": "two", "task": "polish", "index": 1})
    assert polish["paragraph_ids"] == ["b2"]
    assert "(reviewed by the editor: suggest only a real error)" in polish["message"]


async def test_a_failed_get_chunk_leaves_the_open_chunk_open(session: McpSession) -> None:
    await session.call("get_chunk", {"chapter": "two", "task": "translate", "index": 1, "chunk_chars": SMALL})
    await session.call("get_chunk", {"chapter": "two", "task": "translate", "index": 7})
    beyond = await session.call("get_next_paragraphs", {"chapter": "two", "paragraph_id": "b3"})
    assert beyond["error_code"] == "CHUNK_BOUNDARY"


async def test_the_glossary_tools_need_no_chapter_and_check_lists_the_warnings(book: Path, session: McpSession) -> None:
    found = await session.call("search_glossary", {"query": "下人"})
    assert [e["target"] for e in found["entries"]] == ["the servant"]
    proposed = await session.call("propose_glossary_entry", {"source": "羅生門", "target": "Rashomon gate"})
    assert proposed["success"] is True
    data = json.loads((book / "glossary.json").read_text(encoding="utf-8"))
    assert [(e["source"], e.get("model")) for e in data["entries"]][-1] == ("羅生門", "tester")
    await session.call(
        "add_translation_batch",
        {"chapter": "two", "paragraphs": [{"paragraph_id": "b3", "translated_text": "さん three."}]},
    )
    checked = await session.call("check", {"chapter": "two"})
    assert {w["paragraph_id"] for w in checked["warnings"]} == {"b3"}
    assert "KANA_LEFT" in [w["code"] for w in checked["warnings"]]


async def test_the_trace_holds_the_session_its_calls_and_commits(session: McpSession) -> None:
    await session.call("get_chunk", {"chapter": "two", "task": "translate", "index": 1})
    await session.call(
        "add_translation_batch", {"chapter": "two", "paragraphs": [{"paragraph_id": "b1", "translated_text": "One."}]}
    )
    await session.call("get_paragraph_info", {"chapter": "two", "paragraph_id": "zz"})
    session.finish()
    path = session.trace.path
    assert path.parent == session.workspace.root / ".proofdesk" / "traces" / "mcp" and path.name.endswith("-mcp.jsonl")
    events = list(read_events(path))
    assert [type(e) for e in events] == [
        SessionStarted,
        ToolCalled,
        ToolResult,
        ChunkStarted,
        ToolCalled,
        ToolResult,
        BatchCommitted,
        ToolCalled,
        ToolResult,
        SessionFinished,
    ]
    started, finished = events[0], events[-1]
    assert isinstance(started, SessionStarted) and (started.client, started.client_version) == ("tester", "1.0")
    assert isinstance(finished, SessionFinished) and finished.tool_errors == {"PARAGRAPH_NOT_FOUND": 1}
    assert [e.chunk for e in events[1:-1]] == [None, None, 1, 1, 1, 1, 1, 1]  # the chunk open when the call came
    opened = events[3]
    assert isinstance(opened, ChunkStarted) and opened.paragraph_ids == ("b1", "b3", "b4", "b5")


async def test_a_trace_that_cannot_be_written_never_stops_the_session(book: Path) -> None:
    (book / ".proofdesk" / "traces").write_text("a file where the traces folder goes", encoding="utf-8")
    session = McpSession(Workspace(book))
    session.meet("tester")
    items = [{"paragraph_id": "b1", "translated_text": "One."}]
    result = await session.call("add_translation_batch", {"chapter": "two", "paragraphs": items})
    assert result["success"] is True
    session.finish()
    assert session.trace.failed is not None and "not traced" in session.trace.failed


def _first_messages(server: ModelServer) -> list[str]:
    return [r.json["messages"][-1]["content"] for r in server.requests if r.json["messages"][-1]["role"] == "user"]


def _translating(server: ModelServer) -> None:
    def answer(request: RecordedRequest) -> Scripted:
        if request.json["messages"][-1]["role"] != "user":
            return text_reply("done")
        content = request.json["messages"][-1]["content"]
        ids = [pid for pid in ("b1", "b3", "b4", "b5") if f"[ID: {pid}]" in content]
        items = [{"paragraph_id": pid, "translated_text": f"English {pid}."} for pid in ids]
        return tool_reply([("add_translation_batch", {"paragraphs": items})])

    server.responder = answer


def test_get_chunk_gives_the_message_a_workspace_run_sends(
    book: Path, session: McpSession, model_server: ModelServer
) -> None:
    chunk = asyncio.run(session.call("get_chunk", {"chapter": "ch02.json", "task": "translate", "index": 1}))
    assert "Memory (earlier translations" in chunk["message"] and "下人 → the servant" in chunk["message"]
    assert "(from the previous chapter: 第一章)" in chunk["message"]
    _translating(model_server)
    code = main(["run", str(book), "--task", "translate", "--base-url", model_server.base_url, "--model", "m"])
    assert code == 0
    assert chunk["message"] in _first_messages(model_server)
