"""``run_chapters``: the chapters of one workspace share its glossary and memory sources (each file read once per
change, not once per chapter), and with ``jobs`` > 1 each sets itself up off the event loop."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import engine.run_chapters
from engine.config import ModelSettings
from engine.run_chapters import run_chapters
from engine.run_events import RunEvents
from engine.run_request import RunRequest


def request(path: Path) -> RunRequest:
    return RunRequest(
        chapter_path=path, task="translate", settings=ModelSettings(model="m", base_url="http://127.0.0.1:9/v1")
    )


async def test_chapters_of_a_workspace_share_its_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, Any]] = []

    def recorded(req: RunRequest, **kwargs: Any) -> RunEvents:
        seen.append({"path": req.chapter_path, **kwargs})

        async def produce(emit: Callable[[Any], None]) -> None:
            return None

        return RunEvents(produce, "recorded")

    monkeypatch.setattr(engine.run_chapters, "run_chapter", recorded)
    (tmp_path / "book").mkdir()
    (tmp_path / "other").mkdir()
    paths = [tmp_path / "book" / "a.json", tmp_path / "book" / "b.json", tmp_path / "other" / "c.json"]
    async for _ in run_chapters([request(p) for p in paths], jobs=2):
        pass
    by_path = {call["path"]: call for call in seen}
    a, b, c = (by_path[p] for p in paths)
    assert a["memory"] is b["memory"] and a["glossary"] is b["glossary"]
    assert c["memory"] is not a["memory"] and c["glossary"] is not a["glossary"]
    assert a["workspace"].root == b["workspace"].root == (tmp_path / "book").resolve()
    assert all(call["shares_loop"] for call in seen)
