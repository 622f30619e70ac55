"""A tool call's raw arguments as one JSON object: bounded in length and depth, or an ``INVALID_ARGUMENTS`` result.

Some providers send the arguments as a JSON string, some as an object, some as nothing at all (a call without
arguments); whatever cannot be one JSON object is refused here, before any field is looked at
(:mod:`engine.tools.args`).
"""

from __future__ import annotations

import json
from typing import Any

from engine.json_depth import MAX_JSON_DEPTH, too_deep
from engine.tools.results import ErrorCode, failure

MAX_ARGUMENT_CHARS = 2_000_000  # raw JSON; a 20-item batch of long paragraphs stays far below


def invalid_arguments(tool: str, error: str, hint: str, **extra: Any) -> dict[str, Any]:
    """An ``INVALID_ARGUMENTS`` result for ``tool``."""
    return failure(ErrorCode.INVALID_ARGUMENTS, error, hint, tool=tool, **extra)


class BadArguments(Exception):
    """Raw arguments that cannot be used; ``result`` is the ``INVALID_ARGUMENTS`` result to return."""

    def __init__(self, result: dict[str, Any]) -> None:
        super().__init__(result["error"])
        self.result = result


def decode_arguments(tool: str, raw: object) -> dict[str, Any]:
    """The arguments as a dict; raises :class:`BadArguments` for anything but one JSON object.

    ``None`` and an empty string mean no arguments (some providers send ``""`` for a call without any).
    """
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    if not isinstance(raw, str):
        raise BadArguments(
            invalid_arguments(
                tool,
                f"The arguments of {tool} must be a JSON object.",
                "Send the arguments as one JSON object matching the tool's schema.",
                field="arguments",
            )
        )
    return _json_object(tool, raw) if raw.strip() else {}


def _json_object(tool: str, raw: str) -> dict[str, Any]:
    """Non-blank argument text parsed: bounded in length and depth, and one JSON object."""
    if len(raw) > MAX_ARGUMENT_CHARS:
        raise BadArguments(
            invalid_arguments(
                tool,
                f"The arguments of {tool} are {len(raw):,} characters long, more than the limit of "
                f"{MAX_ARGUMENT_CHARS:,}.",
                "Send fewer or shorter items per call.",
                field="arguments",
            )
        )
    if too_deep(raw):
        raise BadArguments(
            invalid_arguments(
                tool,
                f"The arguments of {tool} nest more than {MAX_JSON_DEPTH} levels deep.",
                "Send the arguments again as one flat JSON object.",
                field="arguments",
            )
        )
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise BadArguments(
            invalid_arguments(
                tool,
                f"The arguments of {tool} are not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}).",
                "Send the arguments again as one complete, valid JSON object (check quotes and escapes).",
                field="arguments",
            )
        ) from None
    except RecursionError:
        raise BadArguments(
            invalid_arguments(
                tool,
                f"The arguments of {tool} are nested too deeply.",
                "Send a flat JSON object matching the tool's schema.",
                field="arguments",
            )
        ) from None
    if not isinstance(value, dict):
        raise BadArguments(
            invalid_arguments(
                tool,
                f"The arguments of {tool} must be a JSON object, not {type(value).__name__}.",
                "Send the arguments as one JSON object matching the tool's schema.",
                field="arguments",
            )
        )
    return value
