"""Fixtures of the TUI tests: a workspace folder with real chapter files, and an app factory."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path

import pytest
from textual.pilot import Pilot

from engine.config import Config, load_config, resolve_model
from store.workspace import Workspace
from tui.app import ProofdeskApp
from tui.session import WorkspaceSession

SIZE = (80, 24)


def sample_bytes() -> bytes:
    """The bundled sample chapter (Rashomon, Japanese, with empty paragraphs)."""
    return files("tui").joinpath("samples", "rashomon.json").read_bytes()


@pytest.fixture
def workspace_dir(tmp_path: Path) -> Path:
    """A workspace folder holding a copy of the sample chapter as ``rashomon.json``."""
    folder = tmp_path / "book"
    folder.mkdir()
    (folder / "rashomon.json").write_bytes(sample_bytes())
    return folder


def make_app(path: Path, *, config: Config | None = None, watch: bool = True, **settings: str) -> ProofdeskApp:
    """The app on a chapter file (its view) or a folder (the chapter list), as ``proofdesk PATH`` builds it."""
    config = config or load_config()
    model = resolve_model(config, **settings) if settings else resolve_model(config, model="demo")
    if path.is_dir():
        return ProofdeskApp(WorkspaceSession(Workspace(path), config, model), watch=watch)
    ws = WorkspaceSession(Workspace.for_chapter(path), config, model)
    chapter = ws.session(path)
    chapter.load()
    return ProofdeskApp(ws, chapter=chapter, watch=watch)


async def wait_for(pilot: Pilot, predicate: Callable[[], bool], timeout: float = 10.0, what: str = "") -> None:
    """Let the app run until ``predicate()`` holds; fail after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what or predicate}")
        await pilot.pause(0.02)


@pytest.fixture
def app_factory() -> Callable[..., ProofdeskApp]:
    """``make_app`` as a fixture."""
    return make_app


def copy_chapter(src: Path, dst: Path) -> None:
    """Copy a chapter file."""
    shutil.copyfile(src, dst)


def screen_text(app: ProofdeskApp) -> str:
    """The screen as plain text, the way a person reads it (used to assert on what is shown)."""
    import io

    from rich.console import Console

    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, color_system=None,
                      record=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()
