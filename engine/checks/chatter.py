"""AI_CHATTER: the model talking instead of (or around) the translation, and translator's notes.

Each pattern is narrow enough for fiction: "I cannot" counts only before translate/help/assist/comply…, never
in a character's "I cannot go"; "Sure," only at the very start and followed by here/I/below; "Translation:" only
at the start of a line. A match that the source itself holds (a novel about translators) is not counted.
"""

from __future__ import annotations

import re

from engine.checks.warning import Finding, quoted

# Each pattern runs only when one of its trigger strings is in the lower-cased translation (a substring search
# is far cheaper than a regex at every position); the patterns then match the lower-cased text.
_RULES: tuple[tuple[tuple[str, ...], str], ...] = (
    # English
    (
        ("here is", "here's", "here’s", "here are"),
        r"\bhere(?:'s|’s| is| are)\s+(?:the|your|my|a)\s+(?:[\w-]+\s+){0,2}"
        r"(?:translation|translated|version|rendering|revision|text)\b",
    ),
    (("as an ", "as a l"), r"\bas an? (?:ai|artificial intelligence|large language model|language model)\b"),
    (
        ("i can", "unable", "not able"),
        r"\bi (?:cannot|can't|can’t|am unable to|'m unable to|’m unable to|am not able to) "
        r"(?:translate|assist|help with|comply|provide|fulfil|fulfill|complete (?:this|that|the)|process)\b",
    ),
    (("t/n", "tn"), r"\bt/n\b|\btn\s*:"),
    (("note",), r"\btranslator['’]?s? note\b|[(\[]\s*note\s*:"),
    (("```",), r"```"),
    (
        ("translat", "polished", "revised", "proofread"),
        r"(?:^|\n)\s*(?:translation|translated text|english translation|polished (?:text|version)"
        r"|revised (?:text|version)|proofread (?:text|version))\s*[:：]",
    ),
    (
        ("sure", "certainly", "of course", "ok"),
        r"^\s*(?:sure|certainly|of course|okay|ok)\s*[,!.]\s*(?:here|i\b|i'll|i’ll|below|the following|let me)",
    ),
    # Chinese and Japanese
    (("以下",), r"以下是.{0,8}(?:翻译|译文|润色|翻譯|譯文|潤色)|以下は.{0,8}(?:翻訳|訳文)"),
    (
        ("译", "譯", "訳", "翻"),
        r"(?:^|\n)\s*(?:译文|翻译|譯文|翻譯|訳文|翻訳)\s*[:：]|译者注|譯者注|译注|譯注|訳注|訳者注",
    ),
    (("注",), r"[（(]\s*注\s*[:：]"),
    (("作为", "作為"), r"作为(?:一个)?(?:ai|人工智能|语言模型)|作為(?:一個)?(?:ai|人工智慧|語言模型)"),
    (("我无法", "我不能", "我無法"), r"我(?:无法|不能)(?:翻译|提供|协助)|我(?:無法|不能)(?:翻譯|提供|協助)"),
)
_PATTERNS = tuple(re.compile(pattern) for _, pattern in _RULES)
_TRIGGERS = tuple((trigger, i) for i, (triggers, _) in enumerate(_RULES) for trigger in triggers)


def _candidates(lowered: str, rules: set[int]) -> list[re.Match[str]]:
    """What the patterns of ``rules`` match in ``lowered``, in text order."""
    return sorted((m for i in sorted(rules) for m in _PATTERNS[i].finditer(lowered)), key=lambda m: m.start())


def _first_said(found: list[re.Match[str]], lowered_source: str) -> re.Match[str] | None:
    """The first match the source does not say too (a story may speak of a translator)."""
    return next((m for m in found if m.group().strip() not in lowered_source), None)


def check_chatter(source: str, translation: str) -> Finding | None:
    """AI_CHATTER: model talk or a translator's note in the translation ("Here is the translation", "T/N", ```)."""
    lowered = translation.lower()
    if len(lowered) != len(translation):
        return None  # a letter whose lower case is longer (İ): offsets would not match; never in model talk
    rules = {i for trigger, i in _TRIGGERS if trigger in lowered}
    if not rules:
        return None
    found = _candidates(lowered, rules)
    m = _first_said(found, source.lower()) if found else None
    if m is None:
        return None
    start = m.start() + (len(m.group()) - len(m.group().lstrip()))
    text = translation[start : m.end()]
    return Finding("AI_CHATTER", f"model talk or a translator's note: {quoted(text, 40)}", (start, m.end()))
