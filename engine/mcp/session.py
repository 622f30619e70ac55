"""``McpSession``: one MCP client's work on a workspace, without the SDK (``tui/commands/mcp_server.py`` adapts it).

Every call goes through :meth:`McpSession.call`, one at a time, and never raises: a bad argument, an unknown tool
or chapter is a failure result, as in a run. The paragraph tools and the glossary tools run through the tool
registry (``ToolRegistry.call(name, arguments, scope)``), so their validation, boundaries, commits (lock, atomic
write, protected paragraphs getting suggestions) are a run's. The scope of a call is the open chunk's
(``get_chunk`` opens one, ``close_chunk`` or the next ``get_chunk`` closes it), or, with none open, an unbounded
one whose commits get origin ``translation``; either way the versions' model is the client's name.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.checks import check_chapter
from engine.config import RunDefaults
from engine.glossary.run_glossary import RunGlossary
from engine.glossary.tools import with_glossary
from engine.mcp.args import ChapterArgs, GetChunkArgs, NoArgs, validated
from engine.mcp.chapters import WorkspaceChapters, readable
from engine.mcp.chunk_opening import ChunkOpener, OpenChunk
from engine.mcp.refusal import Refusal
from engine.mcp.session_trace import SessionTrace
from engine.mcp.tool_list import GLOSSARY_TOOLS, ListedTool, listed_tools
from engine.memory.source import MemorySource
from engine.prompts import PromptSet
from engine.scope import ChunkScope
from engine.tools import default_registry
from engine.tools.raw_arguments import BadArguments, decode_arguments
from engine.tools.results import Committed, ErrorCode, failure, ok
from store.commit import ChapterStore
from store.glossary_commit import GlossaryStore
from store.model import Chapter
from store.workspace import Workspace

log = logging.getLogger(__name__)

DEFAULT_CLIENT = "mcp-client"  # the model name of a client that gave no clientInfo
_NO_CHAPTER = Chapter(id="glossary", paragraphs=())  # what the glossary tools' scope reads: they need no chapter


@dataclass(frozen=True)
class _Answer:
    """A call's result, and what it wrote to which chapter file."""

    result: dict[str, Any]
    committed: Committed | None = None
    file: Path | None = None


class McpSession:
    """One session: the workspace's chapters, glossary and memory, the open chunk, the client and the trace.

    Building it reads the glossary (``GlossaryLoadError`` for a broken one: the server should not start).
    """

    def __init__(self, workspace: Workspace, run: RunDefaults | None = None) -> None:
        self.workspace = workspace
        self.run = run or RunDefaults()
        self.chapters = WorkspaceChapters(workspace, self.run.keep_versions)
        self.glossary = RunGlossary(GlossaryStore(workspace))
        memory = MemorySource(
            workspace, source_language=self.run.source_language, target_language=self.run.target_language
        )
        self.opener = ChunkOpener(self.chapters, self.run, self.glossary, memory, PromptSet.load())
        self.registry = with_glossary(default_registry(), self.glossary)
        self.tools: list[ListedTool] = listed_tools(self.registry, self.run.max_batch)
        self.client = DEFAULT_CLIENT
        self.open: OpenChunk | None = None
        self.trace = SessionTrace(workspace)
        self._own: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "list_chapters": self._list_chapters,
            "get_chunk": self._get_chunk,
            "close_chunk": self._close_chunk,
            "check": self._check,
        }
        self._turn = asyncio.Lock()

    def meet(self, client: str | None, version: str | None = None) -> None:
        """Start the session (its trace's ``session_started``) for the client named in ``clientInfo``; once."""
        if self.trace.started:
            return
        self.client = client or DEFAULT_CLIENT
        self.glossary.model = self.client
        self.trace.start(self.client, version)

    def finish(self) -> None:
        """End the session: ``session_finished``, the trace closed."""
        self.meet(None)
        self.trace.finish()

    async def call(self, name: str, arguments: object) -> dict[str, Any]:
        """Run one tool call (after the calls before it); its section-4 result object. Never raises."""
        async with self._turn:
            self.meet(None)
            chunk = self._chunk_number()
            call_id = self.trace.called(name, arguments, chunk)
            answer = await self._answer(name, arguments)
            self._traced(call_id, name, answer, chunk)
            return answer.result

    def _traced(self, call_id: str, name: str, answer: _Answer, chunk: int | None) -> None:
        """The call's ``tool_result``, and what it did: ``batch_committed``, or ``chunk_started`` for a chunk
        ``get_chunk`` opened."""
        self.trace.answered(call_id, name, answer.result, chunk)
        if answer.committed is not None and answer.committed.accepted:
            self.trace.committed(answer.committed, answer.file, chunk)
        if name == "get_chunk" and answer.result.get("success") is True and self.open is not None:
            self.trace.opened(self.open.scope, self.open.index, self.open.count)

    async def _answer(self, name: str, arguments: object) -> _Answer:
        try:
            raw = decode_arguments(name, arguments)
            own = self._own.get(name)
            if own is not None:
                return _Answer(await asyncio.to_thread(own, raw))  # reads files: the stdio loop answers pings
            return await self._registry_call(name, raw)
        except (BadArguments, Refusal) as refused:
            return _Answer(refused.result)
        except Exception as exc:  # a bug must be a result, never a crashed server
            log.exception("MCP tool %s failed", name)
            return _Answer(
                failure(
                    ErrorCode.INTERNAL_ERROR,
                    f"The tool {name} failed unexpectedly ({type(exc).__name__}).",
                    "This is a bug in proofdesk, not in your call; continue with other work.",
                )
            )

    async def _registry_call(self, name: str, raw: dict[str, Any]) -> _Answer:
        if self.registry.get(name) is None:
            return _Answer(self._unknown_tool(name))
        if name in GLOSSARY_TOOLS:
            scope, arguments = self._glossary_scope(), raw
        else:
            chapter = validated(ChapterArgs, name, raw).chapter
            scope = self._scope(self.chapters.find(chapter))
            arguments = {k: v for k, v in raw.items() if k != "chapter"}
        await asyncio.to_thread(self.glossary.reload)  # another program's edits reach this call's checks
        reply = await self.registry.call(name, arguments, scope)
        return _Answer(reply.result, reply.committed, scope.source.path)

    def _scope(self, store: ChapterStore) -> ChunkScope:
        """The open chunk's scope on its chapter; unbounded with none open; another chapter is refused."""
        if self.open is None:
            return ChunkScope.standalone(store, origin="translation", model=self.client, max_batch=self.run.max_batch)
        if self.open.store.path != store.path:
            raise Refusal(self._other_chapter(store))
        return self.open.scope

    def _glossary_scope(self) -> ChunkScope:
        if self.open is not None:
            return self.open.scope
        return ChunkScope.standalone(_NO_CHAPTER, origin="translation", model=self.client)

    def _chunk_number(self) -> int | None:
        return self.open.index if self.open is not None else None

    # -- the session's own tools (run in a thread) ----------------------------------------------------------

    def _list_chapters(self, raw: dict[str, Any]) -> dict[str, Any]:
        validated(NoArgs, "list_chapters", raw)
        return self.chapters.listed()

    def _get_chunk(self, raw: dict[str, Any]) -> dict[str, Any]:
        args = validated(GetChunkArgs, "get_chunk", raw)
        self.open, result = self.opener.open(args, self.client)  # a refused call leaves the open chunk open
        return result

    def _close_chunk(self, raw: dict[str, Any]) -> dict[str, Any]:
        validated(NoArgs, "close_chunk", raw)
        closed, self.open = self.open, None
        if closed is None:
            return ok(closed=False, note="No chunk was open; the tools are unbounded.")
        return ok(closed=True, file=closed.store.path.name, index=closed.index, note="The tools are unbounded now.")

    def _check(self, raw: dict[str, Any]) -> dict[str, Any]:
        store = self.chapters.find(validated(ChapterArgs, "check", raw).chapter)
        self.glossary.reload()
        chapter = readable(store)
        warnings = check_chapter(chapter, self.glossary.approved_terms())
        return ok(
            chapter=chapter.id, file=store.path.name, count=len(warnings), warnings=[w.to_json() for w in warnings]
        )

    # -- refusals ---------------------------------------------------------------------------------------------

    def _unknown_tool(self, name: str) -> dict[str, Any]:
        names = [t.name for t in self.tools]
        return failure(
            ErrorCode.UNKNOWN_TOOL,
            f"There is no tool called '{name}'.",
            f"Use one of the available tools: {', '.join(names)}.",
            tool=name,
            available_tools=names,
        )

    def _other_chapter(self, store: ChapterStore) -> dict[str, Any]:
        assert self.open is not None
        boundaries = self.open.scope.boundaries
        extra = {"chunk_range": boundaries.chunk_range()} if boundaries is not None else {}
        return failure(
            ErrorCode.OUT_OF_CHUNK,
            f"Chunk {self.open.index} of {self.open.store.path.name} is open, and {store.path.name} is another "
            "chapter: the request goes beyond the current chunk.",
            "Work on the paragraphs of the current chunk, or call close_chunk first.",
            **extra,
        )
