"""What a run's tokens cost under a profile's prices, and the share of prompt tokens the provider's cache served.

Prices are per million tokens, as providers publish them. Amounts are computed with ``Decimal`` (no float drift
over thousands of requests) and reported rounded to 1e-6 of the currency. Cached prompt tokens are priced at
``price_cached_input``, or at ``price_input`` when the profile gives no cached price (what a provider without a
cache discount bills). There is no built-in price list: without prices there is no cost, never a guessed one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

Cost = dict[str, str | float]
"""``{"currency", "input", "cached_input", "output", "total"}``: what :func:`cost_of` gives."""

_MILLION = Decimal(1_000_000)
_MICRO = Decimal("0.000001")


@dataclass(frozen=True)
class Prices:
    """A profile's prices per million tokens."""

    input: Decimal
    output: Decimal
    cached_input: Decimal | None = None
    currency: str = "USD"

    @classmethod
    def of(
        cls, input: float | None, output: float | None, cached_input: float | None = None, currency: str = "USD"
    ) -> Prices | None:
        """The prices, or None unless both the input and the output price are set."""
        if input is None or output is None:
            return None
        cached = None if cached_input is None else Decimal(str(cached_input))
        return cls(Decimal(str(input)), Decimal(str(output)), cached, currency)

    def to_json(self) -> dict[str, Any]:
        """The prices as recorded in ``run_started`` (per million tokens)."""
        return {
            "input": float(self.input),
            "cached_input": None if self.cached_input is None else float(self.cached_input),
            "output": float(self.output),
            "currency": self.currency,
        }

    @classmethod
    def from_json(cls, data: Any) -> Prices | None:
        """Prices recorded by :meth:`to_json`, or None for anything else (an old trace, a damaged field)."""
        if not isinstance(data, Mapping):
            return None
        try:
            return cls.of(
                data.get("input"), data.get("output"), data.get("cached_input"), str(data.get("currency") or "USD")
            )
        except (ArithmeticError, ValueError, TypeError):
            return None


def _tokens(usage: Mapping[str, Any], key: str) -> int:
    value = usage.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def cost_of(usage: Mapping[str, Any], prices: Prices | None) -> Cost | None:
    """``{"currency", "input", "cached_input", "output", "total"}`` for ``usage`` (normalised counts, see
    ``engine.client.usage``), or None without prices, or when the figures are beyond arithmetic (a price or a count
    no bill has: the cost is then unknown; it never raises)."""
    if prices is None:
        return None
    try:
        return _cost(usage, prices)
    except (ArithmeticError, ValueError):
        return None


def _cost(usage: Mapping[str, Any], prices: Prices) -> Cost:
    prompt = _tokens(usage, "prompt_tokens")
    cached = min(_tokens(usage, "cached_tokens"), prompt)
    cached_price = prices.input if prices.cached_input is None else prices.cached_input
    parts = {
        "input": (prompt - cached) * prices.input / _MILLION,
        "cached_input": cached * cached_price / _MILLION,
        "output": _tokens(usage, "completion_tokens") * prices.output / _MILLION,
    }
    total = sum(parts.values(), Decimal(0))
    return {
        "currency": prices.currency,
        **{k: float(v.quantize(_MICRO)) for k, v in parts.items()},
        "total": float(total.quantize(_MICRO)),
    }


def cache_share(usage: Mapping[str, Any]) -> float | None:
    """Cached prompt tokens as a share of prompt tokens (0..1), or None when the provider reported no cache."""
    prompt = _tokens(usage, "prompt_tokens")
    if "cached_tokens" not in usage or not prompt:
        return None
    return min(_tokens(usage, "cached_tokens"), prompt) / prompt
