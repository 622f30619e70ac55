"""Loading chapter files, turning every kind of bad input into one clear line.

Two paths that agree on every input (``tests/store/test_loader_fast.py`` checks it):

* the fast path, for the files we write: ``orjson`` (which refuses NaN/Infinity, lone surrogates and bad
  UTF-8 by itself), a proof that no object repeats a key, plain type checks, and the frozen records built
  directly (``Paragraph`` etc. without pydantic's per-object validation). It declines - returns None -
  on anything unusual, without deciding whether it is an error;
* the careful path: ``json.loads`` with two hooks (duplicate keys, NaN/Infinity) followed by pydantic
  validation, which accepts what is valid and locates every problem (line:column for JSON, a field path
  for the schema).

The cyclic garbage collector is paused while a chapter is built: a 10,000-paragraph chapter allocates
~100,000 container objects, and the collections they trigger cost more than the parse (superlinearly:
each full collection walks everything built so far).
"""

from __future__ import annotations

import gc
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from json import scanner as _scanner
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from store.errors import ChapterLoadError
from store.model import FORMAT, ORIGINS, Chapter, Paragraph, TranslationVersion
from store.serialize import keep_source

_BOM = b"\xef\xbb\xbf"
_MAX_DEPTH = 200  # far deeper than any chapter; keeps us well clear of RecursionError


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


class _BadConstant(Exception):
    def __init__(self, name: str) -> None:
        self.name = name


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


def _reject_constant(name: str) -> Any:
    raise _BadConstant(name)


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col


# A JSON string literal, or one of the tokens we need to find outside strings.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|(NaN|-?Infinity)|([\[{])|([\]}])', re.S)


def _scan_outside_strings(text: str) -> tuple[int | None, int | None]:
    """Position of the first NaN/Infinity token and of the first too-deep bracket, outside strings."""
    depth = 0
    constant_at = deep_at = None
    for m in _TOKENS.finditer(text):
        if m.group(1) and constant_at is None:
            constant_at = m.start()
        elif m.group(2):
            depth += 1
            if depth > _MAX_DEPTH and deep_at is None:
                deep_at = m.start()
        elif m.group(3):
            depth -= 1
        if constant_at is not None and deep_at is not None:
            break
    return constant_at, deep_at


def _locate_duplicate(text: str) -> tuple[int, str]:
    """Re-parse with the pure-Python scanner to find where the duplicate key's object starts."""
    starts: list[int] = []
    decoder = json.JSONDecoder(object_pairs_hook=_pairs_hook, parse_constant=lambda n: None)
    original = decoder.parse_object

    def parse_object(s_and_end: tuple[str, int], *args: Any) -> Any:
        starts.append(s_and_end[1] - 1)
        result = original(s_and_end, *args)
        starts.pop()
        return result

    decoder.parse_object = parse_object  # type: ignore[assignment]
    decoder.scan_once = _scanner.py_make_scanner(decoder)
    try:
        decoder.decode(text)
    except _DuplicateKey as dup:
        return (starts[-1] if starts else 0), dup.key
    return 0, "?"


# A \uD800-\uDFFF escape: half of a UTF-16 pair. Paired halves decode to one character; a lone one
# survives json.loads as a surrogate that cannot be encoded as UTF-8, so the chapter could never be saved.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _lone_surrogate_path(data: Any) -> str | None:
    """The field path of the first string (key or value) holding a lone surrogate, or None."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return path or "(top level)"
        elif isinstance(value, dict):
            for key, item in value.items():
                stack.append((key, f"{path}.{key!r}" if path else repr(key)))
                stack.append((item, f"{path}.{key}" if path else key))
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{i}]") for i, item in enumerate(value))
    return None


def _field_path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def _describe_validation(err: ValidationError, data: Any) -> str:
    first = err.errors(include_url=False)[0]
    loc = tuple(first["loc"])
    kind = first["type"]
    path = _field_path(loc)
    got = first.get("input")
    if isinstance(got, dict):
        shown = "an object"
    elif isinstance(got, list):
        shown = "a list"
    else:
        shown = json.dumps(got, ensure_ascii=False)[:40]
    expected = {
        "missing": "a required field is missing",
        "string_type": f"expected a string, got {shown}",
        "bool_type": f"expected true or false, got {shown}",
        "bool_parsing": f"expected true or false, got {shown}",
        "tuple_type": f"expected a list, got {shown}",
        "list_type": f"expected a list, got {shown}",
        "model_type": f"expected an object, got {shown}",
        "model_attributes_type": f"expected an object, got {shown}",
        "dict_type": f"expected an object, got {shown}",
        "literal_error": f"expected {first.get('ctx', {}).get('expected', 'another value')}, got {shown}",
        "string_too_short": "expected a non-empty string",
        "string_pattern_mismatch": f"expected an identifier without whitespace, got {shown}",
    }.get(kind, first["msg"].removeprefix("Value error, "))
    if kind == "missing":
        return f"{path}: required field is missing"
    return f"{path}: {expected}"


def parse_chapter(raw: bytes, source: str | Path) -> Chapter:
    """Parse chapter bytes; raise :class:`ChapterLoadError` with one line naming ``source`` and the place."""
    name = str(source)
    if raw.startswith(_BOM):
        raw = raw[len(_BOM):]
    if not raw or ((raw[:1].isspace() or raw[-1:].isspace()) and not raw.strip()):
        raise ChapterLoadError(name, None, "the file is empty; expected a JSON chapter object")
    with _gc_paused():
        chapter = _parse_fast(raw)
        return chapter if chapter is not None else _parse_careful(raw, name)


def _parse_careful(raw: bytes, name: str) -> Chapter:
    """The careful path: accepts every valid chapter and turns every problem into its one-line error."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        head = raw[: exc.start].decode("utf-8", errors="replace")
        line, col = _line_col(head, len(head))
        raise ChapterLoadError(name, f"{line}:{col}", f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset "
                               f"{exc.start}); chapter files must be UTF-8") from None
    try:
        data = json.loads(text, object_pairs_hook=_pairs_hook, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        what = exc.msg
        if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
            what = f"{exc.msg}: the file ends too early (truncated?)"
        raise ChapterLoadError(name, f"{exc.lineno}:{exc.colno}", f"invalid JSON: {what}") from None
    except _DuplicateKey:
        pos, key = _locate_duplicate(text)
        line, col = _line_col(text, pos)
        raise ChapterLoadError(name, f"{line}:{col}", f"invalid JSON: key {key!r} appears twice in the object "
                               "starting here") from None
    except _BadConstant as bad:
        pos, _ = _scan_outside_strings(text)
        where = "{}:{}".format(*_line_col(text, pos)) if pos is not None else None
        raise ChapterLoadError(name, where, f"invalid JSON: {bad.name} is not a JSON number") from None
    except RecursionError:
        _, pos = _scan_outside_strings(text)
        where = "{}:{}".format(*_line_col(text, pos)) if pos is not None else None
        raise ChapterLoadError(name, where, f"invalid JSON: nested more than {_MAX_DEPTH} levels deep") from None
    if "\\u" in text and _SURROGATE_ESCAPE.search(text) and (bad := _lone_surrogate_path(data)) is not None:
        raise ChapterLoadError(name, bad, "contains a lone UTF-16 surrogate escape (\\ud800-\\udfff without "
                               "its pair), which is not text and could never be saved")
    return chapter_from_data(data, name, text)


def chapter_from_data(data: Any, name: str, text: str | None = None) -> Chapter:
    """Validate parsed JSON data as a chapter, with the same one-line errors as :func:`parse_chapter`."""
    if not isinstance(data, dict):
        raise ChapterLoadError(name, None, f"expected a JSON object with \"paragraphs\", got a {type(data).__name__}")
    if data.get("format", FORMAT) != FORMAT:
        raise ChapterLoadError(name, "format", f"expected {FORMAT!r}, got {json.dumps(data['format'])[:40]}")
    if "paragraphs" not in data:
        raise ChapterLoadError(name, "paragraphs", "required field is missing (expected a list of paragraphs)")
    try:
        chapter = Chapter.model_validate(data)
    except ValidationError as exc:
        raise ChapterLoadError(name, None, _describe_validation(exc, data)) from None
    except RecursionError:
        raise ChapterLoadError(name, None, f"invalid chapter: nested more than {_MAX_DEPTH} levels deep") from None
    if _extras_too_deep(chapter):
        where = None
        if text is not None:
            _, pos = _scan_outside_strings(text)
            where = "{}:{}".format(*_line_col(text, pos)) if pos is not None else None
        raise ChapterLoadError(name, where, f"invalid chapter: nested more than {_MAX_DEPTH} levels deep")
    for i, para in enumerate(chapter.paragraphs):
        if (para.translations or para.selected_translation_id is not None) and (problem := para.problem()):
            raise ChapterLoadError(name, f"paragraphs[{i}]", problem)
    positions = chapter.positions
    if len(positions) != len(chapter.paragraphs):
        seen: dict[str, int] = {}
        for i, para in enumerate(chapter.paragraphs):
            if para.id in seen:
                raise ChapterLoadError(name, f"paragraphs[{i}].id", f"duplicate paragraph id {para.id!r} "
                                       f"(also paragraphs[{seen[para.id]}].id); IDs must be unique")
            seen[para.id] = i
    return chapter


def _extras_too_deep(chapter: Chapter) -> bool:
    """Unknown keys are the only place arbitrary nesting can hide; check just those."""
    roots: list[Any] = list((chapter.__pydantic_extra__ or {}).values())
    for para in chapter.paragraphs:
        if para.__pydantic_extra__:
            roots.extend(para.__pydantic_extra__.values())
        for version in para.translations:
            if version.__pydantic_extra__:
                roots.extend(version.__pydantic_extra__.values())
    stack: list[tuple[Any, int]] = [(v, 4) for v in roots]
    while stack:
        value, depth = stack.pop()
        if depth > _MAX_DEPTH:
            return True
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
    return False


# -- the fast path -----------------------------------------------------------------------------------------

_gc_guard = threading.Lock()
_gc_pauses = 0
_gc_resume = False


@contextmanager
def _gc_paused() -> Iterator[None]:
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
_MISSING: Any = object()
_new = object.__new__
_set = object.__setattr__


def _parse_fast(raw: bytes) -> Chapter | None:
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
    integers); depth is counted as :func:`_extras_too_deep` does.
    """
    keys = 0
    stack: list[tuple[Any, int]] = [(value, 4)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind is float or depth > _MAX_DEPTH:
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
            if (type(v["id"]) is not str or type(v["text"]) is not str or type(v["created_at"]) is not str
                    or type(origin) is not str or origin not in _ORIGIN_SET
                    or (model is not None and type(model) is not str)):
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
        if (type(v.get("id")) is not str or type(text) is not str or type(created) is not str
                or type(origin) is not str or origin not in _ORIGIN_SET
                or (model is not None and type(model) is not str)):
            return None
        ids.append(v["id"])
        extra = {k: x for k, x in v.items() if k not in _VERSION_FIELDS}
        for value in extra.values():
            nested = _extra_keys(value)
            if nested < 0:
                return None
            keys += nested
        out.append(_record(TranslationVersion, {"id": v.get("id"), "text": text, "origin": origin, "model": model,
                                                "created_at": created}, extra, set(v)))
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
                if (type(vtext) is not str or type(created) is not str or type(origin) is not str
                        or origin not in _ORIGIN_SET or (model is not None and type(model) is not str)
                        or (sel is not None and sel != vid)):
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
    chapter = _record(Chapter, {
        "format": data.get("format", FORMAT), "id": data.get("id"), "title": data.get("title"),
        "title_translation": data.get("title_translation"), "source_language": data.get("source_language"),
        "target_language": data.get("target_language"), "paragraphs": tuple(paragraphs),
    }, top_extra, set(data))
    chapter.cache("positions", positions)
    return chapter, keys, plain


def _bad_selection(versions: tuple[TranslationVersion, ...], sel: str) -> bool:
    return all(t.id != sel for t in versions)


def _paragraph(p: dict[str, Any], ids: list[Any]) -> tuple[Paragraph, int] | None:
    """A paragraph that is not plain (keys missing, out of order or unknown), checked, with its nested key count."""
    text = p.get("text")
    sel = p.get("selected_translation_id")
    reviewed = p.get("reviewed", False)
    if ("id" not in p or type(text) is not str or type(reviewed) is not bool
            or (sel is not None and type(sel) is not str)):
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
    return _record(Paragraph, {"id": p["id"], "text": text, "translations": versions, "selected_translation_id": sel,
                               "reviewed": reviewed}, extra, set(p)), keys


def load_chapter(path: str | Path) -> Chapter:
    """Read and parse a chapter file; raise :class:`ChapterLoadError` (one line) for any problem."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise ChapterLoadError(str(path), None, "is a folder, not a chapter file") from None
    except FileNotFoundError:
        raise ChapterLoadError(str(path), None, "no such file") from None
    except OSError as exc:
        raise ChapterLoadError(str(path), None, f"cannot be read: {exc.strerror or exc}") from None
    return parse_chapter(raw, path)
