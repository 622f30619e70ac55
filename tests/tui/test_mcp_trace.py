"""An MCP session's trace (``.proofdesk/traces/mcp/``) in the trace inspector, as ``proofdesk trace`` opens it."""

from __future__ import annotations

import json
from pathlib import Path

from engine.mcp.session import McpSession
from store.workspace import Workspace
from tests.engine.mcp_book import SMALL, write_book
from tests.tui.conftest import wait_for
from tui.app import ProofdeskApp
from tui.screens.trace import TraceScreen
from tui.widgets.trace_steps import boundaries_text


async def _session_trace(folder: Path) -> Path:
    session = McpSession(Workspace(write_book(folder)))
    session.meet("claude-test", "0.1")
    await session.call("get_chunk", {"chapter": "two", "task": "translate", "index": 1, "chunk_chars": SMALL})
    await session.call("get_next_paragraphs", {"chapter": "two", "paragraph_id": "b3"})
    batch = [{"paragraph_id": "b1", "translated_text": "One."}, {"paragraph_id": "b3", "translated_text": "Three."}]
    await session.call("add_translation_batch", {"chapter": "two", "paragraphs": batch})
    await session.call("close_chunk", {})
    await session.call("get_next_paragraphs", {"chapter": "two", "paragraph_id": "b3"})
    session.finish()
    return session.trace.path


async def test_the_inspector_replays_an_mcp_session(tmp_path: Path) -> None:
    trace = await _session_trace(tmp_path / "book")
    app = ProofdeskApp(None, trace=trace)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, TraceScreen)
        await wait_for(pilot, lambda: bool(screen.steps), what="the trace")
        assert screen.problem is None
        assert [step.title for step in screen.steps] == [
            "MCP session · claude-test",
            "✓ get_chunk(chapter=two, task=translate, index=1, chunk_chars=200)",
            "chunk 1/2 · 2 paragraphs",
            "✗ CHUNK_BOUNDARY · get_next_paragraphs(chapter=two, paragraph_id=b3)",
            "✓ add_translation_batch(2 paragraphs: b1, b3)",
            "committed 2 paragraphs",
            "✓ close_chunk()",
            "✓ get_next_paragraphs(chapter=two, paragraph_id=b3)",
            "MCP session ended · 5 tool calls",
        ]
        shown = [boundaries_text(step.chunk_event) for step in screen.steps]
        assert shown[3].startswith("chunk 1/2 · 2 paragraphs · first b1 · last b3")  # the refused call's chunk
        assert shown[1].startswith("no chunk") and shown[7].startswith("no chunk")  # before get_chunk, after close
        texts = [screen.describe(step).plain for step in screen.steps]
        assert "[ID: b1]" in texts[1] and "CHUNK_BOUNDARY" in texts[3]  # the chunk message; the refusal
        await pilot.press("n")  # to the first error
        await pilot.press("y")
        copied = json.loads(app.clipboard)
        assert [e["kind"] for e in copied] == ["tool_called", "tool_result"]
        assert copied[0]["name"] == "get_next_paragraphs"
