"""Deterministic chapter serialisation.

The canonical bytes of a chapter are exactly ``json.dumps(doc, indent=2, ensure_ascii=False) + "\\n"``
encoded as UTF-8, where ``doc`` lists the known keys in the design's order followed by unknown keys in
the order they were read. Each paragraph's bytes are cached on the (frozen) paragraph, and the chapter
keeps the list of them (:mod:`store.paragraph_bytes`; ``Chapter.with_paragraphs`` carries it over): a commit
encodes only the paragraphs it touched and joins bytes.

Paragraphs holding only strings, true/false and null (every paragraph without unknown keys) are encoded
together by one ``orjson.dumps(OPT_INDENT_2)`` call, which writes those byte for byte as ``json.dumps``
does (``tests/store/test_serialize_fast.py``); anything else (unknown keys may hold floats, which the two
write differently) goes through the hand-built text below.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring  # C-accelerated
from typing import Any, cast

import orjson

from store.model import Chapter, Paragraph, TranslationVersion
from store.paragraph_bytes import BETWEEN, INNER, LIST_CLOSE, LIST_OPEN, cached_inner, chapter_inners

_CHAPTER_KEYS = ("format", "id", "title", "title_translation", "source_language", "target_language")
_VERSION_KEYS = ("id", "text", "origin", "model", "created_at")
_PARA_INDENT = "    "  # paragraphs sit at depth 2: {"paragraphs": [ {...} ]}
_BULK_OPEN = b"[\n  [\n    {"
_BULK_CLOSE = b"\n    }\n  ]\n]"


def _scalar(value: Any, indent: str) -> str:
    """Encode a JSON value as json.dumps(indent=2) would at nesting prefix ``indent``."""
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False).replace("\n", "\n" + indent)


def _members(pairs: list[tuple[str, str]], indent: str) -> str:
    inner = indent + "  "
    body = (",\n" + inner).join(f"{encode_basestring(k)}: {v}" for k, v in pairs)
    return "{\n" + inner + body + "\n" + indent + "}"


def _extra_pairs(record: Any, indent: str) -> list[tuple[str, str]]:
    """The record's unknown keys, encoded, in the order they were read."""
    return [(k, _scalar(v, indent)) for k, v in record.extra.items()]


def _version_block(version: TranslationVersion, indent: str) -> str:
    inner = indent + "  "
    pairs = [(k, _scalar(getattr(version, k), inner)) for k in _VERSION_KEYS]
    return _members(pairs + _extra_pairs(version, inner), indent)


def _versions_list(versions: tuple[TranslationVersion, ...], indent: str) -> str:
    if not versions:
        return "[]"
    inner = indent + "  "
    return "[\n" + inner + (",\n" + inner).join(_version_block(t, inner) for t in versions) + "\n" + indent + "]"


def _build_block(para: Paragraph) -> str:
    inner = _PARA_INDENT + "  "
    pairs = [
        ("id", encode_basestring(para.id)),
        ("text", encode_basestring(para.text)),
        ("translations", _versions_list(para.translations, inner)),
        ("selected_translation_id", _scalar(para.selected_translation_id, inner)),
        ("reviewed", "true" if para.reviewed else "false"),
    ]
    return _members(pairs + _extra_pairs(para, inner), _PARA_INDENT)


def _inner_of(para: Paragraph) -> bytes:
    """The paragraph's inner bytes, cached on it; built by hand (the paragraph-at-a-time path)."""
    inner = cached_inner(para)
    if inner is None:
        inner = para.cache(INNER, _build_block(para).encode("utf-8")[1:-6])
    return inner


def paragraph_utf8(para: Paragraph) -> bytes:
    """The canonical UTF-8 block of one paragraph object at its place in the file (its bytes are cached)."""
    return b"{" + _inner_of(para) + b"\n    }"


_TEXT_OR_NONE = (str, type(None))


def _plain(para: Paragraph) -> bool:
    """Whether orjson writes this paragraph exactly as json.dumps does: known keys only, holding strings,
    true/false and null where the format allows them (what the loader and the model's own functions produce).

    Type by type rather than by a tuple of types: this runs for every paragraph of a first save.
    """
    if para.extra or type(para.translations) is not tuple:
        return False
    strings = type(para.id) is type(para.text) is str
    if not (strings and type(para.reviewed) is bool and type(para.selected_translation_id) in _TEXT_OR_NONE):
        return False
    return all(_plain_version(version) for version in para.translations)


def _plain_version(version: Any) -> bool:
    """A version orjson writes as json.dumps does: the five fields as the format has them, at most a source hash."""
    if type(version) is not TranslationVersion or not _hash_only(version.extra):
        return False
    if type(version.model) not in _TEXT_OR_NONE:
        return False
    return type(version.id) is type(version.text) is type(version.origin) is type(version.created_at) is str


def _hash_only(extra: dict[str, Any]) -> bool:
    """No optional key but a string ``source_hash`` (what every version a run writes has)."""
    return not extra or (len(extra) == 1 and type(extra.get("source_hash")) is str)


def _fields(obj: Any) -> Any:
    """A plain paragraph's or version's keys as the file has them, for orjson (which does not know the records)."""
    if type(obj) is TranslationVersion:
        v = obj
        known = {"id": v.id, "text": v.text, "origin": v.origin, "model": v.model, "created_at": v.created_at}
        return {**known, **v.extra} if v.extra else known  # at most the source hash (_plain), after the five
    if type(obj) is Paragraph:
        p = obj
        return {
            "id": p.id,
            "text": p.text,
            "translations": p.translations,
            "selected_translation_id": p.selected_translation_id,
            "reviewed": p.reviewed,
        }
    raise TypeError(type(obj).__name__)


def _encode_together(paragraphs: list[Paragraph]) -> list[bytes] | None:
    """The inner bytes of plain paragraphs from one orjson call; None if orjson refuses (a lone surrogate)."""
    try:
        blob = orjson.dumps([paragraphs], default=_fields, option=orjson.OPT_INDENT_2)
    except orjson.JSONEncodeError:
        return None  # the hand-built path raises the UnicodeEncodeError the callers expect
    if not (blob.startswith(_BULK_OPEN) and blob.endswith(_BULK_CLOSE)):
        return None
    inners = blob[len(_BULK_OPEN) : -len(_BULK_CLOSE)].split(BETWEEN)
    return inners if len(inners) == len(paragraphs) else None


def _fill(paragraphs: tuple[Paragraph, ...], inners: list[bytes | None], missing: list[int]) -> None:
    """Fill the entries of ``inners`` at the positions ``missing`` (and the paragraphs' caches)."""
    together = []
    for i in missing:
        para = paragraphs[i]
        if cached_inner(para) is None and _plain(para):
            together.append(i)
        else:
            inners[i] = _inner_of(para)  # cached already, or written by hand
    if together:
        _fill_together(paragraphs, inners, together)


def _fill_together(paragraphs: tuple[Paragraph, ...], inners: list[bytes | None], together: list[int]) -> None:
    """Fill the entries at ``together`` (plain paragraphs) from one orjson call, by hand if orjson refuses."""
    encoded = _encode_together([paragraphs[i] for i in together])
    if encoded is None:
        for i in together:
            inners[i] = _inner_of(paragraphs[i])
        return
    for i, inner in zip(together, encoded, strict=True):
        inners[i] = inner
        paragraphs[i].__dict__[INNER] = inner  # Record.cache inlined: this runs once per paragraph of a first save


# Marks where the paragraphs go in the chapter's frame; the JSON encoder escapes every control character,
# so it cannot occur anywhere else in the text.
_HOLE = "\x00"


def _frame(chapter: Chapter, paragraphs: str) -> str:
    inner = "  "
    pairs = [(k, _scalar(getattr(chapter, k), inner)) for k in _CHAPTER_KEYS]
    pairs.append(("paragraphs", paragraphs))
    return _members(pairs + _extra_pairs(chapter, inner), "") + "\n"


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
    parts = cast("list[bytes]", list(inners))  # _fill left no None
    # The frame goes onto the first and last paragraphs, so the whole file is copied once, by one join.
    parts[0] = head.encode("utf-8") + LIST_OPEN + parts[0]
    parts[-1] = parts[-1] + LIST_CLOSE + tail.encode("utf-8")
    return BETWEEN.join(parts)
