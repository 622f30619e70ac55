"""The MCP session of ``proofdesk mcp`` (design section 18), without the MCP SDK: an assistant's tool calls on a
workspace, through the same registry, boundaries, commits and trace as a run.

``session.py`` (:class:`~engine.mcp.session.McpSession`: the open chunk, the scope of each call, dispatch),
``chapters.py`` (a chapter named by id or file name), ``chunk_opening.py`` (``get_chunk``: the chunk message as a
run builds it, and the chunk's scope), ``tool_list.py`` (the tools a client is shown), ``args.py`` (the session's
own arguments), ``session_trace.py`` (``.proofdesk/traces/mcp/``). The SDK adapter is ``tui/commands/mcp_server.py``.
"""
