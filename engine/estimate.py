"""``run --estimate``: what a run would cost, worked out from its requests without sending any.

Every chunk's first request is built exactly as the run builds it (system prompt, chunk message with its glossary
lines, tool definitions)
and its tokens are estimated by character class (``engine.token_estimate``). The rest is a range, stated as such:

- requests: one per chunk when the model submits the whole chunk in its first answer; at most ``max_turns``.
- output tokens: the text the model writes back plus each item's JSON. For a translation, the source's letters times
  the language pair's length ratio (``engine.checks.length_ratio``), in the target script's tokens, from 0.75 to 1.5
  times that; for polish and proofread, from a fifth (most paragraphs ``unchanged``) to 1.2 times the current
  translations. A reasoning model thinks on top of this, unbounded by the estimate.
- input tokens: the first request for one request. The high end is ``max_turns`` requests of a model that never
  gets it right: each resends the first request, the latest turn in full (a whole chunk's output and, as tool
  results, up to the chunk message's size again) and every turn before it as ``engine.history`` shrinks it (the
  batch's paragraph IDs and ``EARLIER_TURN_TOKENS`` for its text, a few small calls and a line per result).
- cost: the low end counts the system prompt and tools (byte-identical in every chunk) as a provider's cached prefix
  from the second chunk on, when the profile prices cached input; the high end counts no cache hit at all.
"""

from __future__ import annotations

import json
import math
from typing import Any

from engine.checks.languages import languages
from engine.checks.length_ratio import expected_ratio, letters
from engine.cost import cost_of
from engine.glossary.run_glossary import RunGlossary
from engine.loop_config import ToolCallLoopConfig
from engine.memory.run_memory import RunMemory
from engine.memory.source import MemorySource
from engine.run_request import RunRequest
from engine.services import TaskService
from engine.token_estimate import CJK_PER_CHAR, LATIN_CHARS_PER_TOKEN, estimate_tokens
from store.glossary_commit import GlossaryStore
from store.loader import load_chapter
from store.workspace import Workspace

MESSAGE_OVERHEAD = 4  # role and separators a chat template adds around each message
METHOD = (
    "tokens estimated from character classes (CJK characters, Latin words, other symbols), within about 10% "
    "of a real tokenizer on Japanese fiction; tokenizers differ, so treat it as an estimate"
)
EARLIER_TURN_TOKENS = 400  # an answered turn besides its batch's IDs, as engine.history shrinks it
_TRANSLATE_RANGE = (0.75, 1.5)
_REVISE_RANGE = (0.2, 1.2)


def _ids_tokens(paragraph_ids: tuple[str, ...]) -> int:
    """A submission of the chunk as an answered turn keeps it: the items' IDs."""
    return estimate_tokens(json.dumps({"paragraphs": [{"paragraph_id": pid} for pid in paragraph_ids]}))


def _high_input(config: ToolCallLoopConfig, first: int, out_high: int, max_turns: int) -> int:
    """The most ``max_turns`` requests of one chunk send (see the module docstring)."""
    latest = out_high + estimate_tokens(config.user_message)
    earlier = _ids_tokens(config.paragraph_ids) + EARLIER_TURN_TOKENS
    return max_turns * first + (max_turns - 1) * latest + earlier * max_turns * (max_turns - 1) // 2


def _item_tokens(paragraph_ids: tuple[str, ...]) -> int:
    """The JSON each submitted item adds around its text."""
    return sum(estimate_tokens(json.dumps({"paragraph_id": pid, "translated_text": ""})) for pid in paragraph_ids)


def _translation_tokens(text: str, source_language: str | None, target_language: str | None) -> float:
    """The tokens of ``text`` translated: its letters times the pair's length ratio, in the target script."""
    pair = languages(source_language, target_language)
    ratio = expected_ratio(pair)
    if ratio is None:
        return estimate_tokens(text)
    target_letters = letters(text) * ratio
    latin_target = pair.target is not None and pair.target.latin
    return target_letters / LATIN_CHARS_PER_TOKEN if latin_target else target_letters * CJK_PER_CHAR


def _output_tokens(service: TaskService, config: ToolCallLoopConfig) -> float:
    chapter = config.chunk.chapter
    paras = [p for pid in config.paragraph_ids if (p := chapter.paragraph(pid)) is not None]
    item = _item_tokens(config.paragraph_ids)
    if service.rules.revises:
        return item + sum(estimate_tokens(p.selected_text or "") for p in paras)
    text = "".join(p.text for p in paras)
    return item + _translation_tokens(text, service.source_language, service.target_language)


def _chunk_row(request: RunRequest, service: TaskService, config: ToolCallLoopConfig, later: bool) -> dict[str, Any]:
    """One chunk's estimate; ``later``: not the run's first chunk (its prefix may be a cached one)."""
    prices = request.settings.prices
    low_range, high_range = _REVISE_RANGE if service.rules.revises else _TRANSLATE_RANGE
    prefix = estimate_tokens(config.system_prompt) + estimate_tokens(json.dumps(list(config.tools), ensure_ascii=False))
    first = prefix + estimate_tokens(config.user_message) + 2 * MESSAGE_OVERHEAD
    output = _output_tokens(service, config)
    out_low, out_high = math.floor(output * low_range), math.ceil(output * high_range)
    most = request.max_turns
    in_high = _high_input(config, first, out_high, most)
    cached = prefix if later and prices is not None and prices.cached_input is not None else 0
    cost_low = cost_of({"prompt_tokens": first, "cached_tokens": cached, "completion_tokens": out_low}, prices)
    cost_high = cost_of({"prompt_tokens": in_high, "completion_tokens": out_high}, prices)
    return {
        "chunk": config.chunk.label,
        "paragraphs": len(config.paragraph_ids),
        "first_request_tokens": first,
        "requests": [1, most],
        "input_tokens": [first, in_high],
        "output_tokens": [out_low, out_high],
        "cost": None if cost_low is None or cost_high is None else [cost_low["total"], cost_high["total"]],
    }


def _summed(rows: list[dict[str, Any]], key: str) -> list[int]:
    """The chunks' ``[low, high]`` ranges of ``key`` added up."""
    return [sum(r[key][0] for r in rows), sum(r[key][1] for r in rows)]


def _summed_cost(rows: list[dict[str, Any]]) -> list[float]:
    total = [0.0, 0.0]
    for low, high in (r["cost"] for r in rows if r["cost"] is not None):
        total = [round(total[0] + low, 6), round(total[1] + high, 6)]
    return total


def _totals(rows: list[dict[str, Any]], priced: bool) -> dict[str, Any]:
    """The chunks' ranges added up (the cost only when the profile has prices)."""
    return {
        "chunks": len(rows),
        "paragraphs": sum(r["paragraphs"] for r in rows),
        **{key: _summed(rows, key) for key in ("requests", "input_tokens", "output_tokens")},
        "cost": _summed_cost(rows) if priced else None,
    }


def estimate_run(request: RunRequest) -> dict[str, Any]:
    """The estimate of ``request`` as JSON-ready data (per chunk and in total); sends nothing, writes nothing.

    Raises what a run refuses with (``ChapterLoadError``, ``TaskSetupError``, ``ValueError``).
    """
    chapter = load_chapter(request.chapter_path)
    workspace = Workspace.for_chapter(request.chapter_path)
    glossary = RunGlossary(GlossaryStore(workspace))  # read, never written
    memory = RunMemory(
        MemorySource(workspace, source_language=request.source_language, target_language=request.target_language),
        threshold=request.memory_threshold,
        limit=request.memory_max,
    )
    memory.reload()  # the memory lines a run's messages would carry are counted too
    service = TaskService(
        chapter,
        request.task,
        source_language=request.source_language,
        target_language=request.target_language,
        chunk_chars=request.chunk_chars,
        include_all=request.include_all,
        max_batch=request.max_batch,
        max_turns=request.max_turns,
        model=request.settings.model,
        only_paragraph=request.only_paragraph,
        instruction=request.instruction,
        glossary=glossary,
        context=request.context,
        stale=request.stale,
        memory=memory,
    )
    prices = request.settings.prices
    rows = [_chunk_row(request, service, config, number > 0) for number, config in enumerate(service.loop_configs())]
    return {
        "chapter": str(request.chapter_path),
        "task": request.task,
        "model": request.settings.model,
        "source_language": service.source_language,
        "target_language": service.target_language,
        "method": METHOD,
        "currency": None if prices is None else prices.currency,
        "prices": None if prices is None else prices.to_json(),
        "chunks": rows,
        "total": _totals(rows, prices is not None),
    }
