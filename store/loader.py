"""Loading chapter files, turning every kind of bad input into one clear line.

Two paths that agree on every input (``tests/store/test_loader_fast.py`` checks it): first the fast path of
:mod:`store.fast_load` (orjson, built records), which takes the files we write and declines anything unusual
without judging it; then, for what it declines, the careful path here: ``json.loads`` with two hooks
(duplicate keys, NaN/Infinity) followed by pydantic validation, which accepts what is valid and locates every
problem (line:column for JSON, a field path for the schema). The garbage collector is paused meanwhile.
"""

from __future__ import annotations

import json
import re
from json import scanner as _scanner
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from store.errors import ChapterLoadError
from store.fast_load import MAX_DEPTH as _MAX_DEPTH
from store.fast_load import gc_paused, parse_fast
from store.model import FORMAT, Chapter
from store.validation_text import field_path

_BOM = b"\xef\xbb\xbf"


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


def _describe_validation(err: ValidationError, data: Any) -> str:
    first = err.errors(include_url=False)[0]
    loc = tuple(first["loc"])
    kind = first["type"]
    path = field_path(loc, "(top level)")
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
        raw = raw[len(_BOM) :]
    if not raw or ((raw[:1].isspace() or raw[-1:].isspace()) and not raw.strip()):
        raise ChapterLoadError(name, None, "the file is empty; expected a JSON chapter object")
    with gc_paused():
        chapter = parse_fast(raw)
        return chapter if chapter is not None else _parse_careful(raw, name)


def _parse_careful(raw: bytes, name: str) -> Chapter:
    """The careful path: accepts every valid chapter and turns every problem into its one-line error."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        head = raw[: exc.start].decode("utf-8", errors="replace")
        line, col = _line_col(head, len(head))
        raise ChapterLoadError(
            name,
            f"{line}:{col}",
            f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); chapter files must be UTF-8",
        ) from None
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
        raise ChapterLoadError(
            name, f"{line}:{col}", f"invalid JSON: key {key!r} appears twice in the object starting here"
        ) from None
    except _BadConstant as bad:
        pos, _ = _scan_outside_strings(text)
        where = "{}:{}".format(*_line_col(text, pos)) if pos is not None else None
        raise ChapterLoadError(name, where, f"invalid JSON: {bad.name} is not a JSON number") from None
    except RecursionError:
        _, pos = _scan_outside_strings(text)
        where = "{}:{}".format(*_line_col(text, pos)) if pos is not None else None
        raise ChapterLoadError(name, where, f"invalid JSON: nested more than {_MAX_DEPTH} levels deep") from None
    if "\\u" in text and _SURROGATE_ESCAPE.search(text) and (bad := _lone_surrogate_path(data)) is not None:
        raise ChapterLoadError(
            name,
            bad,
            "contains a lone UTF-16 surrogate escape (\\ud800-\\udfff without "
            "its pair), which is not text and could never be saved",
        )
    return chapter_from_data(data, name, text)


def chapter_from_data(data: Any, name: str, text: str | None = None) -> Chapter:
    """Validate parsed JSON data as a chapter, with the same one-line errors as :func:`parse_chapter`."""
    if not isinstance(data, dict):
        raise ChapterLoadError(name, None, f'expected a JSON object with "paragraphs", got a {type(data).__name__}')
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
                raise ChapterLoadError(
                    name,
                    f"paragraphs[{i}].id",
                    f"duplicate paragraph id {para.id!r} (also paragraphs[{seen[para.id]}].id); IDs must be unique",
                )
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
