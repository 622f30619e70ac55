"""A person's dismissal of a warning, kept on the paragraph, that expires when either text changes.

Stored in the chapter file as the paragraph's ``"dismissed_checks": [{"code", "fingerprint"}]`` (a key the
store keeps as it is, like any key it does not know). The fingerprint is the first 16 hex characters of the
SHA-256 of source + U+0000 + selected translation: edit either text and the fingerprint no longer matches, so
the warning shows again without anyone removing the entry.
"""

from __future__ import annotations

import hashlib
from typing import Any

from store.model import Paragraph

KEY = "dismissed_checks"


def fingerprint(source: str, translation: str) -> str:
    """The fingerprint of a (source, translation) pair: 16 hex characters."""
    data = (source + "\u0000" + translation).encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()[:16]


def _entries(para: Paragraph) -> list[Any]:
    value = para.extra.get(KEY)
    return value if isinstance(value, list) else []


def dismissed_codes(para: Paragraph, translation: str | None = None) -> frozenset[str]:
    """The codes dismissed for the paragraph's current texts (``translation``: default the selected one)."""
    entries = _entries(para)
    text = para.selected_text if translation is None else translation
    if not entries or text is None:
        return frozenset()
    current = fingerprint(para.text, text)
    return frozenset(e["code"] for e in entries if _entry_of(e, current))


def _entry_of(entry: Any, current: str) -> bool:
    """Whether ``entry`` (as read from the file: anything) dismisses a code for the texts of ``current``."""
    return isinstance(entry, dict) and entry.get("fingerprint") == current and isinstance(entry.get("code"), str)


def dismiss(para: Paragraph, code: str, translation: str) -> Paragraph:
    """``para`` with ``code`` dismissed for its source and ``translation`` (the text the person saw).

    Returns ``para`` itself when that dismissal is already there. Entries of other texts are kept: selecting
    an earlier version again brings its dismissals back.
    """
    entry = {"code": code, "fingerprint": fingerprint(para.text, translation)}
    entries = _entries(para)
    if entry in entries:
        return para
    return para.replace(**{KEY: [*entries, entry]})


def undismiss(para: Paragraph, code: str, translation: str) -> Paragraph:
    """``para`` without the dismissal of ``code`` for its source and ``translation``; itself if there is none."""
    entry = {"code": code, "fingerprint": fingerprint(para.text, translation)}
    entries = _entries(para)
    if entry not in entries:
        return para
    return para.replace(**{KEY: [e for e in entries if e != entry]})
