"""Language codes: a well-formedness check of BCP 47 tags (RFC 5646, section 2.1), by syntax only.

Well-formed is not valid: the check does not look subtags up in the IANA registry, so ``qq-Zzzz`` passes while
``en_US``, ``english`` with a space, ``ja-`` or a control character do not. That is enough to keep what a
person types from reaching a chapter file, an EPUB's ``dc:language`` or a prompt as anything but a tag.
"""

from __future__ import annotations

import re

_LANGUAGE = r"(?:[A-Za-z]{2,3}(?:-[A-Za-z]{3}){0,3}|[A-Za-z]{4,8})"  # with up to three extlangs
_SCRIPT = r"(?:-[A-Za-z]{4})?"
_REGION = r"(?:-(?:[A-Za-z]{2}|[0-9]{3}))?"
_VARIANTS = r"(?:-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*"
_EXTENSIONS = r"(?:-[0-9A-WY-Za-wy-z](?:-[A-Za-z0-9]{2,8})+)*"
_PRIVATE = r"[Xx](?:-[A-Za-z0-9]{1,8})+"
_TAG = re.compile(f"{_LANGUAGE}{_SCRIPT}{_REGION}{_VARIANTS}{_EXTENSIONS}(?:-{_PRIVATE})?|{_PRIVATE}")
# The irregular grandfathered tags do not follow the syntax above (the regular ones do).
_IRREGULAR = frozenset(
    {
        "en-gb-oed",
        "i-ami",
        "i-bnn",
        "i-default",
        "i-enochian",
        "i-hak",
        "i-klingon",
        "i-lux",
        "i-mingo",
        "i-navajo",
        "i-pwn",
        "i-tao",
        "i-tay",
        "i-tsu",
        "sgn-be-fr",
        "sgn-be-nl",
        "sgn-ch-de",
    }
)
MAX_TAG = 100  # far above any real tag; keeps the pattern's work bounded


def is_language_tag(tag: str) -> bool:
    """Whether ``tag`` is a well-formed BCP 47 language tag (``ja``, ``zh-Hans``, ``es-419``, ``x-klingon``)."""
    if len(tag) > MAX_TAG:
        return False
    return _TAG.fullmatch(tag) is not None or tag.lower() in _IRREGULAR
