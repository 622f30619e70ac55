"""The ``proofdesk`` command line: one argparse parser, one module per subcommand under ``tui/commands``.

Every user error becomes one line on stderr and an exit code (0 ok, 1 not successful, 2 bad input or
configuration, 130 cancelled); tracebacks are only for bugs.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Callable, Sequence

from store.errors import ChapterLoadError
from tui.cli_errors import EXIT_BAD_INPUT, EXIT_CANCELLED, EXIT_FAILED, UsageError
from tui.malloc_arenas import limit_malloc_arenas
from tui.terminal_text import visible

# Command word -> (module under tui.commands, one-line help). Only the module of the command being run
# is imported: `proofdesk --help` or `proofdesk export` do not pay for the engine, httpx or Textual.
COMMANDS: dict[str, tuple[str, str]] = {
    "open": ("open", "open the workstation on a chapter file or a workspace folder (default: .)"),
    "demo": ("demo", "the workstation on a bundled sample chapter with the offline demo model"),
    "run": ("run", "translate, polish or proofread chapters headless"),
    "chunks": ("chunks", "print the chunks exactly as the model gets them"),
    "tool": ("tool", "call one tool with JSON arguments and print its JSON result"),
    "check-model": ("check_model", "send one streaming tool-call request to the model and show what came back"),
    "trace": ("trace", "open a run's trace in the step-by-step inspector"),
    "import": ("import_text", "make a chapter file from plain text, or read XLIFF/PO back with --into"),
    "export": ("export_text", "write the selected translations as text, EPUB, XLIFF, PO or TMX"),
    "check": ("check", "print the QA warnings of chapters (or --dismiss one)"),
    "glossary": ("glossary", "list and edit the workspace glossary, import or export it, extract candidate terms"),
    "review": ("review", "list the pending suggestions of chapters, accept or reject them"),
    "stats": ("stats", "what each model is worth: its suggestions accepted or rejected, its versions kept or edited"),
    "mcp": ("mcp_serve", "serve the workspace's tools to an MCP client over stdio (Claude Desktop, editors, agents)"),
}
# Commands that run no Textual app: when one returns, all that is left to do is flush, so the process ends at once
# instead of spending 0.1-0.3 s in the interpreter's teardown of every module it imported.
HEADLESS = frozenset(
    {"run", "chunks", "tool", "check-model", "import", "export", "check", "glossary", "review", "stats", "mcp"}
)


def package_version() -> str:
    """The installed distribution's version."""
    from importlib.metadata import PackageNotFoundError, version  # ~50 ms: only for --version

    try:
        return version("proofdesk")
    except PackageNotFoundError:  # running from a source tree without installation
        return "0+unknown"


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as exit 2 with one line (argparse's own convention)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # The message may quote an argument, such as a file name that carries control characters.
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {visible(message, newlines=False)}\n")


class _VersionAction(argparse.Action):
    """``--version``, reading the installed metadata only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        parser.exit(0, f"proofdesk {package_version()}\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; ``command``'s own arguments are registered fully, the others by name and help only."""
    parser = _Parser(
        prog="proofdesk",
        description="A terminal workstation where an AI model translates, polishes or proofreads a book "
        "chapter chunk by chunk through tool calls, while you watch and review.",
    )
    parser.add_argument("--version", action=_VersionAction)
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=_Parser)
    for name, (module, summary) in COMMANDS.items():
        if name == command:
            importlib.import_module(f"tui.commands.{module}").register(subparsers)
        else:
            subparsers.add_parser(name, help=summary)
    return parser


def _log_to_file() -> None:
    """Log records go to the log file, never to the terminal (a traceback is for the log, not the user).

    Added once per process; other handlers are left alone (the TUI commands remove terminal ones).
    """
    import logging

    from tui.logfile import file_handler, log_path, quiet_http_loggers

    root = logging.getLogger()
    path = str(log_path())
    for old in [h for h in root.handlers if getattr(h, "proofdesk_cli", False)]:
        if getattr(old, "baseFilename", None) == path:
            return
        root.removeHandler(old)  # the log folder moved (tests point it elsewhere): replace ours only
        old.close()
    try:
        handler: logging.Handler = file_handler()
    except OSError:
        handler = logging.NullHandler()  # no log file: still nothing on the terminal
    handler.proofdesk_cli = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    if root.level > logging.INFO or root.level == logging.NOTSET:
        root.setLevel(logging.INFO)
    quiet_http_loggers()


# ``proofdesk [PATH]`` opens the TUI: without a known command word, the arguments belong to "open".
DEFAULT_COMMAND = "open"


def _with_default_command(argv: list[str]) -> list[str]:
    if argv and (argv[0] in COMMANDS or argv[0] in ("-h", "--help", "--version")):
        return argv
    return [DEFAULT_COMMAND, *argv]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code.

    As the process's entry point (``argv`` None) it also keeps the garbage collector out of the command's imports,
    and ends a headless command's process as soon as its output is flushed (``exit_now``). Called with ``argv``
    (tests, embedding) it only returns the code.
    """
    entry = argv is None
    if entry:
        # Importing the command's module (the engine, httpx, pydantic ...) makes tens of thousands of objects that
        # live until exit: collecting while they are made frees nothing. Afterwards they are frozen out of the
        # collector's generations, so no collection during the command walks them again.
        gc.disable()
        limit_malloc_arenas()
    try:
        words = _with_default_command(list(sys.argv[1:] if argv is None else argv))
        parser = build_parser(words[0] if words else None)
        args = parser.parse_args(words)
    except KeyboardInterrupt:  # Ctrl+C while the command's modules load: no traceback, the usual code
        print("proofdesk: cancelled", file=sys.stderr)
        return EXIT_CANCELLED
    finally:
        if entry:
            gc.freeze()
            gc.enable()
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0
    _log_to_file()
    code = _run_handler(handler, args)
    if entry and words[0] in HEADLESS:
        exit_now(code)
    return code


def exit_now(code: int) -> None:
    """End the process with ``code`` once stdout, stderr and the log file are flushed, skipping the teardown.

    Every file a command writes is closed (atomic writes, the trace) before it returns, so nothing is left for
    the teardown but freeing memory the process gives back anyway. Returns, for the usual exit, when the output
    cannot be flushed (a closed pipe): the interpreter then reports it as it always does.
    """
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return
    logging = sys.modules.get("logging")
    if logging is not None:
        logging.shutdown()
    os._exit(code)


def _run_handler(handler: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    try:
        return int(handler(args))
    except UsageError as exc:
        print(f"proofdesk: {visible(str(exc), newlines=False)}", file=sys.stderr)
        return exc.exit_code
    except ChapterLoadError as exc:
        print(f"proofdesk: {visible(exc.line, newlines=False)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("proofdesk: cancelled", file=sys.stderr)
        return EXIT_CANCELLED
    except BrokenPipeError:
        # The reader of stdout went away (``| head``): stop quietly; whatever was committed stays committed.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's final flush must not fail again
        os.close(devnull)
        print("proofdesk: stopped: the output pipe was closed", file=sys.stderr)
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
