"""Changing the glossary file: every change is applied to the file as it is on disk now, under its lock, and
written atomically (temp, fsync, rename), so an edit made meanwhile by a person or another run is never lost.

A change is a function from the glossary to the new glossary (the edits below); ``GlossaryStore.change`` reads the
file, applies it, and writes the result — again from a fresh read if the file changed between the read and the
rename.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import msgspec

from store.atomic import ConcurrentChange, atomic_write, file_state
from store.errors import StoreError
from store.glossary import (
    Glossary,
    GlossaryEntry,
    GlossaryEntryError,
    GlossaryLoadError,
    glossary_bytes,
    source_key,
    unique_problem,
)
from store.glossary_read import entry_from, parse_glossary
from store.lock import ChapterLock
from store.workspace import GLOSSARY_NAME, Workspace

_ATTEMPTS = 5


class GlossaryConflict(StoreError):
    """An entry with this source already exists with another target (``existing``)."""

    def __init__(self, existing: GlossaryEntry) -> None:
        super().__init__(f"the glossary already has {existing.source!r} → {existing.target!r} (entry {existing.id})")
        self.existing = existing


class GlossaryEditError(StoreError):
    """A change the glossary refuses (an unknown ID, a value of the wrong kind), in one sentence."""


class GlossaryStore:
    """The glossary of one workspace."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.path: Path = workspace.root / GLOSSARY_NAME
        self._parsed: tuple[bytes, Glossary] | None = None  # the last bytes parsed, and what they gave

    def load(self) -> Glossary:
        """The glossary as on disk (empty when there is no file).

        A run reloads it at every chunk: the same bytes as last time give the same (immutable) glossary without
        parsing them again (100,000 entries: a read and a compare instead of ~1 s of parsing)."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return Glossary()
        except OSError as exc:
            raise GlossaryLoadError(f"{self.path}: cannot be read: {exc.strerror or exc}") from None
        if self._parsed is not None and self._parsed[0] == raw:
            return self._parsed[1]
        glossary = parse_glossary(raw, self.path)
        self._parsed = (raw, glossary)
        return glossary

    def change(self, edit: Callable[[Glossary], Glossary]) -> Glossary:
        """Apply ``edit`` to the glossary on disk and write the result; return it. Nothing is written when the
        edit changes nothing. Raises what ``edit`` raises, ``GlossaryLoadError`` for a broken file, or
        ``StoreError`` when the file cannot be written."""
        self.workspace.safe_state_dir(self.workspace.locks_dir)
        with ChapterLock(self.workspace, self.path):
            for _ in range(_ATTEMPTS):
                state = file_state(self.path)
                raw = self.path.read_bytes() if state is not None else None
                current = parse_glossary(raw, self.path) if raw is not None else Glossary()
                changed = edit(current)
                if changed == current:
                    return current
                data = glossary_bytes(changed)
                try:
                    atomic_write(self.path, data, expect=state, expect_content=raw)
                except ConcurrentChange:
                    continue  # edited meanwhile (an editor's save): apply the change to that version
                self._parsed = (data, changed)  # the next load reads these bytes back: no parse of our own write
                return changed
        raise StoreError(f"{self.path} kept changing while proofdesk tried to save it; try again")


def _rebuilt(glossary: Glossary, entries: Iterable[GlossaryEntry]) -> Glossary:
    """The glossary with ``entries``, checked as a whole (unique sources and IDs; each entry is valid already)."""
    listed = tuple(entries)
    problem = unique_problem(listed)
    if problem is not None:
        raise GlossaryEditError(problem)
    return msgspec.structs.replace(glossary, entries=listed)


def add_entry(entry: GlossaryEntry) -> Callable[[Glossary], Glossary]:
    """Add ``entry``; an entry with the same source and target already there is kept as it is, a candidate with
    no target yet takes this one's place (keeping its ID), one with another target raises
    :class:`GlossaryConflict`."""

    def edit(glossary: Glossary) -> Glossary:
        existing = glossary.by_source(entry.source)
        if existing is None:
            for alias in entry.aliases:
                if (other := glossary.by_source(alias)) is not None and source_key(other.target) != source_key(
                    entry.target
                ):
                    raise GlossaryConflict(other)
            return _rebuilt(glossary, (*glossary.entries, entry))
        if source_key(existing.target) == source_key(entry.target):
            return glossary
        if not existing.target.strip():  # a candidate waiting for its translation (extract): this one fills it
            filled = msgspec.structs.replace(entry, id=existing.id)
            return _rebuilt(glossary, (filled if e.id == existing.id else e for e in glossary.entries))
        raise GlossaryConflict(existing)

    return edit


def update_entry(entry_id: str, **fields: Any) -> Callable[[Glossary], Glossary]:
    """Change fields of the entry ``entry_id`` (any of source, target, kind, note, aliases, gender, status)."""

    def edit(glossary: Glossary) -> Glossary:
        if glossary.by_id(entry_id) is None:
            raise GlossaryEditError(f"there is no glossary entry {entry_id!r}")
        return _rebuilt(glossary, (_updated(e, fields) if e.id == entry_id else e for e in glossary.entries))

    return edit


def update_entries(entry_ids: Iterable[str], **fields: Any) -> Callable[[Glossary], Glossary]:
    """Change the same fields of several entries in one edit (a kind or a gender given to many at once)."""
    wanted = set(entry_ids)

    def edit(glossary: Glossary) -> Glossary:
        _require(glossary, wanted)
        return _rebuilt(glossary, (_updated(e, fields) if e.id in wanted else e for e in glossary.entries))

    return edit


def _updated(entry: GlossaryEntry, fields: dict[str, Any]) -> GlossaryEntry:
    """``entry`` with ``fields`` changed, validated (a value of the wrong kind is one sentence)."""
    try:
        return entry_from({**entry.to_json(), **fields})
    except GlossaryEntryError as exc:
        raise GlossaryEditError(exc.line) from None


def _require(glossary: Glossary, ids: set[str]) -> None:
    """Refuse an edit naming an entry the glossary (on disk, now) does not have."""
    missing = ids - {e.id for e in glossary.entries}
    if missing:
        raise GlossaryEditError(f"there is no glossary entry {sorted(missing)[0]!r}")


def approve_entries(entry_ids: Iterable[str]) -> Callable[[Glossary], Glossary]:
    """Mark entries approved."""
    wanted = set(entry_ids)

    def edit(glossary: Glossary) -> Glossary:
        _require(glossary, wanted)
        return _rebuilt(
            glossary, (msgspec.structs.replace(e, status="approved") if e.id in wanted else e for e in glossary.entries)
        )

    return edit


def remove_entries(entry_ids: Iterable[str]) -> Callable[[Glossary], Glossary]:
    """Remove entries."""
    wanted = set(entry_ids)

    def edit(glossary: Glossary) -> Glossary:
        _require(glossary, wanted)
        return _rebuilt(glossary, (e for e in glossary.entries if e.id not in wanted))

    return edit


def add_entries(entries: Iterable[GlossaryEntry]) -> Callable[[Glossary], Glossary]:
    """Add many entries at once (an import, an extraction); a source already there is skipped, never doubled.
    Returns the new glossary; how many were added is the difference in length."""
    incoming = list(entries)

    def edit(glossary: Glossary) -> Glossary:
        seen = {source_key(e.source) for e in glossary.entries}
        fresh = []
        for entry in incoming:
            key = source_key(entry.source)
            if key not in seen:
                seen.add(key)
                fresh.append(entry)
        return _rebuilt(glossary, (*glossary.entries, *fresh)) if fresh else glossary

    return edit
