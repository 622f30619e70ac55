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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypeGuard

from engine.json_depth import MAX_JSON_DEPTH, too_deep

_FENCE_OPEN = re.compile(r"^\s*```[A-Za-z0-9_-]*[ \t]*\n?")
_FENCE_CLOSE = re.compile(r"\n?\s*```\s*$")
_BARE = re.compile(r"(?P<word>[A-Za-z_][A-Za-z0-9_]*)|(?P<number>-?[0-9][0-9.eE+-]*)")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SPACE = re.compile(r"\s*")

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
    value = _json_or(text, _INVALID)
    if value is _INVALID:
        return _repair(text, allow_repair)
    if isinstance(value, dict):
        return ParsedArguments(value)
    inner = _json_or(value, None) if isinstance(value, str) else None
    if isinstance(inner, dict):  # a JSON string holding the object (double encoding)
        return ParsedArguments(inner, repaired=True)
    return _invalid(f"the arguments must be a JSON object, not {_json_kind(value)}")


def _json_or(text: str, default: Any) -> Any:
    """``text`` parsed as JSON, or ``default`` when it is not JSON."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return default


def _repair(text: str, allow_repair: bool) -> ParsedArguments:
    """Text that is not JSON: cut off, or (when allowed) safely repaired, or refused."""
    candidate = _strip_fence(text)
    scan = _scan(candidate)
    if scan.truncated:
        return ParsedArguments(None, TRUNCATED_SENTENCE, error_code="ARGUMENTS_TRUNCATED")
    if not allow_repair:
        return _invalid("the arguments are not valid JSON")
    repaired = _safely_repaired(candidate, scan)
    if repaired is None:
        return _invalid("the arguments are not valid JSON and could not be repaired safely")
    return ParsedArguments(repaired, repaired=True)


def _safely_repaired(candidate: str, scan: _Scan) -> dict[str, Any] | None:
    """json_repair's object for the scanned object, when the repair was safe: every key kept, only JSON data."""
    if scan.start is None:
        return None
    import json_repair  # only needed for broken JSON; importing it costs ~30 ms of start-up

    try:
        repaired = json_repair.repair_json(candidate[scan.start : scan.end], return_objects=True)
    except Exception:  # json_repair is heuristic code; any failure means "not repairable"
        return None
    return repaired if _is_safe_repair(repaired, scan) else None


def _is_safe_repair(repaired: Any, scan: _Scan) -> TypeGuard[dict[str, Any]]:
    """The repair gave an object of plain JSON data that kept every key the scan saw (it dropped none)."""
    return isinstance(repaired, dict) and _count_keys(repaired) == scan.keys and _is_json_data(repaired)


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


# The tokens after which an object that never closed may be closed safely: a complete value, or a closed one.
_COMPLETE = frozenset({"string", "word", "}", "]"})


def _scan(text: str) -> _Scan:
    """Tokenise the first ``{…}`` of ``text`` leniently (both quote styles, bare words) without building it."""
    start = text.find("{")
    if start < 0 or text[:start].strip():
        return _Scan(None, len(text), 0, False)  # no object, or prose before it (not syntax around values)
    return _Scanner(text, start).run()


class _Scanner:
    """The tokeniser's state; each step reads one token and says the outcome when the scan is over."""

    def __init__(self, text: str, start: int) -> None:
        self.text = text
        self.start = start
        self.at = start
        self.stack: list[str] = []
        self.keys = 0
        self.last = ""  # the last significant token: { [ } ] : , key string word number other
        self.expecting_key = False

    def run(self) -> _Scan:
        """The outcome: where the first object ends, how many keys it holds, whether it was cut off."""
        size = len(self.text)
        while self.at < size:
            char = self.text[self.at]
            over = _STEPS.get(char, _Scanner._value)(self, char)
            if over is not None:
                return over
        # The object never closed: closing it is safe only right after a complete value.
        return _Scan(self.start, size, self.keys, self.last not in _COMPLETE)

    def _blank(self, _: str) -> _Scan | None:
        self.at += 1
        return None

    def _open(self, char: str) -> _Scan | None:
        self.stack.append(char)
        self.expecting_key = char == "{"
        self.last = char
        self.at += 1
        return None

    def _close(self, char: str) -> _Scan | None:
        if self.stack:
            self.stack.pop()
        self.last = char
        self.at += 1
        if not self.stack:
            return _Scan(self.start, self.at, self.keys, False)
        self.expecting_key = False
        return None

    def _colon(self, _: str) -> _Scan | None:
        self.keys += 1
        self.expecting_key = False
        self.last = ":"
        self.at += 1
        return None

    def _comma(self, _: str) -> _Scan | None:
        self.expecting_key = bool(self.stack) and self.stack[-1] == "{"
        self.last = ","
        self.at += 1
        return None

    def _quoted(self, _: str) -> _Scan | None:
        end = _string_end(self.text, self.at)
        if end is None:
            return _Scan(self.start, len(self.text), self.keys, True)
        self.last = "key" if self.expecting_key else "string"
        self.at = end
        return None

    def _value(self, _: str) -> _Scan | None:
        """A bare word (``true``, ``None``, an unquoted key) or a number; anything else is skipped."""
        token = _BARE.match(self.text, self.at)
        if token is None:
            self.at += 1
            self.last = "other"
            return None
        self.last = "key" if self.expecting_key else token.lastgroup or "other"
        self.at = token.end()
        return None


_STEPS: dict[str, Callable[[_Scanner, str], _Scan | None]] = {
    **dict.fromkeys(" \t\r\n", _Scanner._blank),
    **dict.fromkeys("{[", _Scanner._open),
    **dict.fromkeys("}]", _Scanner._close),
    ":": _Scanner._colon,
    ",": _Scanner._comma,
    **dict.fromkeys("\"'", _Scanner._quoted),
}


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
        return len(value) + sum(map(_count_keys, value.values()))
    if isinstance(value, list):
        return sum(map(_count_keys, value))
    return 0


_JSON_SCALARS = (str, int, float, bool, type(None))


def _is_json_data(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(key, str) for key in value) and all(map(_is_json_data, value.values()))
    if isinstance(value, list):
        return all(map(_is_json_data, value))
    return isinstance(value, _JSON_SCALARS)


def split_concatenated(raw: str) -> list[str] | None:
    """The objects of ``{…}{…}`` (two calls glued under one index, seen from Gemini relays and GPT-5.x), or None.

    Only when the whole text is two or more JSON objects one after another, separated by whitespace at most.
    """
    text = raw.strip()
    parts = _object_texts(text) if text.startswith("{") else None
    return parts if parts is not None and len(parts) > 1 else None


def _object_texts(text: str) -> list[str] | None:
    """The texts of the JSON objects ``text`` holds one after another, or None when it holds anything else."""
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
        space = _SPACE.match(text, end)  # \s* (str.isspace()'s characters) always matches
        at = end if space is None else space.end()
    return parts


def unwrap_parallel(name: str, arguments: dict[str, Any] | None) -> list[tuple[str, dict[str, Any]]] | None:
    """The inner calls of OpenAI's hallucinated ``multi_tool_use.parallel`` wrapper, or None if it is not one."""
    uses = _tool_uses(arguments) if name == "multi_tool_use.parallel" else None
    if not uses:
        return None
    calls = [call for call in map(_inner_use, uses) if call is not None]
    return calls if len(calls) == len(uses) else None


def _tool_uses(arguments: dict[str, Any] | None) -> list[Any] | None:
    """The wrapper's ``tool_uses`` list, or None when it has none."""
    uses = arguments.get("tool_uses") if arguments else None
    return uses if isinstance(uses, list) else None


def _inner_use(use: Any) -> tuple[str, dict[str, Any]] | None:
    """One ``{"recipient_name": "functions.x", "parameters": {...}}`` of the wrapper, or None when malformed."""
    if not isinstance(use, dict):
        return None
    recipient = use.get("recipient_name")
    params = use.get("parameters", {})
    if not isinstance(recipient, str) or not isinstance(params, dict):
        return None
    return recipient.removeprefix("functions."), params


_INVALID = object()
_KINDS = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}


def _json_kind(value: Any) -> str:
    return _KINDS.get(type(value), "a number")


def lone_surrogate_at(value: Any, path: str = "") -> str | None:
    """The place (``paragraphs.0.translated_text``) of the first string holding a lone UTF-16 surrogate, or None.

    ``json.loads`` turns the escape ``\\ud800`` into a character no file can hold in UTF-8: such a text must never
    reach the chapter or the trace.
    """
    if isinstance(value, str):
        return _lone_in_text(value, path)
    for key, item in _children(value):
        found = _lone_in_entry(key, item, f"{path}.{key}" if path else str(key))
        if found is not None:
            return found
    return None


def _lone_in_entry(key: Any, item: Any, here: str) -> str | None:
    """``here`` when the key itself holds a lone surrogate, else the place inside ``item``."""
    if isinstance(key, str) and _SURROGATE.search(key):
        return here
    return lone_surrogate_at(item, here)


def _lone_in_text(text: str, path: str) -> str | None:
    return (path or "(the value)") if _SURROGATE.search(text) else None


def _children(value: Any) -> Iterable[tuple[Any, Any]]:
    """The keys (or indexes) and items of a JSON object or array; none for a scalar."""
    if isinstance(value, dict):
        return value.items()
    if isinstance(value, list):
        return enumerate(value)
    return ()
