"""What ``proofdesk check-model`` advises after its probe (design section 19): each problem it knows, in a sentence,
and what to set as config lines to paste (the profile's table, and ``[run]``).

The problems: a tool call written as JSON in the content (a run takes it; the server did not parse it), no tool
call at all (a run also takes ``[ID: …]`` text answers: smaller chunks), ``<think>`` blocks in the content (turn
thinking off through the request body), a context too small for a run (the server refused the request, or stopped
the answer before ``max_tokens``), an answer cut by ``max_tokens``, and a first byte slow
against ``read_timeout``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine import settings as limits
from engine.config import ModelSettings
from engine.urls import public_url

SLOW_SHARE = 0.25  # a first byte after this share of read_timeout is slow: a chunk's requests are longer
CHUNK_PROMPT_FACTOR = 4  # a chunk's first request vs the probe: its text and context on top (with a margin)
LOCAL_READ_TIMEOUT = 600  # seconds; what a CPU server usually needs
SMALL_CHUNK_RUN = ("chunk_chars = 1000", "max_batch = 5")  # a small model's chunk and batch
RUN_CONTEXT = 16384  # tokens a local server's context should hold for a run with the shipped defaults


@dataclass(frozen=True)
class Advice:
    """One problem the probe showed, and the config lines that address it."""

    code: str
    problem: str
    profile: tuple[str, ...] = ()  # lines for the profile's table
    run: tuple[str, ...] = ()  # lines for [run]

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "problem": self.problem, "profile": list(self.profile), "run": list(self.run)}


@dataclass(frozen=True)
class Probe:
    """What the check-model request showed, as the advice reads it."""

    report: dict[str, Any]  # the --json report
    settings: ModelSettings
    calls_in_content: int  # calls the content wrote as JSON (a run lifts them)
    think_blocks: bool  # reasoning came in <think> spans of the content, not in a reasoning field

    @property
    def error_type(self) -> str | None:
        error = self.report["error"]
        return None if error is None else str(error["type"])

    def usage(self, key: str) -> int:
        """A usage count, 0 when the server sent none."""
        usage = self.report["usage"] or {}
        return int(usage.get(key) or 0)


# -- the checks -------------------------------------------------------------------------------------------------------


def _calls_in_content(probe: Probe) -> Advice | None:
    if not probe.calls_in_content:
        return None
    return Advice(
        "calls_in_content",
        "The model wrote its tool call as JSON in its text; the server did not parse it into a tool call "
        "(llama.cpp parses calls with --jinja and a chat template that shows them; Ollama only for models made "
        "for tools). A run takes such calls as calls (its log says 'written as text'): nothing needs setting.",
    )


def _no_call(probe: Probe) -> Advice | None:
    report = probe.report
    if probe.calls_in_content or report["tool_calls"] or report["error"] or report["finish_reason"] == "length":
        return None
    return Advice(
        "no_tool_call",
        "The model answered without a tool call. A run also takes a text answer that gives each paragraph as a "
        "line '[ID: xxxxxxxx] translation'; a small model does best with small chunks and batches:",
        run=SMALL_CHUNK_RUN,
    )


def _think_blocks(probe: Probe) -> Advice | None:
    if not probe.think_blocks:
        return None
    body = {**probe.settings.body, "chat_template_kwargs": _without_thinking(probe.settings.body)}
    return Advice(
        "think_blocks",
        "The model thinks in <think> blocks inside its answer: a run sets them apart as reasoning, but every turn "
        "pays for them in time and tokens. Where the model can stop thinking (Qwen3 and the like on llama.cpp, "
        "vLLM, SGLang), the request body says so:",
        profile=(f"body = {toml_inline(body)}",),
    )


def _without_thinking(body: dict[str, Any]) -> dict[str, Any]:
    kwargs = body.get("chat_template_kwargs")
    return {**(kwargs if isinstance(kwargs, dict) else {}), "enable_thinking": False}


def _context(probe: Probe) -> Advice | None:
    reason = _context_problem(probe)
    if reason is None:
        return None
    return Advice(
        "context_too_small",
        f"{reason} A run sends the tools, the instructions, a chunk and its context, and needs room for the answer: "
        f"start the server with a context of at least {RUN_CONTEXT} tokens (llama.cpp: -c {RUN_CONTEXT}; Ollama: "
        "num_ctx or OLLAMA_CONTEXT_LENGTH), or send less per request:",
        profile=(f"max_tokens = {min(2048, probe.settings.max_tokens)}",),
        run=("chunk_chars = 1000",),
    )


def _context_problem(probe: Probe) -> str | None:
    """Why the server's context looks too small, or None."""
    if probe.error_type == "context_overflow":
        return "The server refused the request as too long for its context."
    if _stopped_early(probe):
        return (
            f"The answer stopped at {probe.usage('completion_tokens')} tokens, before max_tokens "
            f"({probe.settings.max_tokens}): the server's context ran out (or the server caps answers itself)."
        )
    return None


def _stopped_early(probe: Probe) -> bool:
    completion = probe.usage("completion_tokens")
    return probe.report["finish_reason"] == "length" and 0 < completion < probe.settings.max_tokens


def _output_limit(probe: Probe) -> Advice | None:
    if probe.report["finish_reason"] != "length" or _stopped_early(probe):
        return None
    more = min(int(limits.MAX_TOKENS.maximum), max(4096, 2 * probe.settings.max_tokens))
    return Advice(
        "output_limit",
        f"The answer was cut off by max_tokens ({probe.settings.max_tokens}); a run's batches are longer than "
        "this probe's call:",
        profile=(f"max_tokens = {more}",),
    )


def _slow_first_byte(probe: Probe) -> Advice | None:
    first_ms, timeout_s = probe.report["first_byte_ms"], probe.settings.read_timeout
    if probe.error_type != "timeout" and (first_ms is None or first_ms < timeout_s * 1000 * SLOW_SHARE):
        return None
    took = "did not come" if first_ms is None else f"came after {first_ms / 1000:.0f} s"
    needed = max(LOCAL_READ_TIMEOUT, 2 * timeout_s, CHUNK_PROMPT_FACTOR * (first_ms or 0) / 1000)
    return Advice(
        "slow_first_byte",
        f"The first byte {took} (read_timeout {timeout_s:g} s). A chunk's first request is several times this "
        "probe's prompt and a CPU server reads it before it writes a word:",
        profile=(f"read_timeout = {min(int(limits.READ_TIMEOUT.maximum), math.ceil(needed / 60) * 60)}",),
    )


CHECKS: tuple[Callable[[Probe], Advice | None], ...] = (
    _context,
    _slow_first_byte,
    _calls_in_content,
    _no_call,
    _think_blocks,
    _output_limit,
)


def advise(probe: Probe) -> list[Advice]:
    """Every problem the probe shows that a setting addresses, most fundamental first."""
    return [found for check in CHECKS if (found := check(probe)) is not None]


# -- lines to paste ---------------------------------------------------------------------------------------------------


def toml_inline(value: Any) -> str:
    """``value`` (JSON types) as a TOML value: tables inline, strings and numbers as JSON writes them."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {toml_inline(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(toml_inline(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _key(key: str) -> str:
    bare = key.replace("_", "").replace("-", "").isalnum() and key.isascii()
    return key if bare else json.dumps(key, ensure_ascii=False)


def config_lines(advice: list[Advice], settings: ModelSettings) -> list[str]:
    """The config lines of all the advice, under their tables: the profile's (a new ``local`` profile naming this
    server and model when none was used), then ``[run]``; empty when there is nothing to set."""
    profile = _unique(line for a in advice for line in a.profile)
    run = _unique(line for a in advice for line in a.run)
    lines = _profile_table(settings, profile) if profile else []
    return lines + (["[run]", *run] if run else [])


def _profile_table(settings: ModelSettings, lines: list[str]) -> list[str]:
    if settings.profile:
        return [f"[profiles.{_key(settings.profile)}]", *lines]
    named = [f"base_url = {json.dumps(public_url(settings.base_url))}", f"model = {json.dumps(settings.model)}"]
    return ["[profiles.local]", *named, *lines]


def _unique(lines: Any) -> list[str]:
    return list(dict.fromkeys(lines))
