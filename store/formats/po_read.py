"""``proofdesk import FILE.po``: the entries of a gettext PO file as units (design section 18).

``msgctxt`` is the paragraph ID, ``msgid`` the source, ``msgstr`` the target (empty: none); an entry that is not
fuzzy is done. The header's ``X-Proofdesk-Chapter`` names the chapter. Obsolete (``#~``) and plural entries are not
ours and are left out. Parsing is polib's, on text read through :mod:`store.formats.exchange_input` (bounded).
"""

from __future__ import annotations

from pathlib import Path

import polib

from store.formats.exchange_input import ExchangeError, read_exchange_text
from store.formats.po_write import CHAPTER_HEADER
from store.formats.units import ImportSection, ImportUnit


def read_po(path: Path) -> list[ImportSection]:
    """The one section of the PO file at ``path``; ExchangeError in one sentence."""
    _, text = read_exchange_text(path)
    try:
        # polib takes a string naming an existing file as that file: a newline keeps ours the text.
        po = polib.pofile(_NewlineLines(text if "\n" in text else text + "\n"), encoding="utf-8", wrapwidth=78)
    except (OSError, ValueError) as exc:
        raise ExchangeError(f"{path}: not a readable PO file ({exc})") from None
    units = tuple(_unit(entry) for entry in po if _ours(entry))
    return [ImportSection(po.metadata.get(CHAPTER_HEADER), units)]


class _NewlineLines(str):
    """The PO text, cut into lines at LF only (polib cuts a text with ``str.splitlines``, which also breaks at U+0085,
    U+2028, U+2029 and FS/GS/RS inside a quoted string, where a PO file holds them raw; gettext and polib's own file
    reading cut at LF, and polib strips the CR of CRLF)."""

    __slots__ = ()

    def splitlines(self, keepends: bool = False) -> list[str]:
        return self.split("\n")


def _ours(entry: polib.POEntry) -> bool:
    return not entry.obsolete and entry.msgctxt is not None and not entry.msgid_plural


def _unit(entry: polib.POEntry) -> ImportUnit:
    fuzzy = "fuzzy" in entry.flags
    return ImportUnit(entry.msgctxt or "", entry.msgid, entry.msgstr or None, not fuzzy and bool(entry.msgstr))
