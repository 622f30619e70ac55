"""The MCP SDK's side of ``proofdesk mcp``: a thin adapter from the official ``mcp`` SDK's low-level server over
stdio to :class:`engine.mcp.session.McpSession`, which holds every decision.

Only ``proofdesk mcp`` imports this module (the SDK costs ~0.4 s at import). Each tool's section-4 object goes
back as ``structuredContent`` and as one JSON text block, with ``isError`` exactly when ``success`` is false; the
session never raises, so a bad call is a tool result and the server goes on.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from engine.mcp.session import McpSession
from tui.cli import package_version

INSTRUCTIONS = (
    "proofdesk: translate, polish or proofread a book's chapters through validated tools. list_chapters, then "
    "get_chunk (it opens the chunk: the paragraph tools keep to it) and submit with add_translation_batch by "
    "paragraph_id; close_chunk lifts the bounds. A paragraph the editor reviewed only receives suggestions."
)


def _client(ctx: ServerRequestContext[Any, Any]) -> tuple[str | None, str | None]:
    """The client's ``clientInfo`` name and version, when it gave them."""
    params = ctx.session.client_params
    if params is None:
        return None, None
    return params.client_info.name, params.client_info.version


async def finished(call: Awaitable[dict[str, Any]]) -> dict[str, Any]:
    """The call's result; a call that started is finished and traced even when the client cancels it or goes away
    (a batch's commit, once begun, is in the trace as in a run); the cancellation goes on after it."""
    with anyio.CancelScope(shield=True):
        result = await call
    return result


def tool_result(result: dict[str, Any]) -> types.CallToolResult:
    """A session result as MCP's ``CallToolResult``."""
    text = json.dumps(result, ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=result,
        is_error=result.get("success") is not True,
    )


class ArgumentsNotAnObject:
    """Middleware: a ``tools/call`` whose ``arguments`` is there but no JSON object (a list, a string) is answered
    by the session as the tool's ``INVALID_ARGUMENTS`` result, where the SDK's validation of the request would make
    it a protocol error (-32602)."""

    def __init__(self, session: McpSession) -> None:
        self.session = session

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        call = _malformed_call(ctx)
        if call is None:
            return await call_next(ctx)
        self.session.meet(*_client(ctx))
        return tool_result(await finished(self.session.call(*call)))


def _malformed_call(ctx: ServerRequestContext[Any, Any]) -> tuple[str, object] | None:
    """``(name, arguments)`` of a ``tools/call`` whose arguments are there but no object, else None."""
    params = ctx.params
    if ctx.method != "tools/call" or not isinstance(params, dict) or not isinstance(params.get("name"), str):
        return None
    arguments = params.get("arguments")
    return None if arguments is None or isinstance(arguments, dict) else (params["name"], arguments)


def build_server(session: McpSession) -> Server[Any]:
    """The SDK's server answering ``tools/list`` and ``tools/call`` from ``session``."""
    listed = [types.Tool(name=t.name, description=t.description, input_schema=t.input_schema) for t in session.tools]

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        session.meet(*_client(ctx))
        return types.ListToolsResult(tools=listed)

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        session.meet(*_client(ctx))
        return tool_result(await finished(session.call(params.name, params.arguments)))

    server: Server[Any] = Server(
        "proofdesk",
        version=package_version(),
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    server.middleware.append(ArgumentsNotAnObject(session))
    return server


async def serve(session: McpSession) -> None:
    """Serve ``session`` over stdin/stdout until the client closes the connection; the trace is finished then."""
    server = build_server(session)
    try:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
    finally:
        session.finish()
        if session.trace.failed:  # the client's log of the server's stderr says so
            print(f"proofdesk mcp: {session.trace.failed}", file=sys.stderr)
