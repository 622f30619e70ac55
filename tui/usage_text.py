"""Tokens, cache hits and cost in words, the same in the run summary, the progress lines and the status line."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from engine.cost import cache_share

_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "¥"}


def money(amount: float, currency: str) -> str:
    """``$0.0123``, ``€1.25``, ``0.50 CHF``: cents always, four decimals below one unit (small runs cost little),
    rounded half up from the decimal value (4.655 is $4.66, not the binary float's $4.65)."""
    exact = Decimal(str(amount))
    text = str(exact.quantize(Decimal("0.01") if exact >= 1 else Decimal("0.0001"), rounding=ROUND_HALF_UP))
    symbol = _SYMBOLS.get(currency.upper())
    return f"{symbol}{text}" if symbol else f"{text} {currency.upper()}"


def _count(usage: Mapping[str, Any], key: str) -> int:
    value = usage.get(key, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def usage_text(usage: Mapping[str, Any], cost: Mapping[str, Any] | None = None, *, short: bool = False) -> str:
    """``12,345 tokens: 10,000 in (38% cached), 2,345 out · $0.0123``; ``short``: ``12.3k tok · 38% cached · $0.0123``.

    The cache share appears only when the provider reported cached tokens, the cost only with the profile's prices.
    """
    total = _count(usage, "total_tokens")
    share = cache_share(usage)
    parts: list[str]
    if short:
        parts = [f"{_compact(total)} tok"]
        if share is not None:
            parts.append(f"{share:.0%} cached")
    else:
        text = f"{total:,} tokens: {_count(usage, 'prompt_tokens'):,} in"
        if share is not None:
            text += f" ({share:.0%} cached)"
        text += f", {_count(usage, 'completion_tokens'):,} out"
        if reasoning := _count(usage, "reasoning_tokens"):
            text += f" ({reasoning:,} reasoning)"
        parts = [text]
    if cost and isinstance(cost.get("total"), int | float):
        parts.append(money(float(cost["total"]), str(cost.get("currency") or "USD")))
    return " · ".join(parts)


def _compact(n: int) -> str:
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.2f}M"
