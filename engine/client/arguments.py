"""Turning a tool call's argument text into a JSON object: strict parse, safe repair, or a clear error.

The repair rule: syntax around complete values may be fixed — a code fence, trailing commas, single quotes, a Python
literal (``True``/``None``), text after the object, a missing final ``}`` or ``]`` — but a repair never closes an
unterminated string and never drops or invents a key. Text that stops inside a string, right after a key, a colon or
a comma, or after a number (which may itself be cut) was cut off: it is ``ARGUMENTS_TRUNCATED`` and is never used,
whatever the finish reason said. ``json_repair`` does the fixing; ``_scan`` decides whether a fix is safe.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from engine.json_depth import MAX_JSON_DEPTH, too_deep

_FENCE_OPEN = re.compile(r"^\s*```[A-Za-z0-9_-]*[ \t]*\n?")
_FENCE_CLOSE = re.compile(r"\n?\s*```\s*$")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"-?[0-9][0-9.eE+-]*")
_LITERALS = frozenset({"true", "false", "null", "True", "False", "None"})
_SURROGATE = re.compile("[\ud800-\udfff]")

ArgumentsError = Literal["ARGUMENTS_TRUNCATED", "INVALID_ARGUMENTS"]


@dataclass(frozen=True, slots=True)
class ParsedArguments:
    """Outcome of ``parse_arguments``: an object (maybe repaired) or an error sentence with its code."""

    arguments: dict[str, Any] | None
    error: str | None = None
    repaired: bool = False
    error_code: ArgumentsError | None = None


TRUNCATED_SENTENCE = "the arguments were cut off before they ended"


def parse_arguments(raw: str, *, allow_repair: bool = True) -> ParsedArguments:
    """Parse ``raw`` as the JSON object of a tool call.

    Empty text means ``{}`` (vLLM's hermes parser never sends ``{}``). A JSON string holding an object (double
    encoding) is unwrapped. Otherwise, when ``allow_repair``, the safe repair of the module docstring is tried.
    """
    text = raw.strip()
    if not text:
        return ParsedArguments({})
    if too_deep(text):
        return _invalid(f"the arguments nest more than {MAX_JSON_DEPTH} levels deep")
    parsed = _parse(text, allow_repair)
    if parsed.arguments is not None and (where := lone_surrogate_at(parsed.arguments)) is not None:
        return _invalid(
            f"the arguments hold a broken character (half of a UTF-16 surrogate pair) at {where}; "
            "resend the call with the text intact"
        )
    return parsed


def _parse(text: str, allow_repair: bool) -> ParsedArguments:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = _INVALID
    if isinstance(value, dict):
        return ParsedArguments(value)
    if isinstance(value, str):
        try:
            inner = json.loads(value)
        except (ValueError, RecursionError):
            inner = None
        if isinstance(inner, dict):
            return ParsedArguments(inner, repaired=True)
    if value is not _INVALID:
        return _invalid(f"the arguments must be a JSON object, not {_json_kind(value)}")
    candidate = _strip_fence(text)
    scan = _scan(candidate)
    if scan.truncated:
        return ParsedArguments(None, TRUNCATED_SENTENCE, error_code="ARGUMENTS_TRUNCATED")
    if not allow_repair:
        return _invalid("the arguments are not valid JSON")
    if scan.start is None:
        return _invalid("the arguments are not valid JSON and could not be repaired safely")
    import json_repair  # only needed for broken JSON; importing it costs ~30 ms of start-up

    try:
        repaired = json_repair.repair_json(candidate[scan.start : scan.end], return_objects=True)
    except Exception:  # json_repair is heuristic code; any failure means "not repairable"
        repaired = None
    if isinstance(repaired, dict) and _count_keys(repaired) == scan.keys and _is_json_data(repaired):
        return ParsedArguments(repaired, repaired=True)
    return _invalid("the arguments are not valid JSON and could not be repaired safely")


def _invalid(sentence: str) -> ParsedArguments:
    return ParsedArguments(None, sentence, error_code="INVALID_ARGUMENTS")


def _strip_fence(text: str) -> str:
    opened = _FENCE_OPEN.match(text)
    if opened is None:
        return text
    return _FENCE_CLOSE.sub("", text[opened.end() :])


@dataclass(frozen=True, slots=True)
class _Scan:
    """What a lenient tokeniser saw in the first object of the text."""

    start: int | None  # where the first object starts (None: there is none)
    end: int  # where it ends (the whole text when it never closed)
    keys: int  # how many ``key:`` pairs it holds, at any depth
    truncated: bool  # the text was cut off (see the module docstring)


def _scan(text: str) -> _Scan:
    """Tokenise the first ``{…}`` of ``text`` leniently (both quote styles, bare words) without building it."""
    start = text.find("{")
    if start < 0:
        return _Scan(None, len(text), 0, False)
    if text[:start].strip():
        return _Scan(None, len(text), 0, False)  # prose before the object is not syntax around values
    stack: list[str] = []
    keys = 0
    last = ""  # the last significant token: { [ } ] : , key string word number
    expecting_key = False
    at = start
    size = len(text)
    while at < size:
        char = text[at]
        if char in " \t\r\n":
            at += 1
            continue
        if char in "{[":
            stack.append(char)
            expecting_key = char == "{"
            last = char
            at += 1
        elif char in "}]":
            if stack:
                stack.pop()
            last = char
            at += 1
            if not stack:
                return _Scan(start, at, keys, False)
            expecting_key = False
        elif char == ":":
            keys += 1
            expecting_key = False
            last = ":"
            at += 1
        elif char == ",":
            expecting_key = bool(stack) and stack[-1] == "{"
            last = ","
            at += 1
        elif char in "\"'":
            end = _string_end(text, at)
            if end is None:
                return _Scan(start, size, keys, True)
            last = "key" if expecting_key else "string"
            at = end
        else:
            word = _WORD.match(text, at) or _NUMBER.match(text, at)
            if word is None:
                at += 1
                last = "other"
                continue
            token = word.group()
            last = (
                "key"
                if expecting_key
                else ("word" if token in _LITERALS else "number" if token[0] in "-0123456789" else "word")
            )
            at = word.end()
    # The object never closed: closing it is safe only right after a complete value.
    return _Scan(start, size, keys, last not in ("string", "word", "}", "]"))


def _string_end(text: str, at: int) -> int | None:
    """The index after the string starting at ``at`` (its quote char), or None when it never closes."""
    quote = text[at]
    at += 1
    size = len(text)
    while at < size:
        char = text[at]
        if char == "\\":
            at += 2
            continue
        if char == quote:
            return at + 1
        at += 1
    return None


def _count_keys(value: Any) -> int:
    if isinstance(value, dict):
        return len(value) + sum(_count_keys(v) for v in value.values())
    if isinstance(value, list):
        return sum(_count_keys(v) for v in value)
    return 0


def _is_json_data(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json_data(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_is_json_data(v) for v in value)
    return value is None or isinstance(value, str | int | float | bool)


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
        except (ValueError, RecursionError):
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


def lone_surrogate_at(value: Any, path: str = "") -> str | None:
    """The place (``paragraphs.0.translated_text``) of the first string holding a lone UTF-16 surrogate, or None.

    ``json.loads`` turns the escape ``\\ud800`` into a character no file can hold in UTF-8: such a text must never
    reach the chapter or the trace.
    """
    if isinstance(value, str):
        return (path or "(the value)") if _SURROGATE.search(value) else None
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        here = f"{path}.{key}" if path else str(key)
        if isinstance(key, str) and _SURROGATE.search(key):
            return here
        found = lone_surrogate_at(item, here)
        if found is not None:
            return found
    return None
