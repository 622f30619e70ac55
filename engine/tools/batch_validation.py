"""``add_translation_batch``'s checks, in order; the first failing step rejects the whole batch, with nothing
written: (1) a non-empty list of at most ``max_batch`` items; (2) every item has a non-blank string
``paragraph_id`` (index-only items -> ``INDEX_NOT_ACCEPTED``) and a non-blank ``translated_text``; (3) no ID twice;
(4) every ID is in the chunk (with boundaries) or in the chapter, and not an empty paragraph; (5)
``original_text_prefix`` guards, leniently, and (6) no text is its source again (both in ``source_guards``).
``validate_batch`` returns the valid items or the rejection.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeGuard

from engine.context import ToolContext
from engine.tools.args import MAX_TEXT_CHARS, normalise_paragraph_id
from engine.tools.batch_notes import ItemNotes, item_notes
from engine.tools.boundaries import focus_hint, range_text
from engine.tools.lookup import chapter_index
from engine.tools.raw_arguments import invalid_arguments
from engine.tools.results import ErrorCode, failure, looks_like_index
from engine.tools.source_guards import Parsed, prefix_failure, same_as_source_failure

if TYPE_CHECKING:
    from engine.scope import ChunkBoundaries

TOOL = "add_translation_batch"
_RESEND = "Nothing from this batch was saved; send the corrected batch again."
_INDEX_KEYS = ("index", "paragraph_index")
_TEXT_ALIASES = ("text", "translation", "translated", "content", "polished_text", "proofread_text")


@dataclass(frozen=True, slots=True)
class ValidItem:
    """One item that passed steps 1–6: what will be merged."""

    paragraph_id: str
    text: str
    position: int  # 0-based position in the chapter as validated
    notes: ItemNotes  # the item's reason and category (never a reason to refuse it)


def _item_error(number: int, code: ErrorCode, reason: str, **extra: Any) -> dict[str, Any]:
    return {"item": number, "code": str(code), "reason": reason, **extra}


def quoted_ids(ids: Sequence[str]) -> str:
    """``'a', 'b'``: paragraph IDs as error sentences name them."""
    return ", ".join(repr(i) for i in ids)


def _invalid_items(code: ErrorCode, reason: str, numbered: Sequence[tuple[int, str]]) -> list[dict[str, Any]]:
    """One ``invalid_items`` entry per (item number, paragraph_id), all for the same reason."""
    return [_item_error(n, code, reason, paragraph_id=pid) for n, pid in numbered]


def _items_failure(problems: list[dict[str, Any]], total: int, hint: str, **extra: Any) -> dict[str, Any]:
    first = problems[0]
    items = sorted({p["item"] for p in problems})
    listed = ", ".join(str(i) for i in items[:10]) + (" …" if len(items) > 10 else "")
    which = f"item {listed}" if len(items) == 1 else f"items {listed}"
    error = (
        f"The whole batch was rejected: {which} of {total} cannot be used (item {first['item']}: {first['reason']})."
    )
    return failure(ErrorCode(first["code"]), error, f"{hint} {_RESEND}", invalid_items=problems, **extra)


def _index_suggestion(ctx: ToolContext, value: Any) -> str | None:
    """The paragraph_id a submitted index would have meant, if that is unambiguous and allowed."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    text = str(value).strip()
    if not looks_like_index(text):
        return None
    number = int(text.strip("[]# "))
    paragraphs = ctx.chapter.paragraphs
    if not 1 <= number <= len(paragraphs):
        return None
    pid = paragraphs[number - 1].id
    b = ctx.chunk_boundaries
    if b is not None and pid not in b.allowed_paragraph_ids:
        return None
    return pid


class _Rejected(Exception):
    """A validation step refused the whole batch; ``result`` is what the model is told."""

    def __init__(self, result: dict[str, Any]) -> None:
        super().__init__(result["error"])
        self.result = result


_SHAPE_HINT = 'Send {"paragraphs": [{"paragraph_id": "…", "translated_text": "…"}, …]}.'


def _items_list(raw: dict[str, Any]) -> list[Any]:
    """The ``paragraphs`` list (some models JSON-encode it a second time: that one level is unwrapped)."""
    if "paragraphs" not in raw:
        error = "Invalid arguments for add_translation_batch: field 'paragraphs' is required."
        raise _Rejected(invalid_arguments(TOOL, error, _SHAPE_HINT, field="paragraphs"))
    items = raw["paragraphs"]
    if isinstance(items, str):
        try:
            decoded = json.loads(items)
        except (json.JSONDecodeError, RecursionError):
            decoded = None
        items = decoded if isinstance(decoded, list) else items
    if not isinstance(items, list):
        error = (
            f"Invalid arguments for add_translation_batch: field 'paragraphs' must be a list of items, "
            f"not {type(items).__name__}."
        )
        raise _Rejected(invalid_arguments(TOOL, error, _SHAPE_HINT, field="paragraphs"))
    return items


def _check_shape(ctx: ToolContext, raw: dict[str, Any]) -> list[dict[str, Any]]:
    """Step 1: a non-empty list of at most ``max_batch`` objects."""
    items = _items_list(raw)
    if not items:
        raise _Rejected(
            failure(
                ErrorCode.EMPTY_BATCH,
                "The batch is empty: 'paragraphs' holds no items.",
                "Put at least one {paragraph_id, translated_text} item in 'paragraphs'.",
            )
        )
    max_batch = ctx.scope.max_batch
    if len(items) > max_batch:
        raise _Rejected(
            failure(
                ErrorCode.BATCH_TOO_LARGE,
                f"The batch holds {len(items)} items, more than the limit of {max_batch} per call.",
                f"Split it into calls of at most {max_batch} items. {_RESEND}",
                max_batch=max_batch,
                submitted_count=len(items),
            )
        )
    number, item = next(((n, i) for n, i in enumerate(items, start=1) if not isinstance(i, dict)), (0, None))
    if number:
        raise _Rejected(
            invalid_arguments(
                TOOL,
                f"Invalid arguments for add_translation_batch: item {number} of 'paragraphs' must be an "
                f"object, not {type(item).__name__}.",
                'Each item is an object like {"paragraph_id": "e58ed763", "translated_text": "…"}. ' + _RESEND,
                field=f"paragraphs[{number - 1}]",
            )
        )
    return items


def _index_problem(ctx: ToolContext, number: int, item: dict[str, Any], index_key: str) -> dict[str, Any]:
    suggestion = _index_suggestion(ctx, item[index_key])
    extra = {} if suggestion is None else {"suggested_paragraph_id": suggestion}
    return _item_error(
        number,
        ErrorCode.INDEX_NOT_ACCEPTED,
        f"it identifies its paragraph by '{index_key}' only; results are submitted by paragraph_id "
        "from [ID: …], the index is for reading only",
        **extra,
    )


def _id_problem(ctx: ToolContext, number: int, item: dict[str, Any], pid: object) -> dict[str, Any]:
    """Why an item has no usable paragraph_id: an index instead, a value of the wrong type, or nothing."""
    index_key = next((k for k in _INDEX_KEYS if item.get(k) is not None), None)
    if index_key is not None:
        return _index_problem(ctx, number, item, index_key)
    if item.get("paragraph_id") is not None and not isinstance(pid, str):
        return _item_error(
            number,
            ErrorCode.MISSING_PARAGRAPH_ID,
            f'paragraph_id must be a string such as "e58ed763", not {type(pid).__name__}',
        )
    return _item_error(number, ErrorCode.MISSING_PARAGRAPH_ID, "it has no paragraph_id (or a blank one)")


def _text_problem(number: int, text: object, ids: dict[str, str]) -> dict[str, Any] | None:
    if not isinstance(text, str) or not text.strip():
        return _item_error(number, ErrorCode.MISSING_TEXT, "it has no translated_text (or a blank one)", **ids)
    if len(text) > MAX_TEXT_CHARS:
        reason = f"translated_text is longer than {MAX_TEXT_CHARS:,} characters"
        return _item_error(number, ErrorCode.INVALID_ARGUMENTS, reason, **ids)
    return None


def _valid_text(text: object) -> TypeGuard[str]:
    """A non-blank string within the length limit."""
    return isinstance(text, str) and 0 < len(text) <= MAX_TEXT_CHARS and not text.isspace()


def _valid_prefix(prefix: object) -> bool:
    """Left out, or a string within the length limit."""
    return prefix is None or (isinstance(prefix, str) and len(prefix) <= MAX_TEXT_CHARS)


def _prefix_problem(number: int, prefix: object, ids: dict[str, str]) -> dict[str, Any] | None:
    if _valid_prefix(prefix):
        return None
    reason = "original_text_prefix must be a short string (or left out)"
    return _item_error(number, ErrorCode.INVALID_ARGUMENTS, reason, **ids)


def _item_problems(
    ctx: ToolContext, number: int, item: dict[str, Any], pid: object, text: object, prefix: object
) -> list[dict[str, Any]]:
    """Everything wrong with one item, in the order the model is told: its ID, its text, its prefix."""
    usable = isinstance(pid, str) and bool(pid)
    ids = {"paragraph_id": str(pid)} if usable else {}
    found = [] if usable else [_id_problem(ctx, number, item, pid)]
    for problem in (_text_problem(number, text, ids), _prefix_problem(number, prefix, ids)):
        if problem is not None:
            found.append(problem)
    return found


def _check_item(ctx: ToolContext, number: int, item: dict[str, Any], problems: list[dict[str, Any]]) -> Parsed | None:
    """One item of step 2: what it submits, or None with its problems added to ``problems``."""
    pid = normalise_paragraph_id(item.get("paragraph_id"))
    text = item.get("translated_text")
    prefix = item.get("original_text_prefix")
    if isinstance(pid, str) and pid and _valid_text(text) and _valid_prefix(prefix):
        return pid, text, (prefix or "").strip() or None
    problems.extend(_item_problems(ctx, number, item, pid, text, prefix))
    return None


def _text_elsewhere(items: list[dict[str, Any]], problems: list[dict[str, Any]]) -> bool:
    """Whether an item without translated_text has its text under another name ("text", "translation", …)."""
    missing_text = (items[p["item"] - 1] for p in problems if p["code"] == ErrorCode.MISSING_TEXT)
    return any(k in item for item in missing_text for k in _TEXT_ALIASES)


def _items_hint(items: list[dict[str, Any]], problems: list[dict[str, Any]]) -> str:
    """The hint of step 2's failure: about indexes first, then about the text's field name."""
    codes = {p["code"] for p in problems}
    if ErrorCode.INDEX_NOT_ACCEPTED in codes:
        return (
            "Submit by paragraph_id: copy the value shown as [ID: …] in the chunk text, e.g. for "
            '\'[12] [ID: e58ed763] …\' send "paragraph_id": "e58ed763". The [n] index is for reading only.'
        )
    if _text_elsewhere(items, problems):
        return "Put the new text of each paragraph in the field 'translated_text'."
    return 'Every item needs "paragraph_id" (from [ID: …]) and a non-blank "translated_text".'


def _check_items(ctx: ToolContext, items: list[dict[str, Any]]) -> list[Parsed]:
    """Step 2: every item has a paragraph_id (never only an index) and a non-blank translated_text."""
    problems: list[dict[str, Any]] = []
    parsed = [_check_item(ctx, number, item, problems) for number, item in enumerate(items, start=1)]
    if problems:
        raise _Rejected(_items_failure(problems, len(items), _items_hint(items, problems)))
    return [p for p in parsed if p is not None]


def _check_duplicates(parsed: Sequence[Parsed]) -> None:
    """Step 3: no paragraph_id twice."""
    seen: set[str] = set()
    dupes: dict[str, None] = {}
    problems: list[dict[str, Any]] = []
    for number, (pid, _, _) in enumerate(parsed, start=1):
        if pid in seen:
            dupes[pid] = None
            problems.append(
                _item_error(
                    number,
                    ErrorCode.DUPLICATE_PARAGRAPH_IDS,
                    f"paragraph_id '{pid}' already appears earlier in this batch",
                    paragraph_id=pid,
                )
            )
        seen.add(pid)
    if dupes:
        ids = list(dupes)
        raise _Rejected(
            failure(
                ErrorCode.DUPLICATE_PARAGRAPH_IDS,
                f"The whole batch was rejected: paragraph_id {quoted_ids(ids)} appears more than once.",
                f"Submit each paragraph once per batch, with its final text. {_RESEND}",
                invalid_paragraph_ids=ids,
                invalid_items=problems,
            )
        )


def _not_in_chunk(b: ChunkBoundaries, parsed: Sequence[Parsed]) -> dict[str, Any] | None:
    """Step 4 in a chunk: ``NOT_IN_CHUNK`` for IDs outside it."""
    outside = [(n, pid) for n, (pid, _, _) in enumerate(parsed, start=1) if pid not in b.allowed_paragraph_ids]
    if not outside:
        return None
    ids = [pid for _, pid in outside]
    return failure(
        ErrorCode.NOT_IN_CHUNK,
        f"The whole batch was rejected: {quoted_ids(ids)} "
        f"{'is' if len(ids) == 1 else 'are'} not in {range_text(b)}; submissions must target the "
        "current chunk's paragraphs.",
        f"Submit only paragraph_ids shown as [ID: …] in the current chunk. {focus_hint(b)} {_RESEND}",
        invalid_paragraph_ids=ids,
        chunk_range=b.chunk_range(),
        invalid_items=_invalid_items(ErrorCode.NOT_IN_CHUNK, "not a paragraph of the current chunk", outside),
    )


def _not_in_chapter(ctx: ToolContext, parsed: Sequence[Parsed]) -> dict[str, Any] | None:
    """Step 4 outside a chunk: ``PARAGRAPH_NOT_FOUND`` for IDs no paragraph has."""
    positions = ctx.chapter.positions
    missing = [(n, pid) for n, (pid, _, _) in enumerate(parsed, start=1) if pid not in positions]
    if not missing:
        return None
    ids = [pid for _, pid in missing]
    hint = "Use paragraph_ids exactly as shown in [ID: …]."
    if any(looks_like_index(pid) for pid in ids):
        hint = "Some of these look like indexes; submit the paragraph_id shown as [ID: …] instead."
    return failure(
        ErrorCode.PARAGRAPH_NOT_FOUND,
        f"The whole batch was rejected: no paragraph of chapter '{ctx.chapter.id}' has the paragraph_id "
        f"{quoted_ids(ids)}.",
        f"{hint} {_RESEND}",
        invalid_paragraph_ids=ids,
        invalid_items=_invalid_items(ErrorCode.PARAGRAPH_NOT_FOUND, "no paragraph has this paragraph_id", missing),
    )


def _empty_failure(empty: list[tuple[int, str]]) -> dict[str, Any]:
    ids = [pid for _, pid in empty]
    return failure(
        ErrorCode.EMPTY_PARAGRAPH,
        f"The whole batch was rejected: {quoted_ids(ids)} "
        f"{'is an empty paragraph' if len(ids) == 1 else 'are empty paragraphs'}, which take no translation.",
        f"Leave empty paragraphs out of the batch. {_RESEND}",
        invalid_paragraph_ids=ids,
        invalid_items=_invalid_items(ErrorCode.EMPTY_PARAGRAPH, "the paragraph is empty", empty),
    )


def _check_targets(ctx: ToolContext, parsed: Sequence[Parsed]) -> list[int]:
    """Step 4: every ID is in the chunk (or the chapter) and not an empty paragraph; returns positions."""
    b = ctx.chunk_boundaries
    unknown = _not_in_chunk(b, parsed) if b is not None else _not_in_chapter(ctx, parsed)
    if unknown is not None:
        raise _Rejected(unknown)
    positions = ctx.chapter.positions
    index = chapter_index(ctx.chapter)
    # -1: in the chunk but gone on disk -> the commit reports it stale
    found = [positions.get(pid, -1) for pid, _, _ in parsed]
    empty = [
        (n, pid)
        for n, ((pid, _, _), pos) in enumerate(zip(parsed, found, strict=True), start=1)
        if pos >= 0 and not index.is_nonempty(pos)
    ]
    if empty:
        raise _Rejected(_empty_failure(empty))
    return found


def validate_batch(ctx: ToolContext, raw: dict[str, Any]) -> list[ValidItem] | dict[str, Any]:
    """Steps 1–6: the items to commit, or the failure result of the first failing step."""
    try:
        items = _check_shape(ctx, raw)
        parsed = _check_items(ctx, items)
        _check_duplicates(parsed)
        positions = _check_targets(ctx, parsed)
    except _Rejected as rejected:
        return rejected.result
    refused = prefix_failure(ctx, parsed, positions) or same_as_source_failure(ctx, parsed, positions)
    if refused is not None:
        return refused
    return [
        ValidItem(pid, text, pos, item_notes(pid, item))
        for (pid, text, _), pos, item in zip(parsed, positions, items, strict=True)
    ]
