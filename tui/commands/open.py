"""``proofdesk [PATH]``: the workstation on a chapter file (straight to its view) or a workspace folder."""

from __future__ import annotations

import argparse
import codecs
import shlex
from pathlib import Path

from engine.config import Config, ModelSettings
from store.errors import ChapterLoadError
from store.workspace import Workspace
from tui.cli_errors import UsageError
from tui.commands.model_flags import add_model_flags, model_settings

DEMO_DELAY = 0.03  # seconds between the demo model's words in the TUI, so the stream is visible
SNIFF_BYTES = 4096  # enough of a file to tell plain text from a chapter (JSON starts with "{")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``open`` subcommand (also what ``proofdesk PATH`` and a bare ``proofdesk`` run)."""
    p = subparsers.add_parser(
        "open",
        help="open the workstation on a chapter file or a workspace folder (default: .)",
        description="Open the workstation. A chapter file opens straight to its chapter view (log pane visible); "
        "a folder opens the chapter list of that workspace. Keys: ? lists them all, ctrl+p finds any action "
        "by name, ctrl+q quits.",
    )
    p.add_argument(
        "path",
        metavar="PATH",
        nargs="?",
        type=Path,
        default=Path("."),
        help="a chapter file or a folder of chapter files (default: the current folder)",
    )
    add_model_flags(p)
    p.set_defaults(handler=run)


def check_tui_config(config: Config) -> None:
    """Refuse a config whose ``[keymap]`` or ``theme`` the app cannot use (exit 2, one line)."""
    from tui.app import ProofdeskApp

    problems = ProofdeskApp.check_config(config.keymap, config.theme)
    if problems:
        raise UsageError(f"{config_file()}: {problems[0]}")


def config_file() -> Path:
    """The config file in use (for messages)."""
    from engine.config import config_path

    return config_path()


def launch(path: Path, config: Config, settings: ModelSettings, *, demo_delay: float = 0.0) -> int:
    """Start the app on ``path``; returns its exit code. A chapter that does not load is exit 2, before any UI."""
    check_tui_config(config)
    from tui.app import ProofdeskApp
    from tui.logfile import log_to_file
    from tui.session import WorkspaceSession

    if not path.exists():
        raise UsageError(f"{path}: no such file or folder")
    chapter = None
    if path.is_dir():
        workspace = WorkspaceSession(Workspace(path), config, settings)
    else:
        workspace = WorkspaceSession(Workspace.for_chapter(path), config, settings)
        chapter = workspace.session(path)
        try:
            chapter.load()  # a ChapterLoadError becomes one line and exit 2 (tui.cli)
        except ChapterLoadError:
            if is_plain_text(path):
                command = f"proofdesk import {shlex.quote(str(path))}"
                raise UsageError(
                    f"{path}: this is a plain-text file, not a chapter: run `{command}` first to make a chapter from it"
                ) from None
            raise
    log_to_file()
    app = ProofdeskApp(workspace, chapter=chapter, demo_delay=demo_delay if settings.is_demo else 0.0)
    app.run()
    return app.return_code or 0


def is_plain_text(path: Path) -> bool:
    """Whether ``path`` starts with readable UTF-8 text that is not JSON (a chapter file starts with ``{``)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError:
        return False
    try:
        text = codecs.getincrementaldecoder("utf-8-sig")().decode(head, final=False)  # a cut character waits
    except UnicodeDecodeError:
        return False
    start = text.lstrip()
    return bool(start) and start[0] not in "{[" and "\x00" not in start


def run(args: argparse.Namespace) -> int:
    """Open the workstation."""
    config, settings = model_settings(args)
    return launch(args.path, config, settings, demo_delay=DEMO_DELAY)
