"""The tools an MCP client is shown (design section 18): the session's own, the six paragraph tools with a
``chapter`` argument, the two glossary tools and ``check``; each as ``(name, description, input schema)``."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from engine.mcp.args import ChapterArgs, GetChunkArgs, NoArgs
from engine.tools.registry import ToolRegistry
from engine.tools.schema import parameters_schema

GLOSSARY_TOOLS = ("search_glossary", "propose_glossary_entry")
_CHECK = parameters_schema(ChapterArgs)
_CHAPTER = _CHECK["properties"]["chapter"]


@dataclass(frozen=True)
class ListedTool:
    """One tool as ``tools/list`` shows it."""

    name: str
    description: str
    input_schema: dict[str, Any]


def session_tools() -> list[ListedTool]:
    """The session's own tools, before the registry's."""
    return [
        ListedTool(
            "list_chapters", "The workspace's chapters: {chapter, file, title} each.", parameters_schema(NoArgs)
        ),
        ListedTool(
            "get_chunk",
            "Chunk `index` of a task's work set as a run sends it (context and memory included), built from the file "
            "now. Opens it: until the next get_chunk or close_chunk, the paragraph tools and add_translation_batch "
            "keep to its paragraphs, and batches get the task's origin.",
            parameters_schema(GetChunkArgs),
        ),
        ListedTool("close_chunk", "Close the open chunk: the tools are unbounded again.", parameters_schema(NoArgs)),
    ]


def listed_tools(registry: ToolRegistry, max_batch: int) -> list[ListedTool]:
    """Every tool of an MCP session, in a fixed order."""
    tools = session_tools()
    for definition in registry.definitions(max_batch=max_batch):
        function = definition["function"]
        schema = function["parameters"]
        if function["name"] not in GLOSSARY_TOOLS:
            schema = with_chapter(schema)
        tools.append(ListedTool(function["name"], function["description"], schema))
    tools.append(ListedTool("check", "A chapter's QA warnings, as proofdesk check gives them.", _CHECK))
    return tools


def with_chapter(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with a required ``chapter`` property first."""
    out = copy.deepcopy(schema)
    out["properties"] = {"chapter": dict(_CHAPTER), **out.get("properties", {})}
    out["required"] = ["chapter", *out.get("required", [])]
    return out
