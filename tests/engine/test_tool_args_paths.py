"""Tool arguments on their two paths (engine/field_steps.py, engine/tools/args_careful.py) and their schemas.

The fast path (msgspec) must accept only what the careful path (the struct's pydantic twin, the behaviour before
msgspec) accepts, as the same value; everything else reaches the careful path, which accepts or explains. The
schemas the model sees are pinned to the bytes every request has carried.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import StringConstraints, TypeAdapter

from engine.field_steps import fast_convert
from engine.glossary.tools import ProposeGlossaryArgs, SearchGlossaryArgs, glossary_tools, strip_white_space
from engine.mcp import tool_list
from engine.mcp.args import ChapterArgs, GetChunkArgs, NoArgs
from engine.struct_twin import twin
from engine.tasks import TASKS
from engine.tools import default_registry
from engine.tools.args import InfoArgs, NeighbourArgs, PositionArgs, SearchArgs
from tests.support.fast_paths import assert_same_on_both_paths

ROOT = Path(__file__).resolve().parents[2]
PINNED = ROOT / "tests" / "data" / "tool_definitions.json"

VALIDATED = [
    NeighbourArgs,
    PositionArgs,
    InfoArgs,
    SearchArgs,
    SearchGlossaryArgs,
    ProposeGlossaryArgs,
    NoArgs,
    ChapterArgs,
    GetChunkArgs,
]


def _definitions() -> dict[str, Any]:
    registry = default_registry()
    for tool in glossary_tools(None):  # type: ignore[arg-type]  # only the definitions are read
        registry.register(tool)
    found: dict[str, Any] = {f"all/{limit}": registry.definitions(max_batch=limit) for limit in (1, 20, 200)}
    found |= {f"{task}/20": registry.definitions(task=task) for task in TASKS}
    found["mcp"] = [[t.name, t.description, t.input_schema] for t in tool_list.session_tools()]
    found["mcp_all"] = [[t.name, t.description, t.input_schema] for t in tool_list.listed_tools(registry, 20)]
    return found


def test_every_tool_schema_is_byte_identical_to_the_pinned_one() -> None:
    pinned = json.loads(PINNED.read_text(encoding="utf-8"))
    assert json.dumps(_definitions(), ensure_ascii=False) == json.dumps(pinned, ensure_ascii=False)


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 60),
    st.sampled_from([200, 201, 50_000, 50_001, 2**70, 3.0, 3.5, float("nan")]),
    st.sampled_from(["", " ", "3", "true", "term", "female", "translate", "a b", "[ID: p1]", " p\x1c", "a\n"]),
    st.sampled_from(["x" * 200, "x" * 201, "y" * 255, "y" * 256, "z" * 501, "\u3000a\u3000", "\x1c", "a\x1cb"]),
    st.text(max_size=5),
)
_WORDS = st.lists(st.sampled_from(["a", " ", " b ", "\x1c", "x" * 201]), min_size=1, max_size=3)
_VALUES = st.one_of(_SCALARS, _WORDS, st.lists(_SCALARS, max_size=22), st.dictionaries(st.text(max_size=2), _SCALARS))


def _raw(struct: type[msgspec.Struct]) -> st.SearchStrategy[dict[str, Any]]:
    names = [f.encode_name for f in msgspec.structs.fields(struct)]
    names += [f.name for f in msgspec.structs.fields(struct)] + ["extra"]
    return st.fixed_dictionaries({}, optional={name: _VALUES for name in names})


@pytest.mark.parametrize("struct", VALIDATED, ids=lambda s: s.__name__)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_whatever_the_fast_path_accepts_the_careful_path_accepts_as_the_same(
    struct: type[msgspec.Struct], data: st.DataObject
) -> None:
    assert_same_on_both_paths(struct, data.draw(_raw(struct)))


@pytest.mark.parametrize(
    ("struct", "raw"),
    [
        (NeighbourArgs, {"paragraph_id": " [ID: p1] ", "count": 50}),
        (PositionArgs, {"paragraph_id": "p1", "include_next": True, "next_count": 1, "other": 1}),
        (SearchArgs, {"keywords": "one", "in_translation": True}),
        (ProposeGlossaryArgs, {"source": " A ", "target": "B", "aliases": [" a "], "gender": "other"}),
        (GetChunkArgs, {"chapter": "c", "task": "polish", "index": 2, "all": True}),
    ],
)
def test_usual_calls_take_the_fast_path(struct: type[msgspec.Struct], raw: dict[str, Any]) -> None:
    assert fast_convert(struct, raw) is not None


def test_a_field_under_its_own_name_is_left_to_the_careful_path() -> None:
    raw = {"chapter": "c", "task": "polish", "index": 2, "include_all": True}
    assert fast_convert(GetChunkArgs, raw) is None
    assert twin(GetChunkArgs).model_validate(raw).include_all is True


def test_terms_are_stripped_of_exactly_what_pydantic_strips() -> None:
    pydantic_strip = TypeAdapter(Annotated[str, StringConstraints(strip_whitespace=True)]).validate_python
    for code in [*range(0x3001), 0xFEFF, 0x180E, 0x200B]:
        text = f"{chr(code)}a{chr(code)}"
        assert strip_white_space(text) == pydantic_strip(text), hex(code)


@pytest.mark.slow  # a fresh interpreter
def test_valid_calls_never_load_the_careful_path() -> None:
    code = """
import asyncio, sys
from engine.tools import default_registry
from tests.engine.tool_chapters import seed_chapter
registry = default_registry()
registry.definitions(task="polish")
chapter = seed_chapter(translated=True)
pid = "P2"
calls = [
    ("get_paragraph_info", {"paragraph_id": f"[ID: {pid}]"}),
    ("get_next_paragraphs", '{"paragraph_id": "%s", "count": 2}' % pid),
    ("get_paragraph_position", {"paragraph_id": pid, "include_previous": True}),
    ("find_paragraph_by_keywords", {"keywords": "the", "max_results": 3}),
]
for name, args in calls:
    result = asyncio.run(registry.handle_tool_call(name, args, source=chapter))
    assert result["success"], result
print("engine.tools.args_careful" in sys.modules, "engine.struct_twin" in sys.modules)
asyncio.run(registry.handle_tool_call("get_paragraph_info", {"paragraph_id": 5}, source=chapter))
print("engine.tools.args_careful" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False", "True"]
