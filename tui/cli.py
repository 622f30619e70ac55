"""The ``proofdesk`` command line: one argparse parser, one module per subcommand under ``tui/commands``.

Every user error becomes one line on stderr and an exit code (0 ok, 1 not successful, 2 bad input or
configuration, 130 cancelled); tracebacks are only for bugs.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

from store.errors import ChapterLoadError
from tui.cli_errors import EXIT_BAD_INPUT, EXIT_CANCELLED, UsageError

COMMAND_MODULES: tuple[str, ...] = ("import_text", "export_text", "run", "check_model", "chunks", "tool",
                                     "open", "demo", "trace")


def package_version() -> str:
    """The installed distribution's version."""
    try:
        return version("proofdesk")
    except PackageNotFoundError:  # running from a source tree without installation
        return "0+unknown"


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as exit 2 with one line (argparse's own convention)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The full parser with every subcommand registered."""
    parser = _Parser(
        prog="proofdesk",
        description="A terminal workstation where an AI model translates, polishes or proofreads a book "
        "chapter chunk by chunk through tool calls, while you watch and review.",
    )
    parser.add_argument("--version", action="version", version=f"proofdesk {package_version()}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(f"tui.commands.{name}").register(subparsers)
    return parser


# ``proofdesk [PATH]`` opens the TUI: without a known command word, the arguments belong to "open".
DEFAULT_COMMAND = "open"


def _with_default_command(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    commands: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            commands.update(action.choices)
    if DEFAULT_COMMAND not in commands:
        return argv
    if argv and (argv[0] in commands or argv[0] in ("-h", "--help", "--version")):
        return argv
    return [DEFAULT_COMMAND, *argv]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(_with_default_command(list(sys.argv[1:] if argv is None else argv), parser))
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0
    try:
        return int(handler(args))
    except UsageError as exc:
        print(f"proofdesk: {exc}", file=sys.stderr)
        return exc.exit_code
    except ChapterLoadError as exc:
        print(f"proofdesk: {exc.line}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("proofdesk: cancelled", file=sys.stderr)
        return EXIT_CANCELLED


if __name__ == "__main__":
    sys.exit(main())
