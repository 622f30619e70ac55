"""Loading chapter files, turning every kind of bad input into one clear line.

Two paths that agree on every input (``tests/store/test_loader_fast.py`` checks it): first the fast path of
:mod:`store.fast_load` (orjson, built records), which takes the files we write and declines anything unusual
without judging it; then, for what it declines, the careful path here: ``json.loads`` with two hooks
(duplicate keys, NaN/Infinity) followed by pydantic validation (:mod:`store.model_check`, imported only then), which
accepts what is valid and locates every problem (line:column for JSON, a field path for the schema). The garbage
collector is paused meanwhile.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from itertools import chain
from json import scanner as _scanner
from pathlib import Path
from typing import Any, Protocol, cast

from store.errors import ChapterLoadError
from store.fast_load import MAX_DEPTH as _MAX_DEPTH
from store.fast_load import gc_paused, nested_keys, parse_fast
from store.model import FORMAT, Chapter, Paragraph, TranslationVersion, first_repeated

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
        raise _DuplicateKey(first_repeated(key for key, _ in pairs) or "?")
    return obj


def _reject_constant(name: str) -> Any:
    raise _BadConstant(name)


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, col


def _where(text: str | None, pos: int | None) -> str | None:
    """``line:col`` of ``pos`` in ``text``, or None when either is unknown."""
    if text is None or pos is None:
        return None
    return "{}:{}".format(*_line_col(text, pos))


# A JSON string literal, or one of the tokens we need to find outside strings.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|(NaN|-?Infinity)|([\[{])|([\]}])', re.S)


_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _first_constant(text: str) -> int | None:
    """Position of the first NaN/Infinity token outside strings."""
    return next((m.start() for m in _TOKENS.finditer(text) if m.group(1)), None)


def _first_too_deep(text: str | None) -> int | None:
    """Position of the first bracket nested more than ``MAX_DEPTH`` deep, outside strings."""
    depth = 0
    for m in _TOKENS.finditer(text or ""):
        depth += _DEPTH_STEP.get(m.group(), 0)
        if depth > _MAX_DEPTH:
            return m.start()
    return None


class _PurePythonScanner(Protocol):
    """The parts of ``json``'s pure-Python decoder that typeshed leaves out (private, but stable since 2.6)."""

    parse_object: Callable[..., tuple[dict[str, Any], int]]
    scan_once: Callable[[str, int], tuple[Any, int]]


class _ScannerModule(Protocol):
    def py_make_scanner(self, context: json.JSONDecoder) -> Callable[[str, int], tuple[Any, int]]: ...


def _locate_duplicate(text: str) -> tuple[int, str]:
    """Re-parse with the pure-Python scanner to find where the duplicate key's object starts."""
    starts: list[int] = []
    decoder = json.JSONDecoder(object_pairs_hook=_pairs_hook, parse_constant=lambda n: None)
    scanner = cast(_PurePythonScanner, decoder)
    original = scanner.parse_object

    def parse_object(s_and_end: tuple[str, int], *args: Any) -> tuple[dict[str, Any], int]:
        starts.append(s_and_end[1] - 1)
        result = original(s_and_end, *args)
        starts.pop()
        return result

    scanner.parse_object = parse_object
    scanner.scan_once = cast(_ScannerModule, _scanner).py_make_scanner(decoder)
    try:
        decoder.decode(text)
    except _DuplicateKey as dup:
        return (starts[-1] if starts else 0), dup.key
    return 0, "?"


# A \uD800-\uDFFF escape: half of a UTF-16 pair. Paired halves decode to one character; a lone one
# survives json.loads as a surrogate that cannot be encoded as UTF-8, so the chapter could never be saved.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _children(value: Any, path: str) -> list[tuple[Any, str]]:
    """The keys and items of a JSON object or list with their field paths (a key's own path ends in its repr)."""
    if isinstance(value, list):
        return [(item, f"{path}[{i}]") for i, item in enumerate(value)]
    if not isinstance(value, dict):
        return []
    prefix = f"{path}." if path else ""
    return [pair for key, item in value.items() for pair in ((key, prefix + repr(key)), (item, prefix + key))]


def _lone_surrogate_path(data: Any) -> str | None:
    """The field path of the first string (key or value) holding a lone surrogate, or None."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str) and not _encodable(value):
            return path or "(top level)"
        stack.extend(_children(value, path))
    return None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def parse_chapter(raw: bytes, source: str | Path) -> Chapter:
    """Parse chapter bytes; raise :class:`ChapterLoadError` with one line naming ``source`` and the place."""
    name = str(source)
    raw = raw.removeprefix(_BOM)
    if not raw or ((raw[:1].isspace() or raw[-1:].isspace()) and not raw.strip()):
        raise ChapterLoadError(name, None, "the file is empty; expected a JSON chapter object")
    with gc_paused():
        chapter = parse_fast(raw)
        return chapter if chapter is not None else _parse_careful(raw, name)


def _parse_careful(raw: bytes, name: str) -> Chapter:
    """The careful path: accepts every valid chapter and turns every problem into its one-line error."""
    text = _utf8_text(raw, name)
    data = _json_data(text, name)
    if "\\u" in text and _SURROGATE_ESCAPE.search(text) and (path := _lone_surrogate_path(data)) is not None:
        raise ChapterLoadError(
            name,
            path,
            "contains a lone UTF-16 surrogate escape (\\ud800-\\udfff without "
            "its pair), which is not text and could never be saved",
        )
    return _chapter_from_data(data, name, text)


def _utf8_text(raw: bytes, name: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        head = raw[: exc.start].decode("utf-8", errors="replace")
        raise ChapterLoadError(
            name,
            _where(head, len(head)),
            f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); chapter files must be UTF-8",
        ) from None


def _json_data(text: str, name: str) -> Any:
    """The JSON value of ``text``; every way it is not JSON (for a chapter) as its one-line error."""
    try:
        return json.loads(text, object_pairs_hook=_pairs_hook, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        what = exc.msg
        if exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
            what = f"{exc.msg}: the file ends too early (truncated?)"
        raise ChapterLoadError(name, f"{exc.lineno}:{exc.colno}", f"invalid JSON: {what}") from None
    except _DuplicateKey:
        pos, key = _locate_duplicate(text)
        where = _where(text, pos)
        raise ChapterLoadError(
            name, where, f"invalid JSON: key {key!r} appears twice in the object starting here"
        ) from None
    except _BadConstant as bad:
        where = _where(text, _first_constant(text))
        raise ChapterLoadError(name, where, f"invalid JSON: {bad.name} is not a JSON number") from None
    except RecursionError:
        raise _too_deep(name, _where(text, _first_too_deep(text)), "JSON") from None


def _too_deep(name: str, where: str | None, what: str) -> ChapterLoadError:
    return ChapterLoadError(name, where, f"invalid {what}: nested more than {_MAX_DEPTH} levels deep")


def _chapter_from_data(data: Any, name: str, text: str | None = None) -> Chapter:
    """Validate parsed JSON data as a chapter, with the same one-line errors as :func:`parse_chapter`."""
    _check_outline(data, name)
    from store.model_check import ChapterInvalid, checked_chapter  # pydantic: only for a file the fast path declined

    try:
        chapter = checked_chapter(data)
    except ChapterInvalid as exc:
        raise ChapterLoadError(name, None, exc.line) from None
    except RecursionError:
        raise _too_deep(name, None, "chapter") from None
    if _extras_too_deep(chapter):
        raise _too_deep(name, _where(text, _first_too_deep(text)), "chapter")
    _check_paragraphs(chapter, name)
    return chapter


def _check_outline(data: Any, name: str) -> None:
    """What pydantic would word less plainly: not an object, another format, no paragraphs."""
    if not isinstance(data, dict):
        raise ChapterLoadError(name, None, f'expected a JSON object with "paragraphs", got a {type(data).__name__}')
    if data.get("format", FORMAT) != FORMAT:
        raise ChapterLoadError(name, "format", f"expected {FORMAT!r}, got {json.dumps(data['format'])[:40]}")
    if "paragraphs" not in data:
        raise ChapterLoadError(name, "paragraphs", "required field is missing (expected a list of paragraphs)")


def _check_paragraphs(chapter: Chapter, name: str) -> None:
    """A paragraph's own inconsistency, or a paragraph ID twice, as its one-line error."""
    for i, para in enumerate(chapter.paragraphs):
        if (problem := para.problem()) is not None:
            raise ChapterLoadError(name, f"paragraphs[{i}]", problem)
    if len(chapter.positions) != len(chapter.paragraphs):
        _refuse_repeated_id(chapter, name)


def _refuse_repeated_id(chapter: Chapter, name: str) -> None:
    twice = first_repeated(p.id for p in chapter.paragraphs)
    first, second = [i for i, p in enumerate(chapter.paragraphs) if p.id == twice][:2]
    raise ChapterLoadError(
        name,
        f"paragraphs[{second}].id",
        f"duplicate paragraph id {twice!r} (also paragraphs[{first}].id); IDs must be unique",
    )


def _extra_values(chapter: Chapter) -> list[Any]:
    """The values of every unknown key in the chapter, its paragraphs and their versions."""
    versions = (v for para in chapter.paragraphs for v in para.translations)
    records: Iterable[Chapter | Paragraph | TranslationVersion] = chain((chapter,), chapter.paragraphs, versions)
    return [value for r in records for value in r.extra.values()]


def _extras_too_deep(chapter: Chapter) -> bool:
    """Unknown keys are the only place arbitrary nesting can hide; check just those."""
    return nested_keys(_extra_values(chapter), floats=True) < 0


def load_chapter(path: str | Path) -> Chapter:
    """Read and parse a chapter file; raise :class:`ChapterLoadError` (one line) for any problem."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ChapterLoadError.unreadable(path, exc) from None
    return parse_chapter(raw, path)
