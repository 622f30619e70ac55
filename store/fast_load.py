"""The loader's fast path: the chapter files we write, parsed by orjson and built straight into records.

``parse_fast`` returns the chapter, or None - never an error - for anything unusual, which
:mod:`store.loader`'s careful path (json hooks + pydantic) then accepts or explains; the two agree field for
field on every input (``tests/store/test_loader_fast.py``). orjson refuses NaN/Infinity, lone surrogates,
bad UTF-8 and deep nesting by itself; a repeated key, which it would silently collapse, is ruled out by a
proof over the bytes; types are checked by hand, and the frozen records are built as ``model_validate``
leaves them, without pydantic's per-object validation (which cost more than the parse).

The cyclic garbage collector is paused while a chapter is built (``gc_paused``): a 10,000-paragraph
chapter allocates ~100,000 container objects, and the collections they trigger cost more than the parse,
superlinearly (each full collection walks everything built so far).
"""

from __future__ import annotations

import gc
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson

from store.model import FORMAT, ORIGINS, Chapter, Paragraph, TranslationVersion
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


_CHAPTER_FIELDS = frozenset(Chapter.model_fields)
_PARA_KEYS = ("id", "text", "translations", "selected_translation_id", "reviewed")  # canonical order
_PARA_FIELDS = frozenset(_PARA_KEYS)
_VERSION_KEYS = ("id", "text", "origin", "model", "created_at")  # canonical order
_VERSION_FIELDS = frozenset(_VERSION_KEYS)
_ORIGIN_SET = frozenset(ORIGINS)
# Python's \S refuses a few characters pydantic's pattern accepts (\x1c-\x1f), never the other way round:
# an ID the fast path refuses is only sent to the careful path.
_ID = re.compile(r"\S+")
_KEY_SPACE = re.compile(rb'"[ \t\r\n]+:')
_new = object.__new__
_set = object.__setattr__


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
    if not indented and not _keys_all_distinct(raw, keys):
        return None
    if indented:
        keep_source(chapter, raw, plain)
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


def _extra_keys(value: Any) -> int:
    """The number of object keys nested in an unknown key's value; -1 if it holds a float or nests too deep.

    orjson reads integers beyond 64 bits as floats, so a float sends the file to the careful path (exact
    integers); depth is counted as :func:`store.loader._extras_too_deep` does.
    """
    keys = 0
    stack: list[tuple[Any, int]] = [(value, 4)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind is float or depth > MAX_DEPTH:
            return -1
        if kind is dict:
            keys += len(item)
            stack.extend((v, depth + 1) for v in item.values())
        elif kind is list:
            stack.extend((v, depth + 1) for v in item)
    return keys


def _record(cls: type, fields: dict[str, Any], extra: dict[str, Any], fields_set: set[str]) -> Any:
    """A record exactly as ``cls.model_validate`` leaves it, for data already checked."""
    obj = _new(cls)
    _set(obj, "__dict__", fields)
    _set(obj, "__pydantic_extra__", extra)
    _set(obj, "__pydantic_fields_set__", fields_set)
    _set(obj, "__pydantic_private__", None)
    return obj


# Plain records (exactly the known keys, in canonical order) share these: pydantic copies both before it
# changes them (``model_copy``), and the records are frozen, so no one mutates them in place.
_NO_EXTRA: dict[str, Any] = {}
_PLAIN_PARA_SET = set(_PARA_KEYS)
_PLAIN_VERSION_SET = set(_VERSION_KEYS)


def _ids_valid(ids: list[Any]) -> bool:
    """Whether every item is an identifier (a non-empty string without whitespace); one pass for the usual case."""
    try:
        joined = "!".join(ids)
    except TypeError:
        return False
    if joined.isascii() and joined.isprintable() and " " not in joined and "" not in ids:
        return True
    return all(type(i) is str and _ID.fullmatch(i) for i in ids)


def _versions(listed: Any, ids: list[Any]) -> tuple[tuple[TranslationVersion, ...], int, bool] | None:
    """A paragraph's checked versions, their number of object keys, and whether all are plain."""
    if type(listed) is not list:
        return None
    out = []
    keys = 0
    plain = True
    for v in listed:
        if type(v) is not dict:
            return None
        size = len(v)
        keys += size
        if size == 5 and tuple(v) == _VERSION_KEYS:
            model = v["model"]
            origin = v["origin"]
            if (
                type(v["id"]) is not str
                or type(v["text"]) is not str
                or type(v["created_at"]) is not str
                or type(origin) is not str
                or origin not in _ORIGIN_SET
                or (model is not None and type(model) is not str)
            ):
                return None
            ids.append(v["id"])
            obj = _new(TranslationVersion)
            _set(obj, "__dict__", v)
            _set(obj, "__pydantic_extra__", _NO_EXTRA)
            _set(obj, "__pydantic_fields_set__", _PLAIN_VERSION_SET)
            _set(obj, "__pydantic_private__", None)
            out.append(obj)
            continue
        plain = False
        origin = v.get("origin")
        model = v.get("model")
        text = v.get("text")
        created = v.get("created_at")
        if (
            type(v.get("id")) is not str
            or type(text) is not str
            or type(created) is not str
            or type(origin) is not str
            or origin not in _ORIGIN_SET
            or (model is not None and type(model) is not str)
        ):
            return None
        ids.append(v["id"])
        extra = {k: x for k, x in v.items() if k not in _VERSION_FIELDS}
        for value in extra.values():
            nested = _extra_keys(value)
            if nested < 0:
                return None
            keys += nested
        out.append(
            _record(
                TranslationVersion,
                {"id": v.get("id"), "text": text, "origin": origin, "model": model, "created_at": created},
                extra,
                set(v),
            )
        )
    return tuple(out), keys, plain


def _build(data: dict[str, Any]) -> tuple[Chapter, int, list[bool]] | None:
    """The chapter built from checked data, the number of object keys in ``data``, and which paragraphs are
    plain (exactly the known keys in canonical order, versions too).

    None as soon as anything is not plainly valid: the careful path then accepts or explains it. Plain
    records take the parsed dicts as their ``__dict__`` (their keys are the fields, in field order).
    """
    paras_in = data.get("paragraphs")
    if type(paras_in) is not list or data.get("format", FORMAT) != FORMAT:
        return None
    for key in ("title", "title_translation", "source_language", "target_language"):
        value = data.get(key)
        if value is not None and type(value) is not str:
            return None
    keys = len(data)
    top_extra = {k: v for k, v in data.items() if k not in _CHAPTER_FIELDS}
    for value in top_extra.values():
        nested = _extra_keys(value)
        if nested < 0:
            return None
        keys += nested

    paragraphs: list[Paragraph] = []
    plain: list[bool] = []
    ids: list[Any] = [data.get("id")]  # every identifier, checked at once at the end
    paragraph_ids: list[Any] = []
    for p in paras_in:
        if type(p) is not dict:
            return None
        size = len(p)
        keys += size
        if size == 5 and tuple(p) == _PARA_KEYS:
            pid, text, listed, sel, reviewed = p.values()
            if type(text) is not str or type(reviewed) is not bool or (sel is not None and type(sel) is not str):
                return None
            ok = True
            if type(listed) is not list:
                return None
            if len(listed) == 1 and type(v := listed[0]) is dict and len(v) == 5 and tuple(v) == _VERSION_KEYS:
                # The usual paragraph: one plain version (inlined: this loop runs for every paragraph).
                vid, vtext, origin, model, created = v.values()
                if (
                    type(vtext) is not str
                    or type(created) is not str
                    or type(origin) is not str
                    or origin not in _ORIGIN_SET
                    or (model is not None and type(model) is not str)
                    or (sel is not None and sel != vid)
                ):
                    return None
                keys += 5
                ids.append(vid)
                version = _new(TranslationVersion)
                _set(version, "__dict__", v)
                _set(version, "__pydantic_extra__", _NO_EXTRA)
                _set(version, "__pydantic_fields_set__", _PLAIN_VERSION_SET)
                _set(version, "__pydantic_private__", None)
                p["translations"] = (version,)
            elif listed:
                got = _versions(listed, ids)
                if got is None:
                    return None
                versions, nested, ok = got
                keys += nested
                p["translations"] = versions
                if sel is not None and _bad_selection(versions, sel):
                    return None
                if len(versions) > 1 and len({t.id for t in versions}) != len(versions):
                    return None
            elif sel is not None:
                return None
            else:
                p["translations"] = ()
            paragraph_ids.append(pid)
            obj = _new(Paragraph)
            _set(obj, "__dict__", p)
            _set(obj, "__pydantic_extra__", _NO_EXTRA)
            _set(obj, "__pydantic_fields_set__", _PLAIN_PARA_SET)
            _set(obj, "__pydantic_private__", None)
            paragraphs.append(obj)
            plain.append(ok)
            continue
        para = _paragraph(p, ids)
        if para is None:
            return None
        paragraph, nested = para
        keys += nested
        paragraph_ids.append(paragraph.id)
        paragraphs.append(paragraph)
        plain.append(False)
    ids += paragraph_ids
    if not _ids_valid(ids):
        return None
    positions = dict(zip(paragraph_ids, range(len(paragraph_ids)), strict=True))
    if len(positions) != len(paragraph_ids):
        return None  # a paragraph ID twice: the careful path names both places
    chapter = _record(
        Chapter,
        {
            "format": data.get("format", FORMAT),
            "id": data.get("id"),
            "title": data.get("title"),
            "title_translation": data.get("title_translation"),
            "source_language": data.get("source_language"),
            "target_language": data.get("target_language"),
            "paragraphs": tuple(paragraphs),
        },
        top_extra,
        set(data),
    )
    chapter.cache("positions", positions)
    return chapter, keys, plain


def _bad_selection(versions: tuple[TranslationVersion, ...], sel: str) -> bool:
    return all(t.id != sel for t in versions)


def _paragraph(p: dict[str, Any], ids: list[Any]) -> tuple[Paragraph, int] | None:
    """A paragraph that is not plain (keys missing, out of order or unknown), checked, with its nested key count."""
    text = p.get("text")
    sel = p.get("selected_translation_id")
    reviewed = p.get("reviewed", False)
    if (
        "id" not in p
        or type(text) is not str
        or type(reviewed) is not bool
        or (sel is not None and type(sel) is not str)
    ):
        return None
    keys = 0
    versions: tuple[TranslationVersion, ...] = ()
    listed = p.get("translations", ())
    if listed != ():
        got = _versions(listed, ids)
        if got is None:
            return None
        versions, keys, _ = got
    if sel is not None and _bad_selection(versions, sel):
        return None
    if len(versions) > 1 and len({t.id for t in versions}) != len(versions):
        return None
    extra = {k: x for k, x in p.items() if k not in _PARA_FIELDS}
    for value in extra.values():
        nested = _extra_keys(value)
        if nested < 0:
            return None
        keys += nested
    return _record(
        Paragraph,
        {"id": p["id"], "text": text, "translations": versions, "selected_translation_id": sel, "reviewed": reviewed},
        extra,
        set(p),
    ), keys
