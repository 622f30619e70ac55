"""``add_translation_batch``: submit results by ``paragraph_id``, atomically (an ``index`` is refused).

The batch is checked first (``batch_validation``: the first failing step rejects it whole, with nothing written),
then committed through the store. A success carries the QA warnings (``engine.checks``) about the accepted texts.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from engine.chapter_source import ReadOnlyChapterError
from engine.checks import batch_findings, batch_warnings
from engine.checks.chapter import Found
from engine.chunks import BaseState
from engine.context import ToolContext
from engine.tools.results import Committed, ErrorCode, ToolReply, failure, ok
from store.errors import ChapterLoadError, StoreError
from store.merge import BatchItem

if TYPE_CHECKING:
    from store.commit import CommitResult

from engine.tools.batch_validation import ValidItem, quoted_ids, validate_batch


def _batch_items(ctx: ToolContext, valid: Sequence[ValidItem]) -> list[BatchItem]:
    """The store's items, each carrying the base the run saw (the chunk's, else the chapter as read now)."""
    items: list[BatchItem] = []
    tracker = ctx.scope.submissions
    for v in valid:
        base = tracker.base(v.paragraph_id) if tracker is not None else None
        if base is None:
            # position < 0: a chunk paragraph that is gone on disk; any base makes the merge call it stale.
            base = BaseState.of(ctx.chapter.paragraphs[v.position]) if v.position >= 0 else BaseState("", None)
        items.append(
            BatchItem(
                v.paragraph_id, v.text, base.source_text, base.selected_translation_id, v.notes.reason, v.notes.category
            )
        )
    return items


def _commit_failure(ctx: ToolContext, exc: BaseException) -> dict[str, Any]:
    from store.commit import StaleParagraphError  # deferred: the commit module pulls in locks and I/O

    if isinstance(exc, StaleParagraphError):
        return failure(
            ErrorCode.STALE_PARAGRAPH,
            f"The whole batch was rejected: the source text of {quoted_ids(exc.stale_ids)} "
            "changed on disk (or the paragraph was removed) since this chunk was built.",
            "Do not resubmit these paragraphs in this run; the editor will review them. Your texts were kept "
            "in the conflicts folder. Submit the other paragraphs in a new batch.",
            invalid_paragraph_ids=list(exc.stale_ids),
            conflict_path=str(exc.conflict_path),
        )
    if isinstance(exc, ChapterLoadError):
        reason = f"the chapter file cannot be read right now ({exc.line})"
    elif isinstance(exc, ReadOnlyChapterError | StoreError | OSError):
        reason = str(exc)
    else:
        reason = f"unexpected {type(exc).__name__}: {exc}"
    return failure(
        ErrorCode.COMMIT_FAILED,
        f"The batch was valid but could not be saved: {reason}. The chapter file is unchanged.",
        "Try the same batch again later; if it keeps failing, stop and report the problem.",
    )


def _start_commit(ctx: ToolContext, items: list[BatchItem]) -> asyncio.Future[CommitResult]:
    """Step 6 begun: the store's commit, in a thread from now on (as ``asyncio.to_thread`` runs it)."""
    scope = ctx.scope
    call = partial(scope.source.commit_batch, items, origin=scope.origin, model=scope.model, apply=scope.apply)
    return asyncio.get_running_loop().run_in_executor(None, contextvars.copy_context().run, call)


async def _commit(ctx: ToolContext, pending: asyncio.Future[CommitResult]) -> CommitResult | dict[str, Any]:
    """Step 6 ended: the store's result, or the failure result when nothing could be written."""
    try:
        return await pending
    except Exception as exc:
        return _commit_failure(ctx, exc)


def _kept_note(kept: Sequence[str]) -> str:
    return (
        "A person chose a different version of "
        + quoted_ids(kept)
        + " meanwhile; your text was saved as a new version but did not replace their choice."
    )


def _committed(result: CommitResult) -> Committed:
    suggested = tuple(s.paragraph_id for s in result.suggested)
    protected = tuple(s.paragraph_id for s in result.suggested if s.why == "protected")
    return Committed(result.accepted, result.unchanged, result.kept_selection, suggested, protected)


def _warnings(ctx: ToolContext, valid: Sequence[ValidItem], result: CommitResult, found: Found) -> list[dict[str, Any]]:
    """What the model may want to fix: how its reasons and categories were read, then the QA checks on what was
    accepted (a warning never rejects anything)."""
    accepted = set(result.accepted)
    notes = [w for v in valid for w in v.notes.warnings]
    checks = batch_warnings(
        result.chapter,
        [(v.paragraph_id, v.text) for v in valid if v.paragraph_id in accepted],
        ctx.glossary,
        found=found,
    )
    return notes + checks


def _success(ctx: ToolContext, valid: Sequence[ValidItem], result: CommitResult, found: Found) -> ToolReply:
    """What the model is told about a commit (with the QA warnings on what was accepted) and what it wrote."""
    committed = _committed(result)
    tracker = ctx.scope.submissions
    if tracker is not None:
        tracker.record(result.chapter, committed.accepted, committed.unchanged, committed.kept_selection)
    out = ok(accepted=list(committed.accepted), unchanged=list(committed.unchanged))
    if committed.suggested:
        # Stored for the editor to accept or reject; they count as submitted.
        out["suggested"] = list(committed.suggested)
    if committed.kept_selection:
        out["kept_selection"] = list(committed.kept_selection)
        out["note"] = _kept_note(committed.kept_selection)
    if warnings := _warnings(ctx, valid, result, found):
        out["warnings"] = warnings
    if tracker is not None:  # during a chunk
        out["remaining"] = list(tracker.remaining)
    return ToolReply(out, committed)


async def add_translation_batch(ctx: ToolContext, raw: dict[str, Any]) -> dict[str, Any] | ToolReply:
    """Validate (steps 1–5) and commit (step 6) one batch; the whole batch or nothing."""
    valid = validate_batch(ctx, raw)
    if isinstance(valid, dict):
        return valid
    items = _batch_items(ctx, valid)
    pending = _start_commit(ctx, items)
    # The checks of what will most likely be accepted, while the commit is written and synced.
    found = batch_findings(ctx.chapter, ((i.paragraph_id, i.base_source, i.text) for i in items), ctx.glossary)
    result = await _commit(ctx, pending)
    if isinstance(result, dict):
        return result
    return _success(ctx, valid, result, found)
