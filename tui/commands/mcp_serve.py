"""``proofdesk mcp [WORKSPACE]``: serve the workspace's tools to an MCP client over stdio (design section 18).

The session logic is ``engine/mcp/``; the SDK adapter ``tui/commands/mcp_server.py`` is imported only when the
command runs, so neither ``proofdesk --help`` nor ``proofdesk mcp --help`` pays for the SDK.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from engine.mcp.session import McpSession
from store.glossary import GlossaryLoadError
from store.workspace import Workspace
from tui.cli_errors import EXIT_OK, UsageError
from tui.commands.chunks import user_config
from tui.terminal_text import visible


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``mcp`` subcommand."""
    p = subparsers.add_parser(
        "mcp",
        help="serve the workspace's tools to an MCP client over stdio",
        description="Serve the Model Context Protocol over stdin/stdout for an MCP client (an assistant, an "
        "editor, an agent): list_chapters, get_chunk (opens a chunk: the paragraph tools keep to it until "
        "close_chunk or the next get_chunk), close_chunk, the six paragraph tools and check (each with a "
        "'chapter': its id or file name), search_glossary and propose_glossary_entry. Batches are validated and "
        "committed as in a run (reviewed paragraphs get suggestions); every session is traced under "
        "WORKSPACE/.proofdesk/traces/mcp/. The client starts this command; it ends when the client closes stdin.",
    )
    p.add_argument(
        "workspace", metavar="WORKSPACE", type=Path, nargs="?", default=Path("."), help="the folder (default: .)"
    )
    p.set_defaults(handler=run)


def _session(folder: Path) -> McpSession:
    """The session on ``folder``; a folder that is none, or a broken glossary, is bad input (exit 2)."""
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a folder; proofdesk mcp serves a workspace folder of chapter files")
    try:
        return McpSession(Workspace(folder), user_config().run)
    except GlossaryLoadError as exc:
        raise UsageError(exc.line) from None


def run(args: argparse.Namespace) -> int:
    """Serve until the client closes the connection."""
    session = _session(args.workspace)
    if sys.stdin.isatty():  # started by hand: say what it waits for (a client speaks JSON-RPC on stdin)
        print(
            visible(f"proofdesk mcp: serving {session.workspace.root} over stdio for an MCP client; ctrl+c stops"),
            file=sys.stderr,
        )
    from tui.commands.mcp_server import serve  # the SDK: only now

    asyncio.run(serve(session))
    return EXIT_OK
