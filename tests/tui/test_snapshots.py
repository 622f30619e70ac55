"""SVG snapshots of the key screens at 80x24 (pytest-textual-snapshot).

The snapshots record how the screens looked with one Textual version (``snapshots_textual_version.txt``,
beside ``__snapshots__/``, where syrupy would take it for a stale snapshot).
With another version installed they fail with one message saying so: look at the screens, then re-record
with ``pytest tests/tui/test_snapshots.py --snapshot-update`` (which also rewrites the version file).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from engine.events import (
    BatchCommitted,
    ChunkFinished,
    ChunkStarted,
    ModelRequest,
    ModelResponse,
    RunStarted,
    ToolCalled,
    ToolResult,
)
from store.conflicts import ConflictRecord, write_conflicts
from store.loader import parse_chapter
from store.workspace import Workspace
from tests.tui.chapters import STAMP, showcase_chapter, write
from tests.tui.conftest import make_app, sample_bytes, wait_for, workers_done
from tests.tui.snapshot_guard import same_textual_version  # noqa: F401 (an autouse fixture)
from tui.app import ProofdeskApp
from tui.messages import EngineEventReceived
from tui.screens.chapter import ChapterScreen
from tui.screens.trace import TraceScreen
from tui.widgets.log_pane import LogPane


@pytest.fixture
def showcase(tmp_path: Path, isolated_dirs: Path) -> Path:
    """A chapter in every state, chunk size 700 so several separators show, with one conflict record."""
    config = isolated_dirs / "config" / "proofdesk" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[run]\nchunk_chars = 700\n", encoding="utf-8")
    folder = tmp_path / "book"
    folder.mkdir()
    sample = parse_chapter(sample_bytes(), "rashomon.json")
    path = write(folder / "rashomon.json", showcase_chapter(sample))
    para = sample.paragraphs[5]  # [6], in view at 80x24
    write_conflicts(
        Workspace(folder),
        path,
        [
            ConflictRecord(
                chapter_file=path.name,
                chapter_id=sample.id,
                paragraph_id=para.id,
                kind="stale_source",
                base_source=para.text + "（旧）",
                current_source=para.text,
                our_text="[en] an older source",
                origin="translation",
                model="test-model",
                created_at=STAMP,
            )
        ],
    )
    return path


def chapter_app(path: Path) -> ProofdeskApp:
    app = make_app(path, watch=False)
    assert app.start_chapter is not None
    app.start_chapter.run_changed.add("cdb3e1b6")  # as if the last run had just written [5]
    return app


async def conflicts_loaded(pilot: Pilot) -> None:
    screen = pilot.app.screen
    assert isinstance(screen, ChapterScreen)
    await wait_for(pilot, lambda: bool(screen.session.conflicts), what="the conflict record")
    await workers_done(pilot)  # the conflicts worker has drawn them, the separators are in


def test_chapter_view_with_separators_and_every_state(snap_compare: Callable[..., bool], showcase: Path) -> None:
    async def before(pilot: Pilot) -> None:
        await conflicts_loaded(pilot)
        await pilot.press("down", "down", "down")  # [4]: two versions, so the detail pane shows a diff

    assert snap_compare(chapter_app(showcase), run_before=before)


def test_log_pane_with_an_error(snap_compare: Callable[..., bool], showcase: Path) -> None:
    async def before(pilot: Pilot) -> None:
        await conflicts_loaded(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ChapterScreen)
        run, ids = "r1", ("061915f3", "655d8700")
        events = [
            RunStarted(
                run_id=run,
                chapter_path=str(showcase),
                chapter_id="rashomon",
                task="translate",
                model="test-model",
                base_url="http://127.0.0.1:1/v1",
                chunk_count=3,
                paragraph_count=7,
            ),
            ChunkStarted(
                run_id=run,
                chunk=2,
                paragraph_ids=ids,
                first_paragraph_id=ids[0],
                last_paragraph_id=ids[1],
                chunk_count=3,
            ),
            ModelRequest(run_id=run, chunk=2, turn=1, message_count=2, tool_names=("get_previous_paragraphs",)),
            ModelResponse(
                run_id=run,
                chunk=2,
                turn=1,
                content="Let me read what comes before.",
                reasoning="",
                tool_calls=(),
                finish_reason="tool_calls",
                usage=None,
                latency_ms=80.0,
            ),
            ToolCalled(
                run_id=run,
                chunk=2,
                turn=1,
                call_id="c1",
                name="get_previous_paragraphs",
                arguments={"paragraph_id": ids[0], "count": 3},
            ),
            ToolResult(
                run_id=run,
                chunk=2,
                turn=1,
                call_id="c1",
                name="get_previous_paragraphs",
                success=False,
                error_code="CHUNK_BOUNDARY",
                result={
                    "success": False,
                    "error_code": "CHUNK_BOUNDARY",
                    "error": "the request goes beyond the current chunk (061915f3 … 655d8700)",
                },
            ),
            ToolCalled(
                run_id=run,
                chunk=2,
                turn=2,
                call_id="c2",
                name="add_translation_batch",
                arguments={"paragraphs": [{"paragraph_id": i, "translated_text": "…"} for i in ids]},
            ),
            ToolResult(
                run_id=run,
                chunk=2,
                turn=2,
                call_id="c2",
                name="add_translation_batch",
                success=True,
                error_code=None,
                result={"success": True, "accepted": list(ids)},
            ),
            BatchCommitted(run_id=run, chunk=2, paragraph_ids=ids, file=str(showcase)),
            ChunkFinished(
                run_id=run,
                chunk=2,
                status="complete",
                missing=(),
                turns=2,
                tool_calls=2,
                tool_errors={"CHUNK_BOUNDARY": 1},
                usage={},
                wall_ms=10.0,
            ),
        ]
        for event in events:
            screen.post_message(EngineEventReceived(event, showcase))
        pane = screen.query_one(LogPane)
        await wait_for(
            pilot,
            lambda: [e.kind for e in pane.visible_entries][-1:] == ["chunk_finished"],
            what="every event in the log pane",
        )
        await workers_done(pilot)  # the reload after the commit

    assert snap_compare(chapter_app(showcase), run_before=before)


def test_trace_inspector_on_an_error(snap_compare: Callable[..., bool], tmp_path: Path) -> None:
    trace = tmp_path / "20261121T100000.000000Z-translate.jsonl"
    ids = ["061915f3", "655d8700"]
    events = [
        {
            "kind": "run_started",
            "run_id": "r1",
            "chunk": None,
            "ts": 0,
            "chapter_path": "rashomon.json",
            "chapter_id": "rashomon",
            "task": "translate",
            "model": "test-model",
            "base_url": "http://127.0.0.1:1/v1",
            "chunk_count": 1,
            "paragraph_count": 2,
        },
        {
            "kind": "chunk_started",
            "run_id": "r1",
            "chunk": 1,
            "ts": 0,
            "paragraph_ids": ids,
            "first_paragraph_id": ids[0],
            "last_paragraph_id": ids[1],
            "chunk_count": 1,
        },
        {
            "kind": "model_request",
            "run_id": "r1",
            "chunk": 1,
            "ts": 0,
            "turn": 1,
            "message_count": 2,
            "tool_names": ["get_previous_paragraphs"],
            "messages": [
                {"role": "system", "content": "You translate Japanese into English."},
                {"role": "user", "content": f"This is part 1 of 1.\n[10] [ID: {ids[0]}] …\n\n[11] [ID: {ids[1]}] …"},
            ],
        },
        {
            "kind": "model_response",
            "run_id": "r1",
            "chunk": 1,
            "ts": 0,
            "turn": 1,
            "content": "",
            "reasoning": "",
            "tool_calls": [
                {
                    "id": "c1",
                    "name": "get_previous_paragraphs",
                    "arguments": json.dumps({"paragraph_id": ids[0], "count": 3}),
                }
            ],
            "finish_reason": "tool_calls",
            "usage": {"total_tokens": 42},
            "latency_ms": 120.0,
            "error": None,
        },
        {
            "kind": "tool_called",
            "run_id": "r1",
            "chunk": 1,
            "ts": 0,
            "turn": 1,
            "call_id": "c1",
            "name": "get_previous_paragraphs",
            "arguments": {"paragraph_id": ids[0], "count": 3},
        },
        {
            "kind": "tool_result",
            "run_id": "r1",
            "chunk": 1,
            "ts": 0,
            "turn": 1,
            "call_id": "c1",
            "name": "get_previous_paragraphs",
            "success": False,
            "error_code": "CHUNK_BOUNDARY",
            "result": {
                "success": False,
                "error_code": "CHUNK_BOUNDARY",
                "available_count": 0,
                "error": "the request goes beyond the current chunk",
                "chunk_range": {"first_paragraph_id": ids[0], "last_paragraph_id": ids[1]},
            },
        },
        {
            "kind": "chunk_finished",
            "run_id": "r1",
            "chunk": 1,
            "ts": 0,
            "status": "complete",
            "missing": [],
            "turns": 2,
            "tool_calls": 2,
            "tool_errors": {"CHUNK_BOUNDARY": 1},
            "usage": {},
            "wall_ms": 10.0,
        },
        {"kind": "run_finished", "run_id": "r1", "chunk": None, "ts": 0, "status": "complete", "summary": {}},
    ]
    trace.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), encoding="utf-8")

    async def before(pilot: Pilot) -> None:
        screen = pilot.app.screen
        assert isinstance(screen, TraceScreen)
        await wait_for(pilot, lambda: bool(screen.steps), what="the trace")
        await pilot.press("n")

    assert snap_compare(ProofdeskApp(None, trace=trace), run_before=before)


def test_help_screen(snap_compare: Callable[..., bool], showcase: Path) -> None:
    async def before(pilot: Pilot) -> None:
        await conflicts_loaded(pilot)
        await pilot.press("question_mark")

    assert snap_compare(chapter_app(showcase), run_before=before)
