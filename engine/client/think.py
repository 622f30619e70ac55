"""Separating ``<think>…</think>`` spans from answer text as it streams (tags may be split across deltas).

Reasoning models served without a reasoning parser (Qwen3, DeepSeek-R1 distills on llama.cpp/vLLM/Ollama) put
their thinking inline in ``content``.
"""

from __future__ import annotations

OPEN = "<think>"
CLOSE = "</think>"


class ThinkSplitter:
    """Incremental splitter: ``feed`` returns ``(is_reasoning, text)`` pieces; ``flush`` releases held-back text."""

    def __init__(self) -> None:
        self._inside = False
        self._held = ""  # a tail that may be the beginning of the next tag
        self.found = False  # at least one span was seen

    def feed(self, text: str) -> list[tuple[bool, str]]:
        """Split ``text`` (appended to what was held back) into answer and reasoning pieces."""
        if not self._held and "<" not in text:
            return [(self._inside, text)] if text else []  # the common case: no tag can start here
        return self._split(self._held + text)

    def _split(self, text: str) -> list[tuple[bool, str]]:
        pieces: list[tuple[bool, str]] = []
        while True:
            tag = CLOSE if self._inside else OPEN
            at = text.find(tag)
            if at < 0:
                return pieces + self._rest(text, tag)
            if at:
                pieces.append((self._inside, text[:at]))
            self._inside = not self._inside
            self.found = True
            text = text[at + len(tag) :]

    def _rest(self, text: str, tag: str) -> list[tuple[bool, str]]:
        """The text after the last tag; a tail that may be the beginning of ``tag`` is held back."""
        cut = len(text) - _partial_tag_suffix(text, tag)
        self._held, text = text[cut:], text[:cut]
        return [(self._inside, text)] if text else []

    def flush(self) -> list[tuple[bool, str]]:
        """End of content: whatever was held back is plain text of the current kind."""
        held, self._held = self._held, ""
        return [(self._inside, held)] if held else []


def _partial_tag_suffix(text: str, tag: str) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of ``tag``."""
    if "<" not in text[-(len(tag) - 1) :]:
        return 0
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0


def split_orphan_close(content: str) -> tuple[str, str] | None:
    """``(reasoning, answer)`` when ``content`` holds a ``</think>`` with no opening tag (the chat template opened it).

    Only applied to the final text: the opening tag lives in the prompt of such models (QwQ, some R1 templates).
    """
    at = content.find(CLOSE)
    if at < 0 or OPEN in content[:at]:
        return None
    return content[:at], content[at + len(CLOSE) :]
