"""The loader's fast path: the chapter files we write, parsed by orjson and built straight into records.

``parse_fast`` returns the chapter, or None - never an error - for anything unusual, which
:mod:`store.loader`'s careful path (json hooks + pydantic) then accepts or explains; the two agree field for
field on every input (``tests/store/test_loader_fast.py``). orjson refuses NaN/Infinity, lone surrogates,
bad UTF-8 and deep nesting by itself; a repeated key, which it would silently collapse, is ruled out by a
proof over the bytes; types are checked by hand, and the frozen records are built from the checked values.

The cyclic garbage collector is paused while a chapter is built (``gc_paused``): a 10,000-paragraph
chapter allocates ~100,000 container objects, and the collections they trigger cost more than the parse,
superlinearly (each full collection walks everything built so far).
"""

from __future__ import annotations

import gc
import re
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import orjson

from store.model import FORMAT, NO_EXTRA, ORIGINS, Chapter, Paragraph, TranslationVersion
from store.paragraph_bytes import keep_source

MAX_DEPTH = 200  # far deeper than any chapter; keeps us well clear of RecursionError

_gc_guard = threading.Lock()
_gc_pauses = 0
_gc_resume = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector; loads on several threads share one pause.

    Reference counting still frees everything as usual; only the cycle search waits until the chapter is built.
    """
    global _gc_pauses, _gc_resume
    with _gc_guard:
        if _gc_pauses == 0:
            _gc_resume = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _gc_guard:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_resume:
                gc.enable()


_CHAPTER_KEYS = ("format", "id", "title", "title_translation", "source_language", "target_language")
_CHAPTER_TEXTS = _CHAPTER_KEYS[2:]  # each a string or null
_CHAPTER_FIELDS = frozenset((*_CHAPTER_KEYS, "paragraphs"))
_PARA_KEYS = ("id", "text", "translations", "selected_translation_id", "reviewed")  # canonical order
_PARA_FIELDS = frozenset(_PARA_KEYS)
_VERSION_KEYS = ("id", "text", "origin", "model", "created_at")  # canonical order
# The usual version a run writes now: the five keys and the hash of the source it was made for.
_HASHED_KEYS = (*_VERSION_KEYS, "source_hash")
_VERSION_FIELDS = frozenset(_VERSION_KEYS)
_ORIGIN_SET = frozenset(ORIGINS)
# Python's \S refuses a few characters pydantic's pattern accepts (\x1c-\x1f), never the other way round:
# an ID the fast path refuses is only sent to the careful path.
_ID = re.compile(r"\S+")
_KEY_SPACE = re.compile(rb'"[ \t\r\n]+:')


def parse_fast(raw: bytes) -> Chapter | None:
    """The chapter in ``raw`` when it is plainly valid; None (never an error) when the careful path must decide."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None  # NaN, Infinity, bad UTF-8, a lone surrogate, > 1024 levels, a syntax error, ...
    if type(data) is not dict:
        return None
    # In the indented form (every file we write) the file *is* orjson's rendering of the parsed data: then no
    # object can repeat a key, and the paragraphs' bytes in it can serve as their serialised form.
    indented = _is_indented_form(raw, data)
    built = _build(data)
    if built is None:
        return None
    chapter, keys, plain = built
    if indented:
        keep_source(chapter, raw, plain)
    elif not _keys_all_distinct(raw, keys):
        return None
    return chapter


def _is_indented_form(raw: bytes, data: dict[str, Any]) -> bool:
    """Whether ``raw`` is exactly ``orjson.dumps(data, option=OPT_INDENT_2) + b"\\n"``."""
    if not (raw.startswith(b'{\n  "') and raw.endswith(b"\n}\n")):
        return False
    try:
        dumped = orjson.dumps(data, option=orjson.OPT_INDENT_2)
    except orjson.JSONEncodeError:
        return False
    return len(dumped) + 1 == len(raw) and raw.startswith(dumped)


def _keys_all_distinct(raw: bytes, keys: int) -> bool:
    """Proof that no object in ``raw`` repeats a key, given ``keys``, the number of keys in the parsed data.

    Every key ends with a closing quote, optional whitespace and a colon. With no whitespace there, each key
    in the text is one occurrence of ``":`` (occurrences inside strings only add to the count), so the count
    is at least the number of keys written. If it equals the number of keys that survived parsing, no key
    was written twice. Any doubt (whitespace before a colon, a string holding ``":``) declines.
    """
    return raw.count(b'":') == keys and _KEY_SPACE.search(raw) is None


def nested_keys(values: Iterable[Any], *, floats: bool = False) -> int:
    """The number of object keys nested in unknown keys' values (JSON data); -1 if one nests more than
    ``MAX_DEPTH`` levels deep in the file (the values sit at depth 4), or holds a float unless ``floats``.

    orjson reads integers beyond 64 bits as floats, so for the fast path a float sends the file to the careful
    path (exact integers); the careful path counts depth with this same walk.
    """
    keys = 0
    stack: list[tuple[Any, int]] = [(value, 4) for value in values]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if depth > MAX_DEPTH or (kind is float and not floats):
            return -1
        if kind is dict:
            keys += len(item)
            stack.extend((v, depth + 1) for v in item.values())
        elif kind is list:
            stack.extend((v, depth + 1) for v in item)
    return keys


def _extras(data: dict[str, Any], known: frozenset[str]) -> tuple[dict[str, Any], int] | None:
    """An object's unknown keys and the object keys nested in them; None if one holds a float or nests too deep."""
    extra = {k: v for k, v in data.items() if k not in known}
    nested = nested_keys(extra.values())
    return (extra, nested) if nested >= 0 else None


_NONE = type(None)
# The value types a version may hold, in canonical key order (id, text, origin, model, created_at), and those
# of a paragraph's text, selected_translation_id and reviewed; IDs are checked together at the end.
_VERSION_SHAPES = frozenset({(str, str, str, str, str), (str, str, str, _NONE, str)})
_PARA_SHAPES = frozenset({(str, str, bool), (str, _NONE, bool)})
_TEXT_OR_NONE = (str, _NONE)


def _ids_valid(ids: list[Any]) -> bool:
    """Whether every item is an identifier (a non-empty string without whitespace); one pass for the usual case."""
    try:
        joined = "!".join(ids)
    except TypeError:
        return False
    if joined.isascii() and joined.isprintable() and " " not in joined and "" not in ids:
        return True
    return all(_ID.fullmatch(i) for i in ids)  # all strings: they joined


def _version(v: Any, ids: list[Any]) -> tuple[TranslationVersion, int, bool] | None:
    """A checked version, its number of object keys, and whether it is plain (the known keys, in order)."""
    if type(v) is not dict or tuple(map(type, map(v.get, _VERSION_KEYS))) not in _VERSION_SHAPES:
        return None
    extras = _extras(v, _VERSION_FIELDS)
    if extras is None or v["origin"] not in _ORIGIN_SET:
        return None
    ids.append(v["id"])
    extra, nested = extras
    version = TranslationVersion(
        id=v["id"], text=v["text"], origin=v["origin"], model=v.get("model"), created_at=v["created_at"], extra=extra
    )
    return version, len(v) + nested, _plain_keys(v)


def _plain_keys(v: dict[str, Any]) -> bool:
    """The known keys in canonical order, perhaps with a string ``source_hash`` after them."""
    keys = tuple(v)
    return keys == _VERSION_KEYS or (keys == _HASHED_KEYS and type(v["source_hash"]) is str)


def _versions(listed: Any, ids: list[Any]) -> tuple[tuple[TranslationVersion, ...], int, bool] | None:
    """A paragraph's checked versions, their number of object keys, and whether all are plain."""
    if type(listed) is not list:
        return None
    out = []
    keys = 0
    plain = True
    for v in listed:
        got = _version(v, ids)
        if got is None:
            return None
        version, nested, is_plain = got
        out.append(version)
        keys += nested
        plain &= is_plain
    return tuple(out), keys, plain


def _paragraph(p: Any, ids: list[Any]) -> tuple[Paragraph, int, bool] | None:
    """Any paragraph object, checked: the record, its number of object keys, and whether it is plain (the known
    keys in canonical order, its versions too)."""
    if type(p) is not dict or "id" not in p:
        return None
    text, sel, reviewed = p.get("text"), p.get("selected_translation_id"), p.get("reviewed", False)
    if (type(text), type(sel), type(reviewed)) not in _PARA_SHAPES:
        return None
    got = _versions(p.get("translations", []), ids)
    extras = _extras(p, _PARA_FIELDS)
    if got is None or extras is None:
        return None
    versions, keys, plain = got
    extra, nested = extras
    paragraph = Paragraph(
        id=p["id"], text=p["text"], translations=versions, selected_translation_id=sel, reviewed=reviewed, extra=extra
    )
    if paragraph.problem() is not None:
        return None
    return paragraph, len(p) + keys + nested, plain and tuple(p) == _PARA_KEYS


def _usual(p: Any) -> bool:
    """Whether ``p`` is the usual paragraph: the known keys in order, no version or one with the known keys in
    order, every value plainly valid (IDs aside, checked together at the end). Any other paragraph goes to
    :func:`_paragraph`, which decides."""
    if type(p) is not dict or tuple(p) != _PARA_KEYS:
        return False
    _, text, listed, sel, reviewed = p.values()
    if type(text) is not str or type(reviewed) is not bool or type(listed) is not list or len(listed) > 1:
        return False
    if not listed:
        return sel is None
    return _is_usual_version(listed[0], sel)


def _is_usual_version(v: Any, sel: Any) -> bool:
    """The one version of a usual paragraph: the known keys in order (a source hash after them), plainly valid."""
    if type(v) is not dict or not _plain_keys(v):
        return False
    vid, text, origin, model, created = (v["id"], v["text"], v["origin"], v["model"], v["created_at"])
    strings = type(text) is type(origin) is type(created) is str
    return strings and origin in _ORIGIN_SET and type(model) in _TEXT_OR_NONE and sel in (None, vid)


def _usual_paragraph(p: dict[str, Any], ids: list[Any]) -> Paragraph:
    """The record of a usual paragraph (checked by :func:`_usual`); its version's ID goes to ``ids``.

    Keywords spelled out, values taken in key order: this runs for every paragraph of a chapter."""
    pid, text, listed, sel, reviewed = p.values()
    versions: tuple[TranslationVersion, ...] = ()
    if listed:
        vid, vtext, origin, model, created, *hashed = listed[0].values()
        ids.append(vid)
        extra = {"source_hash": hashed[0]} if hashed else NO_EXTRA
        version = TranslationVersion(id=vid, text=vtext, origin=origin, model=model, created_at=created, extra=extra)
        versions = (version,)
    return Paragraph(
        id=pid, text=text, translations=versions, selected_translation_id=sel, reviewed=reviewed, extra=NO_EXTRA
    )


def _paragraphs(
    listed: list[Any], ids: list[Any], paragraph_ids: list[Any]
) -> tuple[list[Paragraph], list[bool], int] | None:
    """The checked paragraphs, whether each is plain, and their number of object keys; None as soon as one is
    not plainly valid. Version IDs go to ``ids``, paragraph IDs to ``paragraph_ids``."""
    paragraphs: list[Paragraph] = []
    plain: list[bool] = []
    keys = 0
    for p in listed:
        if not _usual(p):
            got = _paragraph(p, ids)
            if got is None:
                return None
            paragraph, nested, is_plain = got
            paragraph_ids.append(paragraph.id)
            paragraphs.append(paragraph)
            plain.append(is_plain)
            keys += nested
            continue
        keys += 5 + (len(p["translations"][0]) if p["translations"] else 0)
        paragraph_ids.append(p["id"])
        paragraphs.append(_usual_paragraph(p, ids))
        plain.append(True)
    return paragraphs, plain, keys


def _head(data: dict[str, Any]) -> tuple[dict[str, Any], int] | None:
    """The chapter's unknown keys and the number of object keys outside its paragraphs, when its own fields are
    plainly valid."""
    if type(data.get("paragraphs")) is not list or data.get("format", FORMAT) != FORMAT:
        return None
    if any(type(data.get(key)) not in _TEXT_OR_NONE for key in _CHAPTER_TEXTS):
        return None
    extras = _extras(data, _CHAPTER_FIELDS)
    if extras is None:
        return None
    extra, nested = extras
    return extra, len(data) + nested


def _build(data: dict[str, Any]) -> tuple[Chapter, int, list[bool]] | None:
    """The chapter built from checked data, the number of object keys in ``data``, and which paragraphs are
    plain (exactly the known keys in canonical order, versions too).

    None as soon as anything is not plainly valid: the careful path then accepts or explains it.
    """
    head = _head(data)
    if head is None:
        return None
    top_extra, top_keys = head
    ids: list[Any] = [data.get("id")]  # every identifier, checked at once at the end
    paragraph_ids: list[Any] = []
    body = _paragraphs(data["paragraphs"], ids, paragraph_ids)
    if body is None:
        return None
    paragraphs, plain, keys = body
    ids += paragraph_ids
    if not _ids_valid(ids):
        return None
    positions = dict(zip(paragraph_ids, range(len(paragraph_ids)), strict=True))
    if len(positions) != len(paragraph_ids):
        return None  # a paragraph ID twice: the careful path names both places
    fields: dict[str, Any] = {k: data.get(k) for k in _CHAPTER_TEXTS}
    chapter = Chapter(id=data["id"], **fields, paragraphs=tuple(paragraphs), extra=top_extra)
    chapter.cache("positions", positions)
    return chapter, top_keys + keys, plain
