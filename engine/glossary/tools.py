"""The model's glossary tools: ``search_glossary`` and ``propose_glossary_entry``.

They are never bounded by the chunk (a name is the same in every chunk and chapter). A proposal is committed to
``glossary.json`` at once as ``proposed`` (origin ``model``) and appears in the run's later chunk messages; the
editor approves, edits or removes it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from engine.context import ToolContext
from engine.field_steps import Before
from engine.glossary.run_glossary import RunGlossary
from engine.tools.registry import Tool, ToolRegistry
from engine.tools.results import ErrorCode, failure, ok
from store.errors import StoreError
from store.glossary import GlossaryEntry
from store.glossary_commit import GlossaryConflict

# What pydantic's ``strip_whitespace`` strips (Unicode White_Space); Python's ``str.strip()`` also strips U+001C-1F.
_WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
)


def strip_white_space(value: Any) -> Any:
    """A string without the Unicode white space around it; anything else as it is (the type check refuses it)."""
    return value.strip(_WHITE_SPACE) if isinstance(value, str) else value


# The bounds before the step: pydantic words them as a string's ("String should have at least 1 character").
Term = Annotated[str, msgspec.Meta(min_length=1, max_length=200), Before(strip_white_space)]
Kind = Literal["term", "character", "place", "do_not_translate"]


class SearchGlossaryArgs(msgspec.Struct, frozen=True):
    """Arguments of ``search_glossary`` (unknown keys ignored)."""

    query: Annotated[Term, msgspec.Meta(description="Matches source, target or alias.")]
    max_results: Annotated[int, msgspec.Meta(ge=1, le=50)] = 10


class ProposeGlossarySchema(msgspec.Struct, frozen=True):
    """What a model is shown of ``propose_glossary_entry``: the entry itself (note, aliases and gender are
    accepted too, but every request would pay for their schema)."""

    source: Annotated[Term, msgspec.Meta(description="As the source writes it.")]
    target: Term
    kind: Kind = "term"


class ProposeGlossaryArgs(ProposeGlossarySchema, frozen=True):
    """Arguments of ``propose_glossary_entry`` (unknown keys ignored)."""

    note: Annotated[str, msgspec.Meta(max_length=500)] = ""
    aliases: Annotated[list[Term], msgspec.Meta(max_length=20)] = msgspec.field(default_factory=list)
    gender: Literal["female", "male", "other"] | None = None


def _shown(entry: GlossaryEntry) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": entry.id,
        "source": entry.source,
        "target": entry.target,
        "kind": entry.kind,
        "status": entry.status,
    }
    for key in ("aliases", "note", "gender"):
        value = getattr(entry, key)
        if value:
            data[key] = list(value) if key == "aliases" else value
    return data


def glossary_tools(glossary: RunGlossary) -> list[Tool]:
    """The two glossary tools, working on ``glossary``."""

    def search(ctx: ToolContext, args: SearchGlossaryArgs) -> dict[str, Any]:
        found = glossary.search(args.query, args.max_results)
        return ok(entries=[_shown(e) for e in found], count=len(found))

    def propose(ctx: ToolContext, args: ProposeGlossaryArgs) -> dict[str, Any]:
        try:
            entry, new = glossary.propose(
                args.source,
                args.target,
                kind=args.kind,
                note=args.note,
                aliases=tuple(args.aliases),
                gender=args.gender,
            )
        except GlossaryConflict as exc:
            return failure(
                ErrorCode.GLOSSARY_CONFLICT,
                f"The glossary already translates {exc.existing.source!r} as {exc.existing.target!r}.",
                "Use the existing translation; if you think it is wrong, say so in your answer for the "
                "editor instead of proposing another.",
                existing=_shown(exc.existing),
            )
        except StoreError as exc:
            return failure(
                ErrorCode.COMMIT_FAILED,
                f"The proposal could not be saved: {exc}.",
                "Continue translating; use your proposed translation consistently.",
            )
        if not new:
            return ok(entry=_shown(entry), note="This entry was already in the glossary.")
        return ok(entry=_shown(entry), note="Proposed: it is used in the following chunks; the editor reviews it.")

    return [
        Tool(
            "search_glossary",
            "Search the book's glossary of names and terms.",
            SearchGlossaryArgs,
            search,
        ),
        Tool(
            "propose_glossary_entry",
            "Record a new name or recurring term and its translation for the next chunks.",
            ProposeGlossaryArgs,
            propose,
            schema_model=ProposeGlossarySchema,
            writes=True,  # glossary.json; not a submission of the chunk
        ),
    ]


def with_glossary(registry: ToolRegistry, glossary: RunGlossary) -> ToolRegistry:
    """``registry`` with the glossary tools added after its own (so every chunk's tool list is the same), and the
    glossary's approved entries in each call's context (the batch's GLOSSARY_NOT_APPLIED warnings)."""
    for tool in glossary_tools(glossary):
        registry.register(tool)
    registry.glossary_terms = glossary.approved_terms
    return registry
