"""Deterministic chapter serialisation.

The canonical bytes of a chapter are exactly ``json.dumps(doc, indent=2, ensure_ascii=False) + "\\n"``
encoded as UTF-8, where ``doc`` lists the known keys in the design's order followed by unknown keys in
the order they were read. Each paragraph's bytes are cached on the (frozen) paragraph, and the chapter
keeps the list of them (``Chapter.with_paragraphs`` carries it over): a commit encodes only the
paragraphs it touched and joins bytes.

Paragraphs holding only strings, true/false and null (every paragraph without unknown keys) are encoded
together by one ``orjson.dumps(OPT_INDENT_2)`` call, which writes those byte for byte as ``json.dumps``
does (``tests/store/test_serialize_fast.py``); anything else (unknown keys may hold floats, which the two
write differently) goes through the hand-built text below.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring  # type: ignore[attr-defined]  # C-accelerated
from typing import Any

import orjson

from store.model import Chapter, Paragraph, TranslationVersion

_CHAPTER_KEYS = ("format", "id", "title", "title_translation", "source_language", "target_language")
_VERSION_KEYS = ("id", "text", "origin", "model", "created_at")


def _scalar(value: Any, indent: str) -> str:
    """Encode a JSON value as json.dumps(indent=2) would at nesting prefix ``indent``."""
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    text = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    return text.replace("\n", "\n" + indent) if indent else text


def _members(pairs: list[tuple[str, Any]], indent: str) -> str:
    inner = indent + "  "
    body = (",\n" + inner).join(f"{encode_basestring(k)}: {v}" for k, v in pairs)
    return "{\n" + inner + body + "\n" + indent + "}"


def _version_block(version: TranslationVersion, indent: str) -> str:
    inner = indent + "  "
    pairs = [(k, _scalar(getattr(version, k), inner)) for k in _VERSION_KEYS]
    pairs += [(k, _scalar(v, inner)) for k, v in (version.__pydantic_extra__ or {}).items()]
    return _members(pairs, indent)


_PARA_INDENT = "    "  # paragraphs sit at depth 2: {"paragraphs": [ {...} ]}


def _build_block(para: Paragraph) -> str:
    inner = _PARA_INDENT + "  "
    if para.translations:
        vind = inner + "  "
        versions = (
            "[\n" + vind + (",\n" + vind).join(_version_block(t, vind) for t in para.translations) + "\n" + inner + "]"
        )
    else:
        versions = "[]"
    pairs = [
        ("id", encode_basestring(para.id)),
        ("text", encode_basestring(para.text)),
        ("translations", versions),
        ("selected_translation_id", _scalar(para.selected_translation_id, inner)),
        ("reviewed", "true" if para.reviewed else "false"),
    ]
    pairs += [(k, _scalar(v, inner)) for k, v in (para.__pydantic_extra__ or {}).items()]
    return _members(pairs, _PARA_INDENT)


# A paragraph's cached bytes are its block without the opening "{" and the closing "\n    }" (its "inner"
# bytes): in the chapter, and in orjson's output, consecutive paragraphs are then joined by one separator.
_INNER = "inner"
_BETWEEN = b"\n    },\n    {"
_LIST_OPEN = b"[\n    {"
_LIST_CLOSE = b"\n    }\n  ]"
_PARAGRAPHS_AT = b'\n  "paragraphs": ' + _LIST_OPEN  # only the top-level key has 2 spaces of indent
_BULK_OPEN = b"[\n  [\n    {"
_BULK_CLOSE = b"\n    }\n  ]\n]"


def _inner_of(para: Paragraph) -> bytes:
    """The paragraph's inner bytes, cached on it; built by hand (the paragraph-at-a-time path)."""
    private = para.__pydantic_private__
    inner = private.get(_INNER) if private is not None else None
    if inner is None:
        inner = para.cache(_INNER, _build_block(para).encode("utf-8")[1:-6])
    return inner


def paragraph_utf8(para: Paragraph) -> bytes:
    """The canonical UTF-8 block of one paragraph object at its place in the file (its bytes are cached)."""
    return b"{" + _inner_of(para) + b"\n    }"


def _plain(para: Paragraph) -> bool:
    """Whether orjson writes this paragraph exactly as json.dumps does: known keys only, holding strings,
    true/false and null (what the loader and the model's own functions produce)."""
    if para.__pydantic_extra__:
        return False
    fields = para.__dict__
    sel = fields["selected_translation_id"]
    if (
        len(fields) != 5
        or type(fields["id"]) is not str
        or type(fields["text"]) is not str
        or type(fields["reviewed"]) is not bool
        or (sel is not None and type(sel) is not str)
        or type(fields["translations"]) is not tuple
    ):
        return False
    for version in fields["translations"]:
        if type(version) is not TranslationVersion or version.__pydantic_extra__:
            return False
        v = version.__dict__
        model = v["model"]
        if (
            len(v) != 5
            or type(v["id"]) is not str
            or type(v["text"]) is not str
            or type(v["origin"]) is not str
            or type(v["created_at"]) is not str
            or (model is not None and type(model) is not str)
        ):
            return False
    return True


def _version_fields(obj: Any) -> Any:
    if type(obj) is TranslationVersion:
        return obj.__dict__  # the fields, in field (= canonical) order
    raise TypeError(type(obj).__name__)


def _encode_together(paragraphs: list[Paragraph]) -> list[bytes] | None:
    """The inner bytes of plain paragraphs from one orjson call; None if orjson refuses (a lone surrogate)."""
    try:
        blob = orjson.dumps([[p.__dict__ for p in paragraphs]], default=_version_fields, option=orjson.OPT_INDENT_2)
    except orjson.JSONEncodeError:
        return None  # the hand-built path raises the UnicodeEncodeError the callers expect
    if not (blob.startswith(_BULK_OPEN) and blob.endswith(_BULK_CLOSE)):
        return None
    inners = blob[len(_BULK_OPEN) : -len(_BULK_CLOSE)].split(_BETWEEN)
    return inners if len(inners) == len(paragraphs) else None


def _fill(paragraphs: tuple[Paragraph, ...], inners: list[bytes | None], missing: list[int]) -> None:
    """Fill the entries of ``inners`` at the positions ``missing`` (and the paragraphs' caches)."""
    together = []
    for i in missing:
        para = paragraphs[i]
        private = para.__pydantic_private__
        cached = private.get(_INNER) if private is not None else None
        if cached is not None:
            inners[i] = cached
        elif _plain(para):
            together.append(i)
        else:
            inners[i] = _inner_of(para)
    if not together:
        return
    encoded = _encode_together([paragraphs[i] for i in together])
    for k, i in enumerate(together):
        para = paragraphs[i]
        if encoded is None:
            inners[i] = _inner_of(para)
            continue
        inner = inners[i] = encoded[k]
        if para.__pydantic_private__ is None:
            object.__setattr__(para, "__pydantic_private__", {_INNER: inner})
        else:
            para.cache(_INNER, inner)


# Marks where the paragraphs go in the chapter's frame; the JSON encoder escapes every control character,
# so it cannot occur anywhere else in the text.
_HOLE = "\x00"


def _frame(chapter: Chapter, paragraphs: str) -> str:
    inner = "  "
    pairs = [(k, _scalar(getattr(chapter, k), inner)) for k in _CHAPTER_KEYS]
    pairs.append(("paragraphs", paragraphs))
    pairs += [(k, _scalar(v, inner)) for k, v in (chapter.__pydantic_extra__ or {}).items()]
    return _members(pairs, "") + "\n"


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
    a newline), so ``_BETWEEN`` separates paragraphs and nothing else.
    """
    paragraphs = chapter.paragraphs
    start = raw.find(_PARAGRAPHS_AT)
    end = raw.find(_LIST_CLOSE, start)
    if start < 0 or end < 0:
        return None
    inners: list[bytes | None] = raw[start + len(_PARAGRAPHS_AT) : end].split(_BETWEEN)  # type: ignore[assignment]
    if len(inners) != len(paragraphs):
        return None
    for i, para in enumerate(paragraphs):
        if not plain[i]:
            inners[i] = None
        elif para.__pydantic_private__ is None:
            object.__setattr__(para, "__pydantic_private__", {_INNER: inners[i]})
        else:
            para.cache(_INNER, inners[i])
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
        inners = []
        for para in chapter.paragraphs:
            private = para.__pydantic_private__
            inners.append(private.get(_INNER) if private is not None else None)
    return chapter.cache("inners", inners)


def chapter_bytes(chapter: Chapter) -> bytes:
    """The canonical UTF-8 bytes of a chapter (no BOM), joined from the cached paragraph bytes.

    Only paragraphs never encoded before are encoded; the whole file is then copied once, by one join.
    """
    paragraphs = chapter.paragraphs
    if not paragraphs:
        return _frame(chapter, "[]").encode("utf-8")
    inners = chapter_inners(chapter)
    missing = chapter.cached("missing")
    if missing is None:
        missing = [i for i, inner in enumerate(inners) if inner is None]
    if missing:
        _fill(paragraphs, inners, missing)
    chapter.cache("missing", [])
    head, tail = _frame(chapter, _HOLE).split(_HOLE)
    parts = list(inners)
    parts[0] = head.encode("utf-8") + _LIST_OPEN + parts[0]  # type: ignore[operator]
    parts[-1] = parts[-1] + _LIST_CLOSE + tail.encode("utf-8")  # type: ignore[operator]
    return _BETWEEN.join(parts)  # type: ignore[arg-type]


def chapter_document(chapter: Chapter) -> dict[str, Any]:
    """The chapter as plain JSON data in canonical key order (reference for tests and exports)."""
    doc: dict[str, Any] = {k: getattr(chapter, k) for k in _CHAPTER_KEYS}
    doc["paragraphs"] = [
        {
            "id": p.id,
            "text": p.text,
            "translations": [
                {**{k: getattr(t, k) for k in _VERSION_KEYS}, **(t.__pydantic_extra__ or {})} for t in p.translations
            ],
            "selected_translation_id": p.selected_translation_id,
            "reviewed": p.reviewed,
            **(p.__pydantic_extra__ or {}),
        }
        for p in chapter.paragraphs
    ]
    doc.update(chapter.__pydantic_extra__ or {})
    return doc
