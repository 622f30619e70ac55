"""What an exchange file brings back: per chapter it names, the units with their paragraph ID, source, target and
mark. Readers (:mod:`store.formats.xliff_read`, :mod:`store.formats.po_read`) make these; :mod:`store.formats.
import_apply` applies them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ImportUnit:
    """One unit: the paragraph it names, its source as the file has it, its target (None: none, or empty), and
    whether the file marks it done (``final``/``reviewed``, ``approved="yes"``, a PO entry that is not fuzzy)."""

    paragraph_id: str
    source: str
    target: str | None
    done: bool


@dataclass(frozen=True)
class ImportSection:
    """The units of one chapter of the file: ``key`` is what names the chapter there (an XLIFF 2 ``file id``, an
    XLIFF 1.2 ``file original``, a PO file's ``X-Proofdesk-Chapter``), or None when the file does not say."""

    key: str | None
    units: tuple[ImportUnit, ...]
