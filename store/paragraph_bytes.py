"""Each paragraph's encoded bytes, cached on the frozen records: cut out of the file a chapter was loaded from,
and carried over to the copies an edit derives (``Chapter.with_paragraphs``).

A paragraph's cached bytes are its block without the opening "{" and the closing "\\n    }" (its "inner"
bytes): in the chapter, and in orjson's output, consecutive paragraphs are then joined by one separator.
:mod:`store.serialize` encodes what is not cached yet and joins the file. This module needs the record types
only for annotations, so :mod:`store.model` can call it without an import cycle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from store.model import Chapter, Paragraph

INNER = "inner"
BETWEEN = b"\n    },\n    {"
LIST_OPEN = b"[\n    {"
LIST_CLOSE = b"\n    }\n  ]"
_PARAGRAPHS_AT = b'\n  "paragraphs": ' + LIST_OPEN  # only the top-level key has 2 spaces of indent


def cached_inner(para: Paragraph) -> bytes | None:
    """The paragraph's cached inner bytes, or None."""
    return para.__dict__.get(INNER)


def keep_source(chapter: Chapter, raw: bytes, plain: list[bool]) -> None:
    """Let the chapter take its paragraphs' bytes from ``raw`` when they are first needed.

    ``raw`` must be exactly ``orjson.dumps(data, option=OPT_INDENT_2) + b"\\n"`` for the data the chapter was
    built from, and ``plain[i]`` true only when paragraph ``i`` and its versions have exactly the known keys
    in canonical order, holding strings, true/false and null: orjson writes those as json.dumps does, so that
    paragraph's part of ``raw`` is its canonical bytes. (The loader checks both.) Splitting is left for the
    first save, so only reading a chapter does not pay for it.
    """
    chapter.cache("source", (raw, plain))


def _inners_from_source(chapter: Chapter, raw: bytes, plain: list[bool]) -> list[bytes | None] | None:
    """Each plain paragraph's inner bytes cut out of ``raw`` (see :func:`keep_source`), None elsewhere.

    Inside the paragraph list only a paragraph's own braces sit at 4 spaces of indent (a string cannot hold
    a newline), so ``BETWEEN`` separates paragraphs and nothing else.
    """
    paragraphs = chapter.paragraphs
    start = raw.find(_PARAGRAPHS_AT)
    end = raw.find(LIST_CLOSE, start)
    if start < 0 or end < 0:
        return None
    inners: list[bytes | None] = [*raw[start + len(_PARAGRAPHS_AT) : end].split(BETWEEN)]
    if len(inners) != len(paragraphs):
        return None
    for i, para in enumerate(paragraphs):
        if plain[i]:
            para.__dict__[INNER] = inners[i]  # Record.cache inlined: this runs once per paragraph of the first save
        else:
            inners[i] = None
    return inners


def chapter_inners(chapter: Chapter) -> list[bytes | None]:
    """The chapter's list of paragraph bytes (entries None until encoded), cached on the chapter.

    The chapter may also cache ``"missing"``, the positions of those None entries, so that a commit of 10
    paragraphs does not look through all the others (``Chapter.with_paragraphs`` keeps both).
    """
    inners = chapter.cached("inners")
    if inners is not None:
        return inners
    source = chapter.cached("source")
    if source is not None:
        chapter.cache("source", None)  # the file's bytes are not kept once cut up
        inners = _inners_from_source(chapter, *source)
    if inners is None:
        inners = [cached_inner(para) for para in chapter.paragraphs]
    return chapter.cache("inners", inners)


def carry_inners(chapter: Chapter, copy: Chapter, replacements: dict[int, Paragraph]) -> None:
    """Hand ``chapter``'s paragraph bytes on to ``copy``, ``chapter`` with the ``replacements`` made.

    A commit of 10 paragraphs then costs 10, not the whole chapter: the other paragraphs' bytes, and which are
    still to encode, stay as they are.
    """
    inners = chapter.cached("inners")
    if inners is None and chapter.cached("source") is not None:
        inners = chapter_inners(chapter)  # cut the loaded file's bytes up now, while they still match
    if inners is None:
        return
    inners = list(inners)
    for pos, para in replacements.items():
        inners[pos] = cached_inner(para)
    copy.cache("inners", inners)
    missing = chapter.cached("missing")
    if missing is not None:
        copy.cache("missing", [*missing, *(pos for pos in replacements if inners[pos] is None)])
