"""AI_CHATTER: the model talking instead of (or around) the translation, and translator's notes.

Each pattern is narrow enough for fiction: "I cannot" counts only before translate/help/assist/comply…, never
in a character's "I cannot go"; "Sure," only at the very start and followed by here/I/below; "Translation:" only
at the start of a line. A match that the source itself holds (a novel about translators) is not counted.
"""

from __future__ import annotations

import re

from engine.checks.warning import Finding, quoted

_PATTERNS = [
    # English
    r"\bhere(?:'s|’s| is| are)\s+(?:the|your|my|a)\s+(?:[\w-]+\s+){0,2}"
    r"(?:translation|translated|version|rendering|revision|text)\b",
    r"\bas an? (?:ai|artificial intelligence|large language model|language model)\b",
    r"\bi (?:cannot|can't|can’t|am unable to|'m unable to|’m unable to|am not able to) "
    r"(?:translate|assist|help with|comply|provide|fulfil|fulfill|complete (?:this|that|the)|process)\b",
    r"\bT/N\b", r"\bTN\s*:", r"\btranslator['’]?s? note\b", r"[(\[]\s*note\s*:", r"```",
    r"(?:^|\n)\s*(?:translation|translated text|english translation|polished (?:text|version)|revised (?:text|version)"
    r"|proofread (?:text|version))\s*[:：]",
    r"^\s*(?:sure|certainly|of course|okay|ok)\s*[,!.]\s*(?:here|i\b|i'll|i’ll|below|the following|let me)",
    # Chinese and Japanese
    r"以下是.{0,8}(?:翻译|译文|润色|翻譯|譯文|潤色)", r"以下は.{0,8}(?:翻訳|訳文)",
    r"(?:^|\n)\s*(?:译文|翻译|譯文|翻譯|訳文|翻訳)\s*[:：]",
    r"译者注|譯者注|译注|譯注|訳注|訳者注|[（(]\s*注\s*[:：]",
    r"作为(?:一个)?(?:AI|人工智能|语言模型)|作為(?:一個)?(?:AI|人工智慧|語言模型)",
    r"我(?:无法|不能)(?:翻译|提供|协助)|我(?:無法|不能)(?:翻譯|提供|協助)",
]
_CHATTER = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)


def check_chatter(source: str, translation: str) -> Finding | None:
    """AI_CHATTER: model talk or a translator's note in the translation ("Here is the translation", "T/N", ```)."""
    lowered_source: str | None = None
    for m in _CHATTER.finditer(translation):
        said = m.group().strip()
        if lowered_source is None:
            lowered_source = source.lower()
        if said.lower() in lowered_source:
            continue
        start = m.start() + (len(m.group()) - len(m.group().lstrip()))
        return Finding("AI_CHATTER", f"model talk or a translator's note: {quoted(said, 40)}", (start, m.end()))
    return None
