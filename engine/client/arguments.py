"""Turning a tool call's argument text into a JSON object: strict parse, safe repair, or a clear error."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class ParsedArguments:
    """Outcome of ``parse_arguments``: an object (maybe repaired) or an error sentence."""

    arguments: dict[str, Any] | None
    error: str | None = None
    repaired: bool = False


def parse_arguments(raw: str, *, allow_repair: bool = True) -> ParsedArguments:
    """Parse ``raw`` as the JSON object of a tool call.

    Empty text means ``{}`` (vLLM's hermes parser never sends ``{}``). A JSON string holding an object (double
    encoding) is unwrapped. Otherwise, when ``allow_repair``, ``json_repair`` may fix code fences, trailing text,
    single quotes, unquoted keys or a missing closing brace — accepted only if the result is an object and is not
    empty while the text had content (json_repair turns prose into ``""``/``{}``).
    """
    text = raw.strip()
    if not text:
        return ParsedArguments({})
    try:
        value = json.loads(text)
    except ValueError:
        value = _INVALID
    if isinstance(value, dict):
        return ParsedArguments(value)
    if isinstance(value, str):
        try:
            inner = json.loads(value)
        except ValueError:
            inner = None
        if isinstance(inner, dict):
            return ParsedArguments(inner, repaired=True)
    if value is not _INVALID:
        return ParsedArguments(None, f"the arguments must be a JSON object, not {_json_kind(value)}")
    if not allow_repair:
        return ParsedArguments(None, "the arguments are not valid JSON")
    candidate = text
    fenced = _FENCE.match(candidate)
    if fenced:
        candidate = fenced.group(1)
    import json_repair  # only needed for broken JSON; importing it costs ~30 ms of start-up

    try:
        repaired = json_repair.repair_json(candidate, return_objects=True)
    except Exception:  # json_repair is heuristic code; any failure means "not repairable"
        repaired = None
    if isinstance(repaired, dict) and (repaired or _only_braces(candidate)):
        return ParsedArguments(repaired, repaired=True)
    return ParsedArguments(None, "the arguments are not valid JSON and could not be repaired safely")


def split_concatenated(raw: str) -> list[str] | None:
    """The objects of ``{…}{…}`` (two calls glued under one index, seen from Gemini relays and GPT-5.x), or None.

    Only when the whole text is two or more JSON objects one after another, separated by whitespace at most.
    """
    text = raw.strip()
    if not text.startswith("{"):
        return None
    decoder = json.JSONDecoder()
    parts: list[str] = []
    at = 0
    while at < len(text):
        try:
            value, end = decoder.raw_decode(text, at)
        except ValueError:
            return None
        if not isinstance(value, dict):
            return None
        parts.append(text[at:end])
        at = end
        while at < len(text) and text[at].isspace():
            at += 1
    return parts if len(parts) > 1 else None


def unwrap_parallel(name: str, arguments: dict[str, Any] | None) -> list[tuple[str, dict[str, Any]]] | None:
    """The inner calls of OpenAI's hallucinated ``multi_tool_use.parallel`` wrapper, or None if it is not one."""
    if name != "multi_tool_use.parallel" or not arguments:
        return None
    uses = arguments.get("tool_uses")
    if not isinstance(uses, list) or not uses:
        return None
    calls: list[tuple[str, dict[str, Any]]] = []
    for use in uses:
        if not isinstance(use, dict):
            return None
        recipient = use.get("recipient_name")
        params = use.get("parameters", {})
        if not isinstance(recipient, str) or not isinstance(params, dict):
            return None
        calls.append((recipient.removeprefix("functions."), params))
    return calls


_INVALID = object()


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"


def _only_braces(text: str) -> bool:
    return text.replace("{", "").replace("}", "").strip() == ""
