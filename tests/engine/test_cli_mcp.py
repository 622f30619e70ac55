"""``proofdesk mcp`` as a child process, driven over stdio by the official SDK's own client (design section 18)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from engine.events import BatchCommitted, SessionFinished, SessionStarted, ToolCalled, ToolResult
from engine.trace import read_events
from store.loader import load_chapter
from tests.engine.mcp_book import SMALL, write_book
from tui.widgets.trace_steps import build_steps

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # a CLI subprocess

TOOLS = [
    "list_chapters",
    "get_chunk",
    "close_chunk",
    "get_previous_paragraphs",
    "get_next_paragraphs",
    "get_paragraph_position",
    "get_paragraph_info",
    "find_paragraph_by_keywords",
    "add_translation_batch",
    "search_glossary",
    "propose_glossary_entry",
    "check",
]


def _server(book: Path) -> StdioServerParameters:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return StdioServerParameters(command=sys.executable, args=["-m", "tui.cli", "mcp", str(book)], env=env)


def _result(answer: types.CallToolResult) -> dict[str, Any]:
    """The section-4 object, the same in ``structuredContent`` and in the one JSON text block."""
    (block,) = answer.content
    assert isinstance(block, types.TextContent) and json.loads(block.text) == answer.structured_content
    result = answer.structured_content
    assert isinstance(result, dict) and answer.is_error is (result["success"] is not True)
    return result


async def test_an_mcp_client_works_on_a_workspace_through_proofdesk_mcp(tmp_path: Path) -> None:
    book = write_book(tmp_path / "book")
    with open(tmp_path / "server.log", "w", encoding="utf-8") as errlog:
        async with stdio_client(_server(book), errlog=errlog) as (read, write):
            client_info = types.Implementation(name="claude-test", version="0.1")
            async with ClientSession(read, write, client_info=client_info) as client:
                await _work(client, book)
    (trace,) = (book / ".proofdesk" / "traces" / "mcp").glob("*-mcp.jsonl")
    _check_trace(trace)


async def _work(client: ClientSession, book: Path) -> None:
    init = await client.initialize()
    assert init.server_info.name == "proofdesk"
    assert [t.name for t in (await client.list_tools()).tools] == TOOLS

    async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return _result(await client.call_tool(name, arguments))

    chunk = await call("get_chunk", {"chapter": "two", "task": "translate", "index": 1, "chunk_chars": SMALL})
    assert (chunk["paragraph_ids"], chunk["count"]) == (["b1", "b3"], 2) and "[ID: b3]" in chunk["message"]
    beyond = await call("get_next_paragraphs", {"chapter": "two", "paragraph_id": "b3"})
    assert beyond["error_code"] == "CHUNK_BOUNDARY" and beyond["chunk_range"]["last_paragraph_id"] == "b3"
    batch = [
        {"paragraph_id": "b1", "translated_text": "One: the rain."},
        {"paragraph_id": "b3", "translated_text": "Three."},
    ]
    committed = await call("add_translation_batch", {"chapter": "two", "paragraphs": batch})
    assert committed["accepted"] == ["b1", "b3"] and committed["remaining"] == []
    on_disk = load_chapter(book / "ch02.json")
    assert [on_disk.paragraph(p).selected_text for p in ("b1", "b3")] == ["One: the rain.", "Three."]  # type: ignore[union-attr]
    assert on_disk.paragraph("b1").translations[-1].model == "claude-test"  # type: ignore[union-attr]
    assert (await call("close_chunk", {}))["closed"] is True
    after = await call("get_next_paragraphs", {"chapter": "two", "paragraph_id": "b3", "count": 2})
    assert [p["paragraph_id"] for p in after["paragraphs"]] == ["b4", "b5"]
    suggestion = [{"paragraph_id": "b2", "translated_text": "The lowly servant.", "reason": "register"}]
    protected = await call("add_translation_batch", {"chapter": "ch02.json", "paragraphs": suggestion})
    assert protected["suggested"] == ["b2"]
    b2 = load_chapter(book / "ch02.json").paragraph("b2")
    assert b2 is not None and b2.selected_text == "The servant." and b2.translations[-1].status == "suggested"
    wrong = await call("get_next_paragraphs", {"chapter": "two", "paragraph_id": 7, "count": "three"})
    assert wrong["error_code"] == "INVALID_ARGUMENTS"
    unknown = await call("get_paragraph_info", {"chapter": "two", "paragraph_id": "b99"})
    assert unknown["error_code"] == "PARAGRAPH_NOT_FOUND"
    assert (await call("list_chapters", {}))["count"] == 2  # the session goes on


async def test_a_client_of_the_2026_protocol_without_a_handshake_is_served_too(tmp_path: Path) -> None:
    book = write_book(tmp_path / "book")
    items = [{"paragraph_id": "b1", "translated_text": "One."}]
    with open(tmp_path / "server.log", "w", encoding="utf-8") as errlog:
        async with (
            stdio_client(_server(book), errlog=errlog) as (read, write),
            ClientSession(read, write, client_info=types.Implementation(name="modern", version="9")) as client,
        ):
            await client.discover()  # clientInfo travels in each request's envelope
            answer = _result(await client.call_tool("add_translation_batch", {"chapter": "two", "paragraphs": items}))
    assert answer["accepted"] == ["b1"]
    b1 = load_chapter(book / "ch02.json").paragraph("b1")
    assert b1 is not None and b1.translations[-1].model == "modern"


def _check_trace(path: Path) -> None:
    events = list(read_events(path))
    assert isinstance(events[0], SessionStarted) and events[0].client == "claude-test"
    assert isinstance(events[-1], SessionFinished) and events[-1].tool_calls == 9
    assert sum(isinstance(e, ToolCalled) for e in events) == sum(isinstance(e, ToolResult) for e in events) == 9
    assert sum(isinstance(e, BatchCommitted) for e in events) == 2
    steps = build_steps(events)
    assert steps[0].title == "MCP session · claude-test"
    assert [s.title for s in steps if s.is_error] == [
        "✗ CHUNK_BOUNDARY · get_next_paragraphs(chapter=two, paragraph_id=b3)",
        "✗ INVALID_ARGUMENTS · get_next_paragraphs(chapter=two, paragraph_id=7, count=three)",
        "✗ PARAGRAPH_NOT_FOUND · get_paragraph_info(chapter=two, paragraph_id=b99)",
    ]


def test_proofdesk_mcp_refuses_a_folder_that_is_none(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", "mcp", str(tmp_path / "missing")],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 2 and "not a folder" in done.stderr and done.stdout == ""


def test_only_the_mcp_command_imports_the_sdk() -> None:
    probe = (
        "import json, sys\n"
        "from tui.cli import build_parser\n"
        "for command in (None, 'run', 'mcp'):\n"
        "    build_parser(command)\n"
        "import tui.commands.run\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert not set(json.loads(done.stdout)) & {"mcp", "mcp_types", "uvicorn", "starlette"}


def test_arguments_that_are_no_object_are_a_tool_error_not_a_protocol_error(tmp_path: Path) -> None:
    book = write_book(tmp_path / "book")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _initialize()},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "check", "arguments": ["two"]}},
    ]
    with subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "mcp", str(book)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write("".join(json.dumps(line) + "\n" for line in lines))
        server.stdin.flush()
        answers = [json.loads(server.stdout.readline()) for _ in range(2)]
        server.stdin.close()  # the client goes away: the server ends
        assert server.wait(timeout=60) == 0
    answer = answers[1]
    assert answer["id"] == 2 and "error" not in answer
    assert answer["result"]["isError"] is True
    assert answer["result"]["structuredContent"]["error_code"] == "INVALID_ARGUMENTS"


def _initialize() -> dict[str, Any]:
    return {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}


def test_a_batch_sent_just_before_the_client_goes_away_is_committed_and_traced(tmp_path: Path) -> None:
    book = write_book(tmp_path / "book")
    batch = {"chapter": "two", "paragraphs": [{"paragraph_id": "b1", "translated_text": "One."}]}
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _initialize()},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "add_translation_batch", "arguments": batch},
        },
    ]
    done = subprocess.run(  # stdin ends right after the call: the SDK cancels what is in flight
        [sys.executable, "-m", "tui.cli", "mcp", str(book)],
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert done.returncode == 0
    b1 = load_chapter(book / "ch02.json").paragraph("b1")
    assert b1 is not None and b1.selected_text == "One."
    (trace,) = (book / ".proofdesk" / "traces" / "mcp").glob("*-mcp.jsonl")
    kinds = [e.kind for e in read_events(trace)]
    assert kinds == ["session_started", "tool_called", "tool_result", "batch_committed", "session_finished"]
