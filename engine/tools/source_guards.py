"""``add_translation_batch``'s checks of an item against its paragraph's source (steps 5 and 6).

Step 5: ``original_text_prefix``, where given, starts the source, compared leniently: whitespace is ignored and
punctuation is compared by its NFKC form, so ``，`` matches ``,`` and ``！`` matches ``!`` (a model retyping the
start of a sentence changes those, not the words). Step 6: a text that is the paragraph's source again, where the
chapter's languages differ (``engine.checks.shape.check_same_as_source``), or a polish/proofread chunk entry echoed
back (``Source: <the source>`` …, as a text answer may read it), is refused with ``SAME_AS_SOURCE``: it must never
replace a translation. Either refuses the whole batch, like every other step.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

from engine.checks.languages import Languages, languages
from engine.checks.shape import check_same_as_source
from engine.context import ToolContext
from engine.tools.results import ErrorCode, failure
from store.model import Paragraph

Parsed = tuple[str, str, str | None]  # paragraph_id, text, original_text_prefix
Problem = Callable[[int, Paragraph, str | None], dict[str, Any] | None]  # (item, paragraph, its text or prefix)
RESEND = "Nothing from this batch was saved; send the corrected batch again."


def _loose_char(ch: str) -> str:
    if ch.isspace():
        return ""
    if unicodedata.category(ch)[0] in "PS":  # punctuation and symbols: their NFKC form (full width -> ASCII)
        return unicodedata.normalize("NFKC", ch).strip()
    return ch


def loose(text: str) -> str:
    """``text`` without whitespace, its punctuation in NFKC form: what a prefix is compared as."""
    return "".join(_loose_char(ch) for ch in text.replace("\ufeff", ""))


def prefix_matches(source: str, prefix: str) -> bool:
    """Whether ``source`` starts with ``prefix``, whitespace and the width of punctuation ignored."""
    return loose(source).startswith(loose(prefix))


def _item_error(number: int, code: ErrorCode, reason: str, **extra: Any) -> dict[str, Any]:
    return {"item": number, "code": str(code), "reason": reason, **extra}


def _prefix_problem(number: int, para: Paragraph, prefix: str | None) -> dict[str, Any] | None:
    pid, source = para.id, para.text
    if prefix is None or prefix_matches(source, prefix):
        return None
    return _item_error(
        number,
        ErrorCode.PREFIX_MISMATCH,
        f"the source of '{pid}' does not start with the given original_text_prefix",
        paragraph_id=pid,
        expected_prefix=prefix,
        source_start=source.replace("\ufeff", "").strip()[: max(len(prefix), 20)],
    )


def _squeezed(text: str) -> str:
    return "".join(text.split())


def holds_source(para: Paragraph, text: str, langs: Languages) -> bool:
    """Whether ``text`` is the paragraph's source again, or its polish/proofread chunk entry echoed back
    (``Source: <the source>`` and whatever follows, whitespace ignored). Only a source with something to translate
    counts (``check_same_as_source``: not a name or a title every language writes alike)."""
    held, squeezed = _squeezed(para.text), _squeezed(text)
    echoed = squeezed[:7].lower() == "source:" and squeezed[7:].startswith(held)
    if squeezed != held and not echoed:
        return False
    return check_same_as_source(para.text, para.text, langs) is not None


def _same_problem(langs: Languages) -> Problem:
    def problem(number: int, para: Paragraph, text: str | None) -> dict[str, Any] | None:
        if text is None or not holds_source(para, text, langs):
            return None
        reason = f"the text of '{para.id}' is (or holds) its source, not a translation"
        return _item_error(number, ErrorCode.SAME_AS_SOURCE, reason, paragraph_id=para.id)

    return problem


def _problems(
    ctx: ToolContext, parsed: Sequence[Parsed], positions: Sequence[int], problem: Problem, field: int
) -> list[dict[str, Any]]:
    """``problem`` of every item whose paragraph exists (``field``: 1 the text, 2 the prefix)."""
    paragraphs = ctx.chapter.paragraphs
    found = []
    for number, (item, pos) in enumerate(zip(parsed, positions, strict=True), start=1):
        if pos >= 0 and (p := problem(number, paragraphs[pos], item[field])) is not None:
            found.append(p)
    return found


def _ids(problems: list[dict[str, Any]]) -> list[str]:
    return [p["paragraph_id"] for p in problems]


def _quoted(ids: Sequence[str]) -> str:
    return ", ".join(repr(i) for i in ids)


def prefix_failure(ctx: ToolContext, parsed: Sequence[Parsed], positions: Sequence[int]) -> dict[str, Any] | None:
    """Step 5: ``PREFIX_MISMATCH`` when a given ``original_text_prefix`` does not start its source, else None."""
    problems = _problems(ctx, parsed, positions, _prefix_problem, 2)
    if not problems:
        return None
    ids = _ids(problems)
    return failure(
        ErrorCode.PREFIX_MISMATCH,
        f"The whole batch was rejected: original_text_prefix does not match the source of "
        f"{_quoted(ids)} — the paragraph_id may point at the wrong paragraph.",
        "Check that each paragraph_id belongs to the text you translated (compare source_start), or leave "
        f"original_text_prefix out. {RESEND}",
        invalid_paragraph_ids=ids,
        invalid_items=problems,
    )


def same_as_source_failure(
    ctx: ToolContext, parsed: Sequence[Parsed], positions: Sequence[int]
) -> dict[str, Any] | None:
    """Step 6: ``SAME_AS_SOURCE`` when a text is its paragraph's source again (languages differ), else None."""
    chapter = ctx.chapter
    langs = languages(chapter.source_language, chapter.target_language)
    if not langs.differ:
        return None
    problems = _problems(ctx, parsed, positions, _same_problem(langs), 1)
    if not problems:
        return None
    ids = _ids(problems)
    target = chapter.target_language
    return failure(
        ErrorCode.SAME_AS_SOURCE,
        f"The whole batch was rejected: the text of {_quoted(ids)} is (or holds) the source itself, not a "
        f"translation into {target}.",
        f"Send only the {target} text of each paragraph in translated_text, never its source. {RESEND}",
        invalid_paragraph_ids=ids,
        invalid_items=problems,
    )
