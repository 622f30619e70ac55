"""A number with its noun in the form the number wants: ``1 chunk``, ``2 chunks``, ``0 errors``."""

from __future__ import annotations


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """``n`` and ``singular`` (one) or ``plural`` (any other number; default ``singular + "s"``)."""
    return f"{n} {singular if n == 1 else plural or singular + 's'}"
