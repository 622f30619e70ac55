"""JSONL traces: every event of a run, one JSON object per line, for the step-by-step inspector.

Traces go to ``<workspace>/.proofdesk/traces/<chapter id>/<UTC time>-<task>.jsonl`` unless a path is
given. ``model_delta`` events are left out by default (the assembled ``model_response`` holds the same
text). Secrets are scrubbed from every line as a second line of defence: events never carry them.

Reading one back: :func:`read_events` gives the engine's own event types (``engine.events.EngineEventT``), and a
line that holds no event this version knows (an unknown ``kind``, a missing or mistyped field) as a
:class:`TraceProblem`; :func:`read_trace` gives the JSON objects. A file that is no trace at all is refused whole
(:class:`TraceReadError`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from msgspec import DecodeError, Struct, ValidationError

from engine.events import EngineEvent, EngineEventT, ModelDelta, decode_event, event_from_json
from engine.json_depth import MAX_JSON_DEPTH, too_deep
from store.workspace import safe_state_dir

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(text: str) -> str:
    """A file-name-safe form of ``text`` (chapter IDs come from files and are not trusted)."""
    name = _UNSAFE.sub("_", text).strip("._") or "chapter"
    return name[:80]


def trace_folder_name(chapter_id: str) -> str:
    """The folder of a chapter's traces: the ID itself when it is a safe file name (``ch01``), else its safe part
    and a hash of the whole ID (``第一章`` and ``第二章`` must not share a folder: ``chapter-5c1f0a3e``)."""
    if _UNSAFE.search(chapter_id) is None and chapter_id.strip("._") == chapter_id and 0 < len(chapter_id) <= 80:
        return chapter_id
    digest = hashlib.sha256(chapter_id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{safe_name(chapter_id)[:60]}-{digest}"


def default_trace_path(traces_dir: Path, chapter_id: str, task: str, when: datetime | None = None) -> Path:
    """The trace file for a run started at ``when`` (UTC)."""
    stamp = (when or datetime.now(UTC)).strftime("%Y%m%dT%H%M%S.%fZ")
    return traces_dir / trace_folder_name(chapter_id) / f"{stamp}-{safe_name(task)}.jsonl"


def _private_opener(path: str, flags: int) -> int:
    """Open a trace for appending: never through a planted link, and readable by its owner only (0600)."""
    return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)


class TraceWriter:
    """Appends events to a JSONL file; scrubs the given secrets from every line."""

    def __init__(self, path: Path, *, secrets: Iterable[str] = (), include_deltas: bool = False) -> None:
        self.path = path
        self._secrets = tuple(s for s in secrets if s and len(s) >= 4)
        self._include_deltas = include_deltas
        self.failed: str | None = None  # why tracing stopped, if it did
        safe_state_dir(path.parent)  # under .proofdesk/, every folder a real one (a planted link is refused)
        # backslashreplace: a lone surrogate that slipped into an event is written as its JSON escape (\\ud800),
        # which reads back as the same string, instead of failing the write and with it the run.
        self._file: IO[str] | None = open(  # noqa: SIM115 — closed in close()
            path, "a", encoding="utf-8", errors="backslashreplace", opener=_private_opener
        )

    def write(self, event: EngineEvent) -> None:
        """Append one event (``model_delta`` only when asked for)."""
        if self._file is None or (isinstance(event, ModelDelta) and not self._include_deltas):
            return
        line = json.dumps(event.to_json(), ensure_ascii=False, default=str)
        for secret in self._secrets:
            line = line.replace(secret, "***")
        try:
            self._file.write(line + "\n")
            self._file.flush()
        except OSError as exc:  # a full disk must not stop the run's commits: stop tracing, say so once
            self.failed = f"the trace {self.path} could not be written ({exc.strerror or exc}); tracing stopped"
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None

    def close(self) -> None:
        """Flush, fsync and close the file."""
        if self._file is None:
            return
        try:
            self._file.flush()
            os.fsync(self._file.fileno())
        except OSError as exc:
            self.failed = self.failed or f"the trace {self.path} could not be saved ({exc.strerror or exc})"
        finally:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class TraceReadError(Exception):
    """A trace file that cannot be read, as one line."""


def latest_trace(traces_dir: Path, chapter_id: str) -> Path | None:
    """The newest trace a run of ``chapter_id`` left (trace names start with their UTC time), if any.

    Runs before trace folders were hashed kept an unsafe ID's traces under its safe part alone (``chapter`` for
    ``第一章`` and ``第二章`` alike): a trace there counts only when its first event names this very chapter."""
    folder = traces_dir / trace_folder_name(chapter_id)
    legacy = traces_dir / safe_name(chapter_id)
    candidates = [(p.name, p, False) for p in folder.glob("*.jsonl")] if folder.is_dir() else []
    if legacy != folder and legacy.is_dir():
        candidates += [(p.name, p, True) for p in legacy.glob("*.jsonl")]
    for _, path, shared in sorted(candidates, reverse=True):
        if not shared or _first_chapter_id(path) == chapter_id:
            return path
    return None


def _first_chapter_id(path: Path) -> str | None:
    """The ``chapter_id`` of a trace's ``run_started`` (its first event), or None when it cannot tell."""
    try:
        with open(path, "rb") as handle:
            first = handle.readline(1 << 20)
        event = json.loads(first)
    except (OSError, ValueError, RecursionError):
        return None
    return event.get("chapter_id") if isinstance(event, dict) and event.get("kind") == "run_started" else None


class TraceProblem(Struct, frozen=True, kw_only=True):
    """A line of a trace that holds no event this proofdesk knows: an unknown ``kind``, a missing field or one of
    the wrong type (a trace edited by hand, damaged, or written by another version). The inspector shows it as a
    step of its own instead of failing."""

    line_no: int  # 1-based; 0 for a record that did not come from a file
    text: str  # the line as written
    reason: str  # why it is not an event, as msgspec says it (``Object missing required field `turn```)
    kind: str | None = None  # the ``kind`` it claims, when it is a string


TraceRecord = EngineEventT | TraceProblem
"""What a trace line reads as: the event a run emitted, or the problem that kept it from being one."""


def decode_record(item: dict[str, Any], line_no: int = 0, text: str | None = None) -> TraceRecord:
    """The event a trace line's JSON object holds, or a :class:`TraceProblem` saying why it holds none."""
    try:
        return event_from_json(item)
    except ValidationError as exc:
        kind = item.get("kind")
        shown = json.dumps(item, ensure_ascii=False, default=str) if text is None else text.rstrip("\n")
        return TraceProblem(line_no=line_no, text=shown, reason=str(exc), kind=kind if isinstance(kind, str) else None)


def read_events(path: Path) -> Iterator[TraceRecord]:
    """The events of a trace file, typed; a line that is JSON but no known event is a :class:`TraceProblem`.

    A file that is not a trace at all (not UTF-8, not JSON lines of objects with a ``kind``) raises
    :class:`TraceReadError`, as :func:`read_trace` does."""
    for number, line in _lines(path):
        event = _event(line)
        if event is not None:
            yield event
            continue
        item = _parse(path, number, line)  # not an event: why not (a whole bad file raises)
        if item is None:
            return
        yield decode_record(item, number, line)


def _event(line: str) -> EngineEventT | None:
    """The event of a line when it is one as it stands (every line of a trace this version wrote): msgspec reads
    it in one pass, several times faster than ``json.loads`` and a conversion of the object."""
    try:
        return decode_event(line)
    except DecodeError:  # a ValidationError too
        return None


def read_trace(path: Path) -> Iterator[dict[str, Any]]:
    """The events of a trace file as JSON objects; a bad line raises :class:`TraceReadError` naming it."""
    for number, line in _lines(path):
        item = _parse(path, number, line)
        if item is None:  # the last line of a trace still being written
            return
        yield item


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, line) for every line of a trace that is not blank, each checked to be UTF-8 and not nested
    deeper than a proofdesk event."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 — closed below
    except OSError as exc:
        raise TraceReadError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    with handle:
        for number, raw in enumerate(handle, 1):
            line = _text(path, number, raw)
            if not line.strip():
                continue
            if too_deep(line):
                raise TraceReadError(
                    f"{path}:{number}: a line nested more than {MAX_JSON_DEPTH} levels deep is "
                    "not an event proofdesk wrote"
                )
            yield number, line


def _text(path: Path, number: int, raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TraceReadError(f"{path}:{number}: not UTF-8 text, so not a trace proofdesk wrote") from None


def _parse(path: Path, number: int, line: str) -> dict[str, Any] | None:
    """The JSON object of one line (None for an unfinished last line); anything else raises :class:`TraceReadError`."""
    try:
        item = json.loads(line)
    except json.JSONDecodeError as exc:
        if not line.endswith("\n"):
            return None
        raise TraceReadError(f"{path}:{number}:{exc.colno}: invalid JSON line: {exc.msg}") from None
    if not isinstance(item, dict) or "kind" not in item:
        raise TraceReadError(f'{path}:{number}: expected an event object with a "kind"')
    return item
