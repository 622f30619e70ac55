"""The registry: tool definitions (schemas), argument errors, unknown tools, and no exception ever escaping."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.context import ToolContext
from engine.tools import default_registry, default_tools
from engine.tools.args import InfoArgs
from engine.tools.registry import Tool, ToolRegistry
from engine.tools.results import ErrorCode
from store.commit import ChapterStore
from tests.engine.tool_chapters import call, chapter_of, write_chapter

NAMES = [
    "get_previous_paragraphs",
    "get_next_paragraphs",
    "get_paragraph_position",
    "get_paragraph_info",
    "find_paragraph_by_keywords",
    "add_translation_batch",
]


def walk(node: Any) -> list[Any]:
    out = [node]
    if isinstance(node, dict):
        for v in node.values():
            out += walk(v)
    elif isinstance(node, list):
        for v in node:
            out += walk(v)
    return out


def test_six_tools_with_self_contained_schemas() -> None:
    defs = default_registry().definitions()
    assert [d["function"]["name"] for d in defs] == NAMES
    for d in defs:
        fn = d["function"]
        assert d["type"] == "function"
        assert 20 < len(fn["description"]) <= 130  # says what the name does not, briefly
        params = fn["parameters"]
        assert params["type"] == "object" and params["required"]
        for node in walk(params):
            if isinstance(node, dict):  # nothing a model needs no word of (a default goes without saying)
                assert not {"$ref", "$defs", "title", "anyOf", "default", "maxLength", "pattern"} & node.keys(), (
                    fn["name"],
                    node,
                )
        for node in walk(params):  # every paragraph_id says where it comes from
            if isinstance(node, dict) and "paragraph_id" in node.get("properties", {}):
                assert node["properties"]["paragraph_id"]["description"] == "From [ID: …].", fn["name"]
    reads = {d["function"]["name"]: d["function"]["description"] for d in defs}
    for name in ("get_previous_paragraphs", "get_next_paragraphs"):  # the model learns where reading stops
        assert "CHUNK_BOUNDARY" in reads[name] and "available_count" in reads[name]


def test_schemas_bound_counts_and_batch_size() -> None:
    by_name = {d["function"]["name"]: d["function"]["parameters"] for d in default_registry().definitions()}
    count = by_name["get_next_paragraphs"]["properties"]["count"]
    assert (count["minimum"], count["maximum"]) == (1, 50) and "count" not in by_name["get_next_paragraphs"]["required"]
    search = by_name["find_paragraph_by_keywords"]["properties"]
    assert (search["keywords"]["minItems"], search["keywords"]["maxItems"]) == (1, 20)
    assert search["max_results"]["maximum"] == 50
    batch = by_name["add_translation_batch"]["properties"]["paragraphs"]
    assert batch["maxItems"] == 20
    assert batch["items"]["required"] == ["paragraph_id", "translated_text"]
    assert batch["items"]["properties"]["paragraph_id"]["description"] == "From [ID: …]."
    small = {d["function"]["name"]: d for d in default_registry().definitions(max_batch=5)}
    assert small["add_translation_batch"]["function"]["parameters"]["properties"]["paragraphs"]["maxItems"] == 5


def test_each_task_is_offered_only_its_tools_and_a_translation_no_reason() -> None:
    registry = default_registry()
    offered = {task: registry.definitions(task=task) for task in ("translate", "polish", "proofread")}
    assert [d["function"]["name"] for d in offered["translate"]] == ["add_translation_batch"]  # no glossary here
    assert [d["function"]["name"] for d in offered["polish"]] == ["find_paragraph_by_keywords", "add_translation_batch"]
    assert offered["proofread"] == offered["polish"]
    item = {
        task: defs[-1]["function"]["parameters"]["properties"]["paragraphs"]["items"] for task, defs in offered.items()
    }
    # original_text_prefix is accepted, not shown (a small model filled it with its translation)
    assert list(item["translate"]["properties"]) == ["paragraph_id", "translated_text"]
    assert list(item["polish"]["properties"]) == ["paragraph_id", "translated_text", "reason", "category"]
    assert "fluency" in item["polish"]["properties"]["category"]["enum"]
    assert registry.definitions(task="polish") is offered["polish"]  # built once


def test_definitions_are_byte_identical_on_every_call() -> None:
    registry = default_registry()
    first = registry.definitions()
    assert registry.definitions() is first
    assert json.dumps(default_registry().definitions()) == json.dumps(first)


async def test_unknown_tool() -> None:
    result = await call("translate_everything", {}, chapter_of(["A"]))
    assert result["success"] is False and result["error_code"] == "UNKNOWN_TOOL"
    assert result["available_tools"] == NAMES
    assert "translate_everything" in result["error"]


async def test_arguments_that_are_not_json_or_not_an_object() -> None:
    chapter = chapter_of(["A"], ids=["a"])
    for raw in ('{"paragraph_id": "a"', "not json", "[1, 2]", '"a"', "[" * 100_000):
        result = await call("get_paragraph_info", raw, chapter)
        assert result["error_code"] == "INVALID_ARGUMENTS", raw[:20]
        assert result["field"] == "arguments"
    ok = await call("get_paragraph_info", '{"paragraph_id": "a"}', chapter)
    assert ok["success"] is True


async def test_schema_errors_name_the_field() -> None:
    chapter = chapter_of(["A"], ids=["a"])
    missing = await call("get_paragraph_info", "", chapter)  # "" means no arguments at all
    assert missing["error_code"] == "INVALID_ARGUMENTS" and missing["field"] == "paragraph_id"
    assert "'paragraph_id' is required" in missing["error"]
    assert "[ID: …]" in missing["hint"]
    wrong = await call("get_paragraph_position", {"paragraph_id": "a", "next_count": 99}, chapter)
    assert wrong["field"] == "next_count"
    assert wrong["invalid_fields"][0]["problem"].startswith("input should be less than or equal to 50")
    spaced = await call("get_next_paragraphs", {"paragraph_id": "a b"}, chapter)
    assert spaced["field"] == "paragraph_id"


async def test_a_failing_handler_never_raises_into_the_caller() -> None:
    def broken(ctx: ToolContext, args: InfoArgs) -> dict[str, Any]:
        raise KeyError("bug")

    registry = ToolRegistry([*default_tools(), Tool("broken", "always fails", InfoArgs, broken)])
    result = await registry.handle_tool_call("broken", {"paragraph_id": "a"}, source=chapter_of(["A"]))
    assert result["success"] is False and result["error_code"] == "INTERNAL_ERROR"
    empty_chunk = await registry.handle_tool_call(
        "get_next_paragraphs", {"paragraph_id": "a"}, source=chapter_of(["A"]), paragraph_ids=[]
    )
    assert empty_chunk["error_code"] == "INTERNAL_ERROR"


async def test_a_chapter_that_cannot_be_read_is_a_result_not_an_exception(tmp_path: Path) -> None:
    path = write_chapter(tmp_path / "ch.json", chapter_of(["A"], ids=["a"]))
    store = ChapterStore(path)
    path.write_text('{"format": "proofdesk.chapter/1", "id": ', encoding="utf-8")
    result = await default_registry().handle_tool_call("get_paragraph_info", {"paragraph_id": "a"}, source=store)
    assert result["error_code"] == "CHAPTER_UNAVAILABLE"
    assert "ch.json" in result["error"]


# -- fuzz: whatever the model sends, the result is a well-formed JSON object --------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=12) | st.sampled_from(["a", "b", "7"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "paragraph_id",
                    "count",
                    "keywords",
                    "paragraphs",
                    "translated_text",
                    "index",
                    "include_next",
                    "next_count",
                    "max_results",
                    "original_text_prefix",
                    "x",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from([*NAMES, "nope"]), args=_json, as_text=st.booleans(), bounded=st.booleans())
def test_any_arguments_give_a_well_formed_result(name: str, args: Any, as_text: bool, bounded: bool) -> None:
    chapter = chapter_of(["A", "", "B", "C"], ids=["a", "e", "b", "7"])
    raw = json.dumps(args) if as_text or not isinstance(args, dict) else args
    result = asyncio.run(call(name, raw, chapter, ["b", "7"] if bounded else None))
    json.dumps(result)  # serialisable
    assert isinstance(result["success"], bool)
    if not result["success"]:
        assert result["error_code"] in set(ErrorCode)
        assert result["error_code"] != "INTERNAL_ERROR"
        assert result["error"] and result["hint"]
