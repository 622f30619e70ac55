"""The tool registry: tool definitions for the model, and the one way to run a tool call.

:meth:`ToolRegistry.call` takes the call's :class:`~engine.scope.ChunkScope` (during a run, the chunk's, which
carries its boundaries, submissions, origin, model and limits) and builds the handler's
:class:`~engine.context.ToolContext` from it; :meth:`ToolRegistry.handle_tool_call` is the same call outside a run,
its scope built from keyword options (without ``paragraph_ids`` nothing is restricted). Neither ever raises:
unknown tools, bad arguments, an unreadable chapter and handler bugs all come back as failure results.
"""

from __future__ import annotations

import inspect
import logging
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from engine.chapter_source import ChapterSource
from engine.checks.glossary import GlossaryTerm
from engine.context import ToolContext
from engine.scope import ChunkScope
from engine.settings import DEFAULT_MAX_BATCH
from engine.tasks import TASK_RULES, TaskType
from engine.tools.args import parse_arguments
from engine.tools.raw_arguments import BadArguments, decode_arguments
from engine.tools.results import ErrorCode, ToolReply, failure
from engine.tools.schema import parameters_schema
from store.errors import ChapterLoadError
from store.model import Chapter, Origin

log = logging.getLogger(__name__)

Handler = Callable[[ToolContext, Any], dict[str, Any] | ToolReply | Awaitable[dict[str, Any] | ToolReply]]


@dataclass(frozen=True)
class Tool:
    """A tool: its name, what the model is told about it, its argument struct and its handler.

    With ``raw_arguments`` the handler gets the decoded JSON object and validates it itself (the batch
    tool, whose specific error codes win over schema errors); ``args_model`` then only gives the schema.
    ``batch_limit_field`` names a list field whose ``maxItems`` is the run's ``max_batch``.

    ``writes`` marks a tool that changes a file (the chapter, the glossary); a reply that committed to the chapter
    file says what it wrote (``ToolReply.committed``). ``submits`` marks the tool whose calls are the chunk's
    submissions (``add_translation_batch``): only its calls count as the chunk's progress, however many other
    tools write.
    """

    name: str
    description: str
    args_model: type[msgspec.Struct]
    handler: Handler
    raw_arguments: bool = False
    batch_limit_field: str | None = None
    writes: bool = False
    submits: bool = False
    schema_model: type[msgspec.Struct] | None = None
    revise_model: type[msgspec.Struct] | None = None

    def definition(self, max_batch: int = DEFAULT_MAX_BATCH, *, revises: bool = False) -> dict[str, Any]:
        """The OpenAI-style ``{"type": "function", "function": {...}}`` definition (for a revising task with
        ``revises``)."""
        limits = {self.batch_limit_field: max_batch} if self.batch_limit_field else None
        model = (self.revise_model if revises else None) or self.schema_model or self.args_model
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": parameters_schema(model, max_items=limits),
            },
        }


class ToolRegistry:
    """Named tools; definitions are deterministic so every chunk of a run sends byte-identical tools."""

    def __init__(self, tools: Sequence[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._definitions: dict[tuple[int, TaskType | None], list[dict[str, Any]]] = {}
        # The approved glossary entries each call's context carries (a run's glossary sets it; reread per call).
        self.glossary_terms: Callable[[], tuple[GlossaryTerm, ...]] = tuple
        self._guard = threading.Lock()
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        """Add (or replace) a tool."""
        with self._guard:
            self._tools[tool.name] = tool
            self._definitions.clear()

    @property
    def names(self) -> tuple[str, ...]:
        """Tool names in registration order."""
        return tuple(self._tools)

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, if any."""
        return self._tools.get(name)

    def definitions(self, *, max_batch: int = DEFAULT_MAX_BATCH, task: TaskType | None = None) -> list[dict[str, Any]]:
        """Tool definitions for the chat request: every tool, or with ``task`` the tools that task offers
        (``TaskRules.tools``), in registration order; the same list object for the same arguments."""
        with self._guard:
            cached = self._definitions.get((max_batch, task))
            if cached is None:
                cached = [t.definition(max_batch, revises=_revises(task)) for t in self._offered(task)]
                self._definitions[(max_batch, task)] = cached
            return cached

    def _offered(self, task: TaskType | None) -> list[Tool]:
        if task is None:
            return list(self._tools.values())
        return [t for t in self._tools.values() if t.name in TASK_RULES[task].tools]

    def writes(self, name: str) -> bool:
        """Whether calls of the tool called ``name`` may write a file (a commit, once started, is finished)."""
        tool = self._tools.get(name)
        return tool is not None and tool.writes

    def submits(self, name: str) -> bool:
        """Whether calls of the tool called ``name`` are the chunk's submissions (its progress)."""
        tool = self._tools.get(name)
        return tool is not None and tool.submits

    async def call(self, name: str, arguments: object, scope: ChunkScope) -> ToolReply:
        """Run one tool call in ``scope``; never raises. The reply's ``result`` is what the model receives.

        ``arguments`` is the raw JSON string from the model (or an already decoded dict).
        """
        try:
            return await self._handle(name, arguments, scope)
        except Exception as exc:  # the loop must never see an exception from a tool
            return _internal_error(name, exc)

    async def handle_tool_call(
        self,
        name: str,
        arguments: object,
        *,
        source: ChapterSource | Chapter,
        task: TaskType | None = None,
        paragraph_ids: Sequence[str] | None = None,
        origin: Origin | None = None,
        model: str | None = None,
        max_batch: int = DEFAULT_MAX_BATCH,
    ) -> dict[str, Any]:
        """One call outside a run (tests, benchmarks) and its JSON result; never raises.

        The scope is :meth:`ChunkScope.standalone` of these options: ``paragraph_ids`` bound it as a chunk of those
        IDs would be; ``origin`` defaults to the task's, or ``manual`` without a task.
        """
        try:
            scope = ChunkScope.standalone(
                source, task=task, paragraph_ids=paragraph_ids, origin=origin, model=model, max_batch=max_batch
            )
            reply = await self._handle(name, arguments, scope)
        except Exception as exc:  # as in call(): a bad chunk is a result too
            reply = _internal_error(name, exc)
        return reply.result

    async def _handle(self, name: str, arguments: object, scope: ChunkScope) -> ToolReply:
        tool = self._tools.get(name)
        if tool is None:
            return ToolReply(self._unknown_tool(name))
        try:
            args = _arguments(tool, name, arguments)
            chapter = _load(scope.source)
        except (BadArguments, _Refused) as refused:
            return ToolReply(refused.result)
        result = tool.handler(ToolContext(chapter, scope, self.glossary_terms()), args)
        if inspect.isawaitable(result):
            result = await result
        return result if isinstance(result, ToolReply) else ToolReply(result)

    def _unknown_tool(self, name: str) -> dict[str, Any]:
        known = ", ".join(self._tools)
        return failure(
            ErrorCode.UNKNOWN_TOOL,
            f"There is no tool called '{name}'.",
            f"Use one of the available tools: {known}.",
            tool=name,
            available_tools=list(self._tools),
        )


def _revises(task: TaskType | None) -> bool:
    return task is not None and TASK_RULES[task].revises


class _Refused(Exception):
    """A call that cannot reach its handler; ``result`` is the failure to return."""

    def __init__(self, result: dict[str, Any]) -> None:
        super().__init__(result["error"])
        self.result = result


def _internal_error(name: str, exc: Exception) -> ToolReply:
    log.exception("tool %s failed", name, exc_info=exc)
    return ToolReply(
        failure(
            ErrorCode.INTERNAL_ERROR,
            f"The tool {name} failed unexpectedly ({type(exc).__name__}).",
            "This is a bug in proofdesk, not in your call; continue with other work.",
        )
    )


def _arguments(tool: Tool, name: str, arguments: object) -> Any:
    """The handler's arguments: the decoded object for a raw-arguments tool, else its validated struct."""
    raw = decode_arguments(name, arguments)
    return raw if tool.raw_arguments else parse_arguments(tool.args_model, name, raw)


def _load(source: ChapterSource) -> Chapter:
    """The chapter as it is now; a file that cannot be read is a ``CHAPTER_UNAVAILABLE`` result."""
    try:
        return source.load()
    except ChapterLoadError as exc:
        reason, hint = exc.line, "Wait a moment and try again; the editor may be saving the file."
    except OSError as exc:
        reason, hint = str(exc), "Wait a moment and try again."
    raise _Refused(failure(ErrorCode.CHAPTER_UNAVAILABLE, f"The chapter file cannot be read right now: {reason}", hint))
