"""The chapter file format ``proofdesk.chapter/1`` as frozen records (``msgspec.Struct``).

Records are frozen: a change produces new objects (``record.replace(...)``), so a paragraph object that did not
change keeps its cached serialised bytes and a commit only re-encodes what it touched. A record's unknown keys
(``extra``, in the order they were read) are written back as they are. Building a record checks nothing: the
loader checks a file (:mod:`store.fast_load`, else the careful path of :mod:`store.loader` and
:mod:`store.model_check`), and the functions below keep a record valid by construction.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Final, Literal, get_args

import msgspec

from store.paragraph_bytes import carry_inners

FORMAT: Final = "proofdesk.chapter/1"

Origin = Literal["translation", "polish", "proofreading", "manual", "import"]
ORIGINS: tuple[str, ...] = ("translation", "polish", "proofreading", "manual", "import")


def new_id(taken: set[str] | frozenset[str] = frozenset()) -> str:
    """Return a fresh 8-lowercase-hex identifier not in ``taken``."""
    while True:
        candidate = secrets.token_hex(4)
        if candidate not in taken:
            return candidate


def utc_now() -> str:
    """The current UTC time in the file format's ``created_at`` form (seconds, ``Z``)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def is_empty_text(text: str) -> bool:
    """True when ``text`` counts as an empty paragraph: blank once U+FEFF is removed."""
    return not text.replace("\ufeff", "").strip()


def first_repeated(items: Iterable[str]) -> str | None:
    """The first item that comes a second time, or None when all differ."""
    seen: set[str] = set()
    for item in items:
        if item in seen:
            return item
        seen.add(item)
    return None


# Shared by every record without unknown keys: a record's ``extra`` is never changed in place.
NO_EXTRA: dict[str, Any] = {}


def _no_extra() -> dict[str, Any]:
    return NO_EXTRA


class _Record(msgspec.Struct, frozen=True, kw_only=True, dict=True):
    """Base of the frozen file records: ``replace`` is the only way to derive a changed copy.

    ``extra`` holds the record's unknown keys (never changed in place). Equality is about the file's content only:
    the fields. Derived data (serialised bytes, lookup tables) is cached in the instance ``__dict__`` (which
    msgspec keeps apart from the fields): the records are frozen, so a cache stays valid for the object's
    lifetime, and ``replace`` starts the copy without one.
    """

    extra: dict[str, Any] = msgspec.field(default_factory=_no_extra)

    def replace(self, **changes: Any) -> Any:
        """A copy with ``changes`` applied (a name that is no field is an unknown key) and no cached derivation."""
        fields = self.__struct_fields__
        unknown = {k: v for k, v in changes.items() if k not in fields}
        if unknown:
            changes = {k: v for k, v in changes.items() if k in fields}
            changes["extra"] = {**self.extra, **unknown}
        return msgspec.structs.replace(self, **changes)

    def cached(self, key: str) -> Any:
        """A derivation cached on this object, or None."""
        return self.__dict__.get(key)

    def cache(self, key: str, value: Any) -> Any:
        """Cache ``value`` on this object under ``key`` and return it."""
        self.__dict__[key] = value
        return value


VersionStatus = Literal["suggested", "accepted", "rejected"]
STATUSES: tuple[str, ...] = get_args(VersionStatus)
Category = Literal[
    "mistranslation",
    "omission",
    "addition",
    "terminology",
    "consistency",
    "grammar",
    "spelling",
    "punctuation",
    "style",
    "fluency",
    "other",
]
CATEGORIES: tuple[str, ...] = get_args(Category)
MAX_REASON_CHARS = 500
# The optional keys of a version, in the order they are written after the five usual ones. They are kept as the
# record's extra keys rather than fields, so a version of an older file (none of them) keeps exactly its five keys
# and its byte-identical encoding.
SUGGESTION_KEYS = ("status", "reason", "category", "based_on")
OPTIONAL_KEYS = ("source_hash", *SUGGESTION_KEYS)


def source_hash_of(text: str) -> str:
    """What a version records of the source it translates: 16 hex digits of the SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class TranslationVersion(_Record, frozen=True, kw_only=True):
    """One version of a paragraph's translation; versions are only ever appended.

    A version may carry the optional keys of :data:`OPTIONAL_KEYS`: ``source_hash`` (of the source text it was
    made for; every new version has it, so a changed source shows it stale), ``status`` (``suggested`` until a
    person accepts or rejects it; absent on an ordinary version), ``reason`` and ``category`` (why a model made the
    change) and ``based_on`` (the version selected when the model read the paragraph).
    """

    id: str  # any non-empty identifier without whitespace (imported data); IDs we mint are 8 hex digits
    text: str
    origin: Origin
    model: str | None = None
    created_at: str

    def _optional(self, key: str) -> Any:
        return self.extra.get(key)

    @property
    def status(self) -> VersionStatus | None:
        """``suggested``, ``accepted``, ``rejected``, or None for an ordinary version."""
        return self._optional("status")

    @property
    def pending(self) -> bool:
        """A suggestion nobody has accepted or rejected yet."""
        return self._optional("status") == "suggested"

    @property
    def reason(self) -> str | None:
        """Why the model made this change (one sentence), if it said."""
        return self._optional("reason")

    @property
    def category(self) -> str | None:
        """The kind of change (one of :data:`CATEGORIES`), if the model said."""
        return self._optional("category")

    @property
    def source_hash(self) -> str | None:
        """:func:`source_hash_of` the source text this version was made for (None: made before it was recorded)."""
        return self._optional("source_hash")

    @property
    def based_on(self) -> str | None:
        """The version that was selected when the model read the paragraph (suggestions only)."""
        return self._optional("based_on")

    def problem(self) -> str | None:
        """What is wrong with the optional keys (a status, reason, category or based_on of the wrong kind), or None."""
        extra = self.extra
        if not extra:
            return None
        status = extra.get("status")
        if status is not None and status not in STATUSES:
            return f"version {self.id!r}: status must be one of {', '.join(STATUSES)}, got {status!r}"
        for key in ("source_hash", "reason", "category", "based_on"):
            value = extra.get(key)
            if value is not None and not isinstance(value, str):
                return f"version {self.id!r}: {key} must be a string or null, got {type(value).__name__}"
        return None


class Paragraph(_Record, frozen=True, kw_only=True):
    """A source paragraph with its stable ID, its translation versions and review state."""

    id: str
    text: str
    translations: tuple[TranslationVersion, ...] = ()
    selected_translation_id: str | None = None
    reviewed: bool = False

    def problem(self) -> str | None:
        """What is inconsistent in this paragraph (a selection naming no version, a version ID twice), or None.

        Checked once per load by the loader (a pydantic validator per paragraph cost ~20 ms per 10,000);
        the functions of this module that derive paragraphs keep it true by construction.
        """
        sel = self.selected_translation_id
        ids = [t.id for t in self.translations]
        if sel is not None and sel not in ids:
            return f"selected_translation_id {sel!r} names no translation of this paragraph"
        twice = first_repeated(ids)
        if twice is not None:
            return f"translation id {twice!r} appears twice in this paragraph"
        for version in self.translations:
            if version.extra and (problem := version.problem()) is not None:
                return problem
        return None

    @property
    def protected(self) -> bool:
        """A person's text: reviewed, or the selected version written by hand. A run only suggests for it."""
        if self.reviewed:
            return True
        chosen = self.selected
        return chosen is not None and chosen.origin == "manual"

    @property
    def stale(self) -> bool:
        """The source changed since the selected translation was made for it (versions from before the hash was
        recorded are never stale)."""
        made_for = self.selected.source_hash if self.selected is not None else None
        if made_for is None:
            return False
        cached = self.cached("stale")
        if cached is None:
            cached = self.cache("stale", made_for != source_hash_of(self.text))
        return bool(cached)

    @property
    def pending(self) -> tuple[TranslationVersion, ...]:
        """The suggestions waiting for the editor, in the order they were added."""
        return tuple(v for v in self.translations if v.extra and v.pending)

    @property
    def is_empty(self) -> bool:
        """Whether the paragraph is empty under the design's rule (never in a work set)."""
        return is_empty_text(self.text)

    @property
    def selected(self) -> TranslationVersion | None:
        """The selected translation version, or None."""
        sel = self.selected_translation_id
        if sel is None:
            return None
        for t in self.translations:
            if t.id == sel:
                return t
        return None  # unreachable: validated

    @property
    def selected_text(self) -> str | None:
        """The selected translation's text, or None."""
        chosen = self.selected
        return chosen.text if chosen is not None else None


class Chapter(_Record, frozen=True, kw_only=True, weakref=True):
    """A whole chapter file. Unknown top-level keys are kept (``extra``) and saved back."""

    format: Literal["proofdesk.chapter/1"] = FORMAT
    id: str
    title: str | None = None
    title_translation: str | None = None
    source_language: str | None = None
    target_language: str | None = None
    paragraphs: tuple[Paragraph, ...]

    @property
    def positions(self) -> dict[str, int]:
        """Map paragraph ID -> 0-based position in ``paragraphs`` (built once per object)."""
        positions = self.cached("positions")
        if positions is None:
            positions = self.cache("positions", {p.id: i for i, p in enumerate(self.paragraphs)})
        return positions

    def paragraph(self, paragraph_id: str) -> Paragraph | None:
        """The paragraph with this ID, or None."""
        pos = self.positions.get(paragraph_id)
        return None if pos is None else self.paragraphs[pos]

    def index_of(self, paragraph_id: str) -> int | None:
        """The paragraph's 1-based original index (empty paragraphs counted), or None."""
        pos = self.positions.get(paragraph_id)
        return None if pos is None else pos + 1

    def with_paragraphs(self, replacements: dict[int, Paragraph]) -> Chapter:
        """A copy with the paragraphs at the given 0-based positions replaced."""
        paragraphs = list(self.paragraphs)
        for pos, para in replacements.items():
            paragraphs[pos] = para
        copy = self.replace(paragraphs=tuple(paragraphs))
        # Carry over what stays valid, so a commit of 10 paragraphs costs 10, not the whole chapter: the
        # other paragraphs' serialised bytes, and, while IDs stay put, the ID positions. What is derived from
        # the source texts alone (the engine's lookup tables) holds while they stay put too, as they do in
        # every commit of translations.
        carry_inners(self, copy, replacements)
        old = self.paragraphs
        if all(para.id == old[pos].id for pos, para in replacements.items()):
            self._hand_on(copy, "positions")
            if all(para.text == old[pos].text for pos, para in replacements.items()):
                self._hand_on(copy, "by_source")
        return copy

    def _hand_on(self, copy: Chapter, key: str) -> None:
        value = self.cached(key)
        if value is not None:
            copy.cache(key, value)


def append_version(
    para: Paragraph,
    text: str,
    *,
    origin: Origin,
    model: str | None,
    select: bool = True,
    created_at: str | None = None,
    notes: dict[str, str | None] | None = None,
) -> tuple[Paragraph, TranslationVersion]:
    """Return ``para`` with a new translation version appended (selected unless ``select=False``).

    ``notes`` are the version's suggestion keys (:data:`SUGGESTION_KEYS`, in that order; a None ``reason`` or
    ``category`` is left out, ``based_on`` is kept as null on a suggestion); ``source_hash`` is always recorded.
    """
    version = TranslationVersion(
        id=new_id({t.id for t in para.translations}),
        text=text,
        origin=origin,
        model=model,
        created_at=created_at or utc_now(),
        extra={"source_hash": source_hash_of(para.text), **_ordered_notes(notes)},
    )
    update: dict[str, Any] = {"translations": (*para.translations, version)}
    if select:
        update["selected_translation_id"] = version.id
        if para.reviewed and para.selected_text != text:
            update["reviewed"] = False  # reviewed is about a text: a new text has not been reviewed
    return para.replace(**update), version


def _ordered_notes(notes: dict[str, str | None] | None) -> dict[str, str | None]:
    if not notes:
        return {}
    suggestion = notes.get("status") is not None
    return {
        key: notes.get(key)
        for key in SUGGESTION_KEYS
        if notes.get(key) is not None or (key == "based_on" and suggestion and key in notes)
    }


def with_status(version: TranslationVersion, status: VersionStatus) -> TranslationVersion:
    """``version`` with its ``status`` set (the key written after the five usual ones, as a suggestion has it)."""
    if version.status == status:
        return version
    extra = {**version.extra, "status": status}
    if "status" not in version.extra:
        extra = {k: extra[k] for k in OPTIONAL_KEYS if k in extra} | extra  # the optional keys in their order first
    return msgspec.structs.replace(version, extra=extra)


def _with_version(para: Paragraph, version: TranslationVersion) -> Paragraph:
    return para.replace(translations=tuple(version if v.id == version.id else v for v in para.translations))


def with_selection(para: Paragraph, version_id: str) -> Paragraph:
    """``para`` with ``version_id`` selected; ``reviewed`` is cleared when the selected text changes.

    A person selecting a pending suggestion accepts it.
    """
    version = next(v for v in para.translations if v.id == version_id)
    if version.pending:
        para = _with_version(para, with_status(version, "accepted"))
    if para.selected_translation_id == version_id:
        return para
    update: dict[str, Any] = {"selected_translation_id": version_id}
    if para.reviewed and version.text != para.selected_text:
        update["reviewed"] = False
    return para.replace(**update)


def accept_suggestion(para: Paragraph, version_id: str) -> Paragraph:
    """The pending suggestion ``version_id`` selected, its status ``accepted``, and the paragraph reviewed (the
    editor read it)."""
    accepted = with_selection(para, version_id)
    return accepted if accepted.reviewed else accepted.replace(reviewed=True)


def reject_suggestion(para: Paragraph, version_id: str) -> Paragraph:
    """The pending suggestion ``version_id`` marked ``rejected``; nothing else changes."""
    version = next(v for v in para.translations if v.id == version_id)
    return _with_version(para, with_status(version, "rejected"))


def prune_versions(para: Paragraph, keep: int) -> Paragraph:
    """Drop the oldest *unselected* versions so at most ``keep`` remain (never the selected one nor a pending
    suggestion)."""
    if keep <= 0 or len(para.translations) <= keep:
        return para
    excess = len(para.translations) - keep
    kept: list[TranslationVersion] = []
    for t in para.translations:
        # A pending suggestion waits for the editor: never pruned, even when the cap is exceeded.
        if excess and t.id != para.selected_translation_id and not t.pending:
            excess -= 1
            continue
        kept.append(t)
    return para.replace(translations=tuple(kept))
