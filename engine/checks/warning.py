"""A QA warning about one paragraph's selected translation, and the codes with their severities.

A check finds a :class:`Finding` (code, message, span) from texts alone; :class:`CheckWarning` adds where it
was found (paragraph ID and 1-based index). Spans are ``(start, end)`` character offsets in the translation,
or None when the problem has no place (something is missing).
"""

from __future__ import annotations

from typing import Any, Literal

from msgspec import Struct

Severity = Literal["error", "warning", "info"]

# Every code in the order warnings are listed for a paragraph, with its severity: "error" when the text is
# almost surely broken (untranslated, model talk, a loop), "warning" when it is likely wrong, "info" when a
# person may well have meant it.
SEVERITIES: dict[str, Severity] = {
    "SAME_AS_SOURCE": "error",
    "KANA_LEFT": "error",
    "HANGUL_LEFT": "error",
    "CJK_LEFT": "error",
    "TRADITIONAL_IN_SIMPLIFIED": "warning",
    "SIMPLIFIED_IN_TRADITIONAL": "warning",
    "QUOTES_UNBALANCED": "warning",
    "QUOTES_LOST": "warning",
    "END_PUNCTUATION": "info",
    "NUMBERS_DIFFER": "warning",
    "NEWLINES_DIFFER": "warning",
    "LENGTH_RATIO": "warning",
    "REPETITION": "error",
    "AI_CHATTER": "error",
    "CONTROL_CHARS": "error",
    "CODES_DIFFER": "error",
    "GLOSSARY_NOT_APPLIED": "warning",
    "SOURCE_CHANGED": "warning",
    "INCONSISTENT": "info",
}
CODES: tuple[str, ...] = tuple(SEVERITIES)
CODE_ORDER: dict[str, int] = {code: i for i, code in enumerate(CODES)}

Span = tuple[int, int]


class Finding(Struct, frozen=True):
    """What one check found in a (source, translation) pair."""

    code: str
    message: str
    span: Span | None = None


class CheckWarning(Struct, frozen=True):
    """A finding placed on a paragraph of a chapter."""

    code: str
    paragraph_id: str
    paragraph_index: int  # 1-based position in the chapter, empty paragraphs counted
    message: str
    severity: Severity
    span: Span | None = None

    @classmethod
    def of(cls, finding: Finding, paragraph_id: str, paragraph_index: int) -> CheckWarning:
        """The warning for ``finding`` on the paragraph at ``paragraph_index``."""
        return cls(finding.code, paragraph_id, paragraph_index, finding.message, SEVERITIES[finding.code], finding.span)

    def to_json(self) -> dict[str, Any]:
        """``{"code", "paragraph_id", "paragraph_index", "message", "severity", "span": [start, end] | null}``."""
        return {
            "code": self.code,
            "paragraph_id": self.paragraph_id,
            "paragraph_index": self.paragraph_index,
            "message": self.message,
            "severity": self.severity,
            "span": None if self.span is None else [self.span[0], self.span[1]],
        }


def quoted(text: str, limit: int = 24) -> str:
    """``text`` in quotes for a message, cut to ``limit`` characters, one line."""
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return f"“{flat}”"


def listed(items: list[str], limit: int = 3) -> str:
    """Up to ``limit`` quoted items joined by commas, with how many more there are."""
    shown = ", ".join(quoted(i) for i in items[:limit])
    return shown if len(items) <= limit else f"{shown} and {len(items) - limit} more"
