"""Byte-level Server-Sent Events decoding, per the WHATWG "event stream interpretation" algorithm.

Why not ``httpx.Response.aiter_lines()`` or a stock SSE parser: lines must end only at CR, LF or CRLF (never at
U+2028/U+2029/U+0085, which JSON allows unescaped), a CR at the end of one network read may be followed by the LF of
the next, UTF-8 sequences straddle reads, a BOM may open the stream, an unterminated final event must still be
delivered at EOF (llama-server sends ``data: [DONE]`` without a blank line), and old llama-server builds wrote their
errors in a non-standard ``error:`` field that spec parsers silently drop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_EOL = re.compile(rb"\r\n?|\n")
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event: its type (``message`` by default), data lines joined by LF, last id, legacy error."""

    event: str
    data: str
    id: str | None = None
    error: str | None = None


class SSEDecoder:
    """Incremental decoder: ``feed(bytes)`` returns the events completed so far, ``close()`` flushes at EOF."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._scanned = 0  # bytes of _buf already known to hold no line ending
        self._skip_lf = False  # the previous read ended in CR: an LF opening the next read belongs to it
        self._bom_checked = False
        self._data: list[str] = []
        self._has_data = False
        self._event = ""
        self._last_id: str | None = None
        self._error: str | None = None

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Consume one network read; return every event whose terminating blank line it completed."""
        if not chunk:
            return []
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        self._buf += chunk
        if not self._bom_checked:
            if len(self._buf) < len(_BOM) and _BOM.startswith(bytes(self._buf)):
                return []  # could still become a BOM; decide once three bytes are in
            if self._buf.startswith(_BOM):
                del self._buf[: len(_BOM)]
            self._bom_checked = True
        return self._drain()

    def close(self) -> list[SSEEvent]:
        """End of stream: treat a pending unterminated line as complete and deliver a pending event."""
        self._bom_checked = True
        events: list[SSEEvent] = []
        if self._buf:
            line = bytes(self._buf)
            self._buf.clear()
            self._scanned = 0
            event = self._line(line)
            if event is not None:
                events.append(event)
        event = self._dispatch()
        if event is not None:
            events.append(event)
        return events

    def _drain(self) -> list[SSEEvent]:
        events: list[SSEEvent] = []
        buf = self._buf
        start = 0
        for match in _EOL.finditer(buf, self._scanned):
            line = bytes(buf[start : match.start()])
            start = match.end()
            if match.end() == len(buf) and buf[-1:] == b"\r":
                self._skip_lf = True
            event = self._line(line)
            if event is not None:
                events.append(event)
        if start:
            del buf[:start]
        self._scanned = len(buf)
        return events

    def _line(self, raw: bytes) -> SSEEvent | None:
        if not raw:
            return self._dispatch()
        if raw[:1] == b":":
            return None  # comment, e.g. ": keep-alive" or ": OPENROUTER PROCESSING"
        line = raw.decode("utf-8", errors="replace")
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._has_data = True
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "error":
            self._error = value if self._error is None else f"{self._error}\n{value}"
        # "retry" and unknown fields are ignored, as the spec says
        return None

    def _dispatch(self) -> SSEEvent | None:
        if not self._has_data and self._error is None:
            self._event = ""
            return None
        event = SSEEvent(self._event or "message", "\n".join(self._data), self._last_id, self._error)
        self._data = []
        self._has_data = False
        self._event = ""
        self._error = None
        return event
