"""Building blocks of the wire transcripts: the expected result, and compact chunk writers.

Each transcript is a byte-exact response body (as a provider sends it) plus what the client must assemble from it.
Chunks are written with compact JSON, as OpenAI does (``{"id":"…","object":…}``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Call:
    """An expected tool call. ``id=None`` means "generated": 9 characters of [A-Za-z0-9]."""

    name: str
    arguments: dict[str, Any] | None
    id: str | None = None
    repaired: bool = False
    error: str | None = None  # a substring of ToolCall.error; None means no error
    extra_content: dict[str, Any] | None = None
    error_code: str | None = None  # ARGUMENTS_TRUNCATED / INVALID_ARGUMENTS when the call cannot run


@dataclass(frozen=True)
class Expect:
    """The assembled response a transcript must give, whatever the network split."""

    content: str = ""
    reasoning: str = ""
    calls: tuple[Call, ...] = ()
    finish: str = "stop"
    finish_raw: str | None = "stop"
    usage: tuple[int, int, int] | None = None
    error: str | None = None  # a substring of AssembledResponse.error
    message_fields: dict[str, Any] = field(default_factory=dict)
    failure: tuple[str, bool] | None = None  # (type, retryable) of the failure, checked when given
    wrappers: tuple[str, ...] = ()  # ids of multi_tool_use.parallel calls that were expanded


@dataclass(frozen=True)
class Transcript:
    """One wire shape: who sends it, the raw body, and the expected result."""

    name: str
    source: str
    body: bytes
    expect: Expect
    content_type: str = "text/event-stream"


def js(value: Any) -> str:
    """Compact JSON, non-ASCII kept raw (what most servers send)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def ev(value: Any, eol: str = "\n") -> str:
    """One SSE event ``data: <json>`` with its blank line."""
    return f"data: {js(value)}{eol}{eol}"


DONE = "data: [DONE]\n\n"

BASE = {
    "id": "chatcmpl-abc",
    "object": "chat.completion.chunk",
    "created": 1720000000,
    "model": "gpt-4o-2024-08-06",
    "system_fingerprint": "fp_test",
}


def oa(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    """An OpenAI chunk: one choice, ``usage: null``, an ``obfuscation`` pad."""
    return {
        **BASE,
        "choices": [
            {"index": 0, "delta": delta if delta is not None else {}, "logprobs": None, "finish_reason": finish}
        ],
        "usage": None,
        "obfuscation": "x7Rk",
        **extra,
    }


def oa_usage(prompt: int, completion: int) -> dict[str, Any]:
    """OpenAI's usage chunk: ``choices: []``."""
    return {
        **BASE,
        "choices": [],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": 0},
        },
    }


def tc(
    index: int | None = None,
    *,
    id: str | None = None,
    name: str | None = None,
    args: Any = None,
    type_: str | None = "function",
    **extra: Any,
) -> dict[str, Any]:
    """One tool-call delta entry; keys left at None are omitted (providers omit them)."""
    entry: dict[str, Any] = {}
    if index is not None:
        entry["index"] = index
    if id is not None:
        entry["id"] = id
    if type_ is not None and (id is not None or name is not None):
        entry["type"] = type_
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if args is not None:
        function["arguments"] = args
    if function:
        entry["function"] = function
    entry.update(extra)
    return entry


def fragments(text: str, size: int) -> list[str]:
    """``text`` cut every ``size`` characters — cuts fall inside keys, values and escape sequences."""
    return [text[i : i + size] for i in range(0, len(text), size)]
