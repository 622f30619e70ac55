"""Fixtures of the TUI tests: a workspace folder with real chapter files, and an app factory."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import TypeVar

import pytest
from textual.command import CommandList, CommandPalette
from textual.message import Message
from textual.notifications import Notify
from textual.pilot import Pilot
from textual.worker import WorkerState

from engine.config import Config, load_config, resolve_model
from store.workspace import Workspace
from tui.app import ProofdeskApp
from tui.session import WorkspaceSession

SIZE = (80, 24)
M = TypeVar("M", bound=Message)


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


@pytest.fixture
def review_path(tmp_path: Path) -> Path:
    """``ws/review.json``: the review chapter (every paragraph state; see ``chapters.review_chapter``)."""
    from tests.tui.chapters import review_chapter, write

    folder = tmp_path / "ws"
    folder.mkdir()
    return write(folder / "review.json", review_chapter())


@pytest.fixture
def small_path(tmp_path: Path) -> Path:
    """``ws/small.json``: three untranslated paragraphs and an empty one (``chapters.small_chapter``)."""
    from tests.tui.chapters import small_chapter, write

    folder = tmp_path / "ws"
    folder.mkdir()
    return write(folder / "small.json", small_chapter())


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


async def workers_done(pilot: Pilot, timeout: float = 10.0) -> None:
    """``app.workers.wait_for_complete()`` for every worker but the workspace watcher (it lasts as long as the app),
    including the workers those start (a reload after a commit); fail after ``timeout`` seconds."""
    app = pilot.app
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while busy := [w for w in app.workers if w.group != "watcher" and not w.is_finished]:
        left = deadline - loop.time()
        if left <= 0:
            raise AssertionError(f"timed out waiting for workers: {[w.description or w.name for w in busy]}")
        running = [w.wait() for w in busy if w.state is WorkerState.RUNNING]
        if running:  # a worker that failed or was cancelled is done too: the test asserts on its effects
            await asyncio.wait_for(asyncio.gather(*running, return_exceptions=True), left)
        await pilot.pause()  # their state-change messages run, and may start more workers


async def palette_offers(pilot: Pilot, wanted: str, timeout: float = 10.0) -> None:
    """Wait until the open command palette shows its results with a command containing ``wanted`` highlighted
    (its search runs in a worker, so ``enter`` right after typing may find no list yet)."""

    def offered() -> bool:
        palette = pilot.app.screen
        if not isinstance(palette, CommandPalette):
            return False
        commands = palette.query_one(CommandList)
        index = commands.highlighted
        return (
            commands.has_class("--visible")
            and index is not None
            and wanted.lower() in str(commands.get_option_at_index(index).prompt).lower()
        )

    await wait_for(pilot, offered, timeout, what=f"the palette to offer {wanted!r}")


class Messages:
    """A ``message_hook`` for ``app.run_test``: every message the app's nodes receive, for tests to wait on."""

    def __init__(self) -> None:
        self.seen: list[Message] = []

    def __call__(self, message: Message) -> None:
        self.seen.append(message)

    def of(self, kind: type[M]) -> list[M]:
        """The messages of one type, in the order they arrived."""
        return [m for m in self.seen if isinstance(m, kind)]

    def notifications(self) -> list[str]:
        """The texts of the notifications (toasts) posted so far."""
        return [m.notification.message for m in self.of(Notify)]


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
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system=None,
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()
