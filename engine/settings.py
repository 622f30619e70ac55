"""Run settings, each defined once: its default, its bounds and the one sentence that refuses a bad value.

The config file (``[run]`` and model profiles) and the command-line flags validate through the same
``Setting``, so ``--chunk-chars abc`` and ``chunk_chars = 10`` are refused in the same words, before any
request is sent (exit 2). Everything else — chunking, the tools' batch limit, the loop, the store's
version cap, the TUI — reads the defaults from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from store.merge import DEFAULT_KEEP_VERSIONS, KEEP_VERSIONS_MAX, check_keep_versions


class SettingError(ValueError):
    """A value a setting refuses; ``str()`` is the sentence without the setting's name."""


@dataclass(frozen=True)
class Setting:
    """One numeric setting: its config key, its flag (if any), default and bounds."""

    key: str
    flag: str | None
    default: float
    minimum: float
    maximum: float
    whole: bool = True  # an integer setting; otherwise seconds, and the minimum itself is excluded
    note: str = ""  # what an unusual value means, added to the refusal ("0 means no cap")

    def describe(self) -> str:
        """The accepted values, as said in help texts and refusals."""
        if self.whole:
            return f"a whole number from {int(self.minimum)} to {int(self.maximum)}{self.note}"
        return f"a number of seconds above {self.minimum:g}, at most {self.maximum:g}"

    def check(self, value: Any) -> Any:
        """``value`` if it is allowed; otherwise ``SettingError`` with the sentence."""
        if self._of_type(value) and self._in_bounds(value):
            return value
        raise SettingError(f"must be {self.describe()}, not {value!r}")

    def _of_type(self, value: Any) -> bool:
        if isinstance(value, bool):  # a bool is an int to Python, never a count to a person
            return False
        return isinstance(value, int) if self.whole else isinstance(value, int | float)

    def _in_bounds(self, value: float) -> bool:
        above = value >= self.minimum if self.whole else value > self.minimum
        return above and value <= self.maximum

    def parse(self, text: str) -> Any:
        """A flag's text as a value, or ``SettingError`` (the same sentence as :meth:`check`)."""
        try:
            value: Any = int(text) if self.whole else float(text)
        except ValueError:
            raise SettingError(f"must be {self.describe()}, not {text!r}") from None
        return self.check(value)


class _KeepVersions(Setting):
    def check(self, value: Any) -> Any:
        super().check(value)
        try:
            return check_keep_versions(value)  # the store's own rule (1 would prune a new version at once)
        except ValueError:
            raise SettingError(f"must be {self.describe()}, not {value!r}") from None


class _Ratio(Setting):
    """A similarity from ``minimum`` to ``maximum``, both included (``0.75``; ``1`` is a whole number too)."""

    def describe(self) -> str:
        return f"a number from {self.minimum:g} to {self.maximum:g}"

    def _in_bounds(self, value: float) -> bool:
        return self.minimum <= value <= self.maximum


CHUNK_CHARS = Setting("chunk_chars", "--chunk-chars", 4000, 200, 50000)
MAX_BATCH = Setting("max_batch", "--max-batch", 20, 1, 200)
MAX_TURNS = Setting("max_turns", "--max-turns", 24, 1, 500)
JOBS = Setting("jobs", "--jobs", 1, 1, 64)
KEEP_VERSIONS = _KeepVersions(
    "keep_versions",
    None,
    DEFAULT_KEEP_VERSIONS,
    0,
    KEEP_VERSIONS_MAX,
    note=" (0 keeps every version; 1 is refused: a new unselected version would be pruned at once)",
)
MAX_TOKENS = Setting("max_tokens", "--max-tokens", 8192, 1, 1_000_000)
CONNECT_TIMEOUT = Setting("connect_timeout", None, 10.0, 0, 600, whole=False)
READ_TIMEOUT = Setting("read_timeout", None, 120.0, 0, 3600, whole=False)  # a local CPU server may need more
# One response's bounds: a server that streams without end, or inflates a small gzip body into gigabytes, costs at
# most this much time and memory (engine.client.limits).
RESPONSE_SECONDS = Setting("response_seconds", None, 900.0, 0, 86400, whole=False)
RESPONSE_MB = Setting("response_mb", None, 64, 1, 4096)
# Translation memory (design section 17): how similar an earlier source must be, and how many lines a chunk gets.
MEMORY_THRESHOLD = _Ratio("memory_threshold", None, 0.75, 0.5, 1.0, whole=False)
MEMORY_MAX = Setting("memory_max", None, 5, 0, 20, note=" (0 turns memory off)")
CHUNK_NUMBER = Setting("chunk", "--chunk", 1, 1, 1_000_000)  # 1-based; its upper end is the chapter's
# Context lines around a chunk (engine.chunk_context); a one-paragraph run takes ONE_PARAGRAPH_CONTEXT on both sides.
CONTEXT_BEFORE = Setting("context_before", "--context-before", 3, 0, 50, note=" (0 shows none)")
CONTEXT_AFTER = Setting("context_after", "--context-after", 1, 0, 50, note=" (0 shows none)")
CONTEXT_CHARS = Setting("context_chars", None, 1200, 0, 50_000)
ONE_PARAGRAPH_CONTEXT = 3

DEFAULT_CHUNK_CHARS = int(CHUNK_CHARS.default)
DEFAULT_MAX_BATCH = int(MAX_BATCH.default)
DEFAULT_MAX_TURNS = int(MAX_TURNS.default)
DEFAULT_MAX_TOKENS = int(MAX_TOKENS.default)
DEFAULT_CONNECT_TIMEOUT = float(CONNECT_TIMEOUT.default)
DEFAULT_READ_TIMEOUT = float(READ_TIMEOUT.default)
DEFAULT_RESPONSE_SECONDS = float(RESPONSE_SECONDS.default)
DEFAULT_RESPONSE_MB = int(RESPONSE_MB.default)
DEFAULT_MEMORY_THRESHOLD = float(MEMORY_THRESHOLD.default)
DEFAULT_MEMORY_MAX = int(MEMORY_MAX.default)
