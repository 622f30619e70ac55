"""``proofdesk trace FILE``: step through a run's JSONL trace in the inspector."""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.config import ConfigError, load_config
from engine.trace import TraceReadError, read_events
from tui.cli_errors import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``trace`` subcommand."""
    p = subparsers.add_parser(
        "trace",
        help="open a run's trace in the step-by-step inspector",
        description="Open a JSONL trace (written by every run under <workspace>/.proofdesk/traces/) in the "
        "inspector: j/k step, n/N jump between errors, f filters by tool or error code, q quits.",
    )
    p.add_argument("file", metavar="FILE", type=Path, help="the trace file (.jsonl)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Check the trace reads, then open the inspector on it."""
    from tui.app import ProofdeskApp
    from tui.commands.open import check_tui_config
    from tui.logfile import log_to_file

    path: Path = args.file
    if path.is_dir():
        raise UsageError(f"{path}: is a folder, not a trace file")
    try:
        for _ in read_events(path):
            pass
    except TraceReadError as exc:
        raise UsageError(str(exc)) from None
    try:
        config = load_config()
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    check_tui_config(config)
    log_to_file()
    app = ProofdeskApp(None, trace=path, config=config)
    app.run()
    return app.return_code or 0
