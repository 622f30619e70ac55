"""Reading whole (non-SSE) response bodies: error pages in JSON, HTML or text, and non-streamed completions."""

from __future__ import annotations

import json
import re
from typing import Any

from engine.client.wire import ProviderError, parse_error_payload

_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_H1 = re.compile(r"<h1[^>]*>(.*?)</h1>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")
_SCRIPT = re.compile(r"<(script|style)[^>]*>.*?</\1>", re.IGNORECASE | re.DOTALL)


def error_text(body: bytes, content_type: str) -> ProviderError | None:
    """The provider's message from an error body: a JSON error object, the title of an HTML page, or the text."""
    text = _body_text(body)
    if not text:
        return None
    payload = _json_or_none(text)
    if payload is not None:
        return _json_error(payload, text)
    if "html" in content_type.lower() or text[:1] == "<":
        return ProviderError(message=html_title(text))
    return ProviderError(message=text[:300])


def _body_text(body: bytes) -> str:
    """The body as text; of an SSE body (an error status can carry one), its first event."""
    text = body.decode("utf-8", errors="replace").strip().lstrip("\ufeff")
    if text.startswith("data:"):
        text = text.splitlines()[0][5:].strip() or text
    return text


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _json_error(payload: Any, text: str) -> ProviderError:
    """An error body in JSON: one of the error shapes, a bare ``message``, or the text itself."""
    found = parse_error_payload(payload)
    if found is not None:
        return found
    if isinstance(payload, dict) and isinstance(payload.get("message"), str):
        return ProviderError(message=payload["message"])
    return ProviderError(message=text[:300])


def html_title(page: str) -> str:
    """The title (or first heading, or first words) of an HTML page, as one line."""
    import html  # its table of entities (~0.25 MB) only for a server that answered with a web page

    for pattern in (_TITLE, _H1):
        found = pattern.search(page)
        words = " ".join(html.unescape(_TAG.sub(" ", found.group(1))).split()) if found else ""
        if words:
            return words
    body = html.unescape(_TAG.sub(" ", _SCRIPT.sub(" ", page)))
    return " ".join(body.split())[:200] or "an HTML page without text"


def json_completion_as_chunk(payload: Any) -> Any:
    """A non-streamed ``chat.completion`` rewritten as one chunk (message → delta, tool calls indexed).

    Anything else (an error object, an unexpected shape) is returned unchanged for the assembler to judge.
    """
    if not isinstance(payload, dict) or not isinstance(payload.get("choices"), list):
        return payload
    return {**payload, "choices": [_choice_as_chunk(choice) for choice in payload["choices"]]}


def _choice_as_chunk(choice: Any) -> Any:
    """A choice with a ``message`` as a choice with a ``delta``; any other shape unchanged."""
    if not isinstance(choice, dict) or not isinstance(choice.get("message"), dict):
        return choice
    delta = dict(choice["message"])
    calls = delta.get("tool_calls")
    if isinstance(calls, list):
        delta["tool_calls"] = [_indexed(i, call) for i, call in enumerate(calls)]
    return {"index": choice.get("index", 0), "delta": delta, "finish_reason": choice.get("finish_reason")}


def _indexed(index: int, call: Any) -> Any:
    return {"index": index, **call} if isinstance(call, dict) else call
