"""The tool registry: tool definitions for the model, and ``handle_tool_call`` for the loop.

``handle_tool_call`` is the one entry point the tool-call loop uses. It takes the chunk's
``paragraph_ids`` (from ``ToolCallLoopConfig.paragraph_ids``) and builds the handler's
:class:`~engine.context.ToolContext` with the matching ``chunk_boundaries``; without IDs nothing is
restricted. It never raises: unknown tools, bad arguments, an unreadable chapter and handler bugs all
come back as failure results.
"""

from __future__ import annotations

import inspect
import logging
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from engine.checks.glossary import GlossaryTerm
from engine.chunks import TASK_ORIGIN, TaskType
from engine.context import ChapterSource, StaticChapter, ToolContext
from engine.settings import DEFAULT_MAX_BATCH
from engine.tools.args import BadArguments, decode_arguments, parameters_schema, validation_failure
from engine.tools.results import ErrorCode, ToolReply, failure
from engine.tools.submissions import SubmissionTracker
from store.errors import ChapterLoadError
from store.model import Chapter, Origin

log = logging.getLogger(__name__)

Handler = Callable[[ToolContext, Any], dict[str, Any] | ToolReply | Awaitable[dict[str, Any] | ToolReply]]


@dataclass(frozen=True)
class Tool:
    """A tool: its name, what the model is told about it, its argument model and its handler.

    With ``raw_arguments`` the handler gets the decoded JSON object and validates it itself (the batch
    tool, whose specific error codes win over schema errors); ``args_model`` then only gives the schema.
    ``batch_limit_field`` names a list field whose ``maxItems`` is the run's ``max_batch``. ``writes`` marks
    the tool that commits to the chapter file (its reply says what it wrote, see ``ToolReply.committed``).
    """

    name: str
    description: str
    args_model: type[BaseModel]
    handler: Handler
    raw_arguments: bool = False
    batch_limit_field: str | None = None
    writes: bool = False

    def definition(self, max_batch: int = DEFAULT_MAX_BATCH) -> dict[str, Any]:
        """The OpenAI-style ``{"type": "function", "function": {...}}`` definition."""
        limits = {self.batch_limit_field: max_batch} if self.batch_limit_field else None
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": parameters_schema(self.args_model, max_items=limits),
            },
        }


class ToolRegistry:
    """Named tools; definitions are deterministic so every chunk of a run sends byte-identical tools."""

    def __init__(self, tools: Sequence[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._definitions: dict[int, list[dict[str, Any]]] = {}
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

    def definitions(self, *, max_batch: int = DEFAULT_MAX_BATCH) -> list[dict[str, Any]]:
        """Tool definitions for the chat request; the same list object for the same ``max_batch``."""
        with self._guard:
            cached = self._definitions.get(max_batch)
            if cached is None:
                cached = [t.definition(max_batch) for t in self._tools.values()]
                self._definitions[max_batch] = cached
            return cached

    def writes(self, name: str) -> bool:
        """Whether the tool called ``name`` commits to the chapter file."""
        tool = self._tools.get(name)
        return tool is not None and tool.writes

    async def handle_tool_call(self, name: str, arguments: object, **options: Any) -> dict[str, Any]:
        """Run one tool call and return its JSON result; never raises (see :meth:`call` for the options)."""
        return (await self.call(name, arguments, **options)).result

    async def call(
        self,
        name: str,
        arguments: object,
        *,
        source: ChapterSource | Chapter,
        task: TaskType | None = None,
        paragraph_ids: Sequence[str] | None = None,
        submissions: SubmissionTracker | None = None,
        origin: Origin | None = None,
        model: str | None = None,
        max_batch: int = DEFAULT_MAX_BATCH,
    ) -> ToolReply:
        """Run one tool call; never raises. The reply's ``result`` is what the model receives.

        ``arguments`` is the raw JSON string from the model (or an already decoded dict). During a run the loop
        passes the chunk's ``submissions`` tracker, which carries the chunk's boundaries; ``paragraph_ids``
        alone (standalone ``--chunk`` use, tests) gives the same boundaries with a fresh tracker; neither means
        standalone use without restrictions. ``origin`` defaults to the task's (``translation`` / ``polish`` /
        ``proofreading``), or ``manual`` without a task.
        """
        try:
            return await self._handle(
                name,
                arguments,
                source=source,
                task=task,
                paragraph_ids=paragraph_ids,
                submissions=submissions,
                origin=origin,
                model=model,
                max_batch=max_batch,
            )
        except Exception as exc:  # the loop must never see an exception from a tool
            log.exception("tool %s failed", name)
            return ToolReply(
                failure(
                    ErrorCode.INTERNAL_ERROR,
                    f"The tool {name} failed unexpectedly ({type(exc).__name__}).",
                    "This is a bug in proofdesk, not in your call; continue with other work.",
                )
            )

    async def _handle(
        self,
        name: str,
        arguments: object,
        *,
        source: ChapterSource | Chapter,
        task: TaskType | None,
        paragraph_ids: Sequence[str] | None,
        submissions: SubmissionTracker | None,
        origin: Origin | None,
        model: str | None,
        max_batch: int,
    ) -> ToolReply:
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools)
            return ToolReply(
                failure(
                    ErrorCode.UNKNOWN_TOOL,
                    f"There is no tool called '{name}'.",
                    f"Use one of the available tools: {known}.",
                    tool=name,
                    available_tools=list(self._tools),
                )
            )
        try:
            raw = decode_arguments(name, arguments)
        except BadArguments as bad:
            return ToolReply(bad.result)
        if tool.raw_arguments:
            args: Any = raw
        else:
            try:
                args = tool.args_model.model_validate(raw)
            except ValidationError as exc:
                return ToolReply(validation_failure(name, exc))
        if isinstance(source, Chapter):
            source = StaticChapter(source)
        try:
            chapter = source.load()
        except ChapterLoadError as exc:
            return ToolReply(
                failure(
                    ErrorCode.CHAPTER_UNAVAILABLE,
                    f"The chapter file cannot be read right now: {exc.line}",
                    "Wait a moment and try again; the editor may be saving the file.",
                )
            )
        except OSError as exc:
            return ToolReply(
                failure(
                    ErrorCode.CHAPTER_UNAVAILABLE,
                    f"The chapter file cannot be read right now: {exc}",
                    "Wait a moment and try again.",
                )
            )
        if submissions is None and paragraph_ids is not None:
            submissions = SubmissionTracker(paragraph_ids, {})
        ctx = ToolContext(
            chapter=chapter,
            task=task,
            chunk_boundaries=None if submissions is None else submissions.boundaries,
            source=source,
            submissions=submissions,
            origin=origin or (TASK_ORIGIN[task] if task else "manual"),
            model=model,
            max_batch=max_batch,
            glossary=self.glossary_terms(),
        )
        result = tool.handler(ctx, args)
        if inspect.isawaitable(result):
            result = await result
        return result if isinstance(result, ToolReply) else ToolReply(result)
