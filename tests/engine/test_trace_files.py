"""Where traces go and how they are opened: one folder per chapter ID (any script), private files, no links."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from engine.config import ModelSettings
from engine.events import ErrorEvent, RunStarted
from engine.run_request import RunRequest
from engine.trace import TraceWriter, default_trace_path, latest_trace, safe_name, trace_folder_name
from store.errors import StoreError
from store.model import Chapter, Paragraph
from store.serialize import chapter_bytes
from tests.engine.loop_support import collect

DEMO = ModelSettings(model="demo", base_url="demo://offline")


def test_safe_ascii_ids_keep_their_folder_names() -> None:
    assert trace_folder_name("ch01") == "ch01" and trace_folder_name("rashomon.v2_draft") == "rashomon.v2_draft"


def test_ids_in_any_script_get_distinct_stable_folders() -> None:
    names = {trace_folder_name(i) for i in ("第一章", "第二章", "chapter", "ch 01", "ch_01", ".hidden", "a/../b")}
    assert len(names) == 7
    assert trace_folder_name("第一章") == trace_folder_name("第一章")
    for name in names:
        assert "/" not in name and name not in (".", "..") and not name.startswith(".")


async def test_runs_of_two_japanese_chapter_ids_leave_their_own_traces(tmp_path: Path) -> None:
    paths = []
    for cid, text in (("第一章", "ある日の暮方の事である。"), ("第二章", "下人は雨やみを待っていた。")):
        chapter = Chapter(
            id=cid, title=cid, source_language="ja", target_language="en", paragraphs=(Paragraph(id="p1", text=text),)
        )
        path = tmp_path / f"{cid}.json"
        path.write_bytes(chapter_bytes(chapter))
        paths.append(path)
        await collect(RunRequest(path, "translate", DEMO))
    traces = tmp_path / ".proofdesk" / "traces"
    first, second = latest_trace(traces, "第一章"), latest_trace(traces, "第二章")
    assert first is not None and second is not None and first.parent != second.parent
    assert "第一章" in first.read_text(encoding="utf-8") and "第二章" not in first.read_text(encoding="utf-8")


def test_a_trace_from_before_hashed_folders_is_found_only_by_its_own_chapter(tmp_path: Path) -> None:
    traces = tmp_path / ".proofdesk" / "traces"
    shared = traces / safe_name("第一章")  # where runs of both chapters used to leave their traces
    assert shared.name == safe_name("第二章") != trace_folder_name("第一章")
    for stamp, cid in (("20260101T000000.000000Z", "第一章"), ("20260102T000000.000000Z", "第二章")):
        writer = TraceWriter(shared / f"{stamp}-translate.jsonl")
        writer.write(
            RunStarted(
                run_id="r",
                chapter_path=f"{cid}.json",
                chapter_id=cid,
                task="translate",
                model="demo",
                base_url="demo",
                chunk_count=1,
                paragraph_count=1,
            )
        )
        writer.close()
    old_first = latest_trace(traces, "第一章")
    assert old_first is not None and old_first.name.startswith("20260101")  # not the newer trace of 第二章
    assert latest_trace(traces, "第三章") is None
    newer = default_trace_path(traces, "第一章", "polish")  # a run since: the hashed folder, newest first
    TraceWriter(newer).close()
    assert latest_trace(traces, "第一章") == newer


def test_a_trace_is_private_and_never_written_through_a_link(tmp_path: Path) -> None:
    traces = tmp_path / ".proofdesk" / "traces" / "ch01"
    writer = TraceWriter(traces / "run.jsonl")
    writer.write(ErrorEvent(run_id="r", message="hello"))
    writer.close()
    assert stat.S_IMODE(os.stat(traces / "run.jsonl").st_mode) == 0o600
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (traces / "linked.jsonl").symlink_to(elsewhere / "victim.jsonl")
    with pytest.raises(OSError):
        TraceWriter(traces / "linked.jsonl")
    (tmp_path / ".proofdesk" / "traces" / "ch02").symlink_to(elsewhere)
    with pytest.raises(StoreError, match="symbolic link"):
        TraceWriter(tmp_path / ".proofdesk" / "traces" / "ch02" / "run.jsonl")
    assert list(elsewhere.iterdir()) == []
