"""Byte-level Server-Sent Events decoding, per the WHATWG "event stream interpretation" algorithm.

Why not ``httpx.Response.aiter_lines()`` or a stock SSE parser: lines must end only at CR, LF or CRLF (never at
U+2028/U+2029/U+0085, which JSON allows unescaped), a CR at the end of one network read may be followed by the LF of
the next, UTF-8 sequences straddle reads, a BOM may open the stream, an unterminated final event must still be
delivered at EOF (llama-server sends ``data: [DONE]`` without a blank line), and old llama-server builds wrote their
errors in a non-standard ``error:`` field that spec parsers silently drop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from engine.client.limits import MIB, StreamLimitError, StreamLimits

_BOM = b"\xef\xbb\xbf"


class SSEEvent(NamedTuple):
    """One dispatched event: its type (``message`` by default), data lines joined by LF, last id, legacy error.

    A named tuple: one is made per streamed chunk, and a tuple is the cheapest immutable record to make.
    """

    event: str
    data: str
    id: str | None = None
    error: str | None = None


class SSEDecoder:
    """Incremental decoder: ``feed(bytes)`` returns the events completed so far, ``close()`` flushes at EOF."""

    def __init__(self, max_line: int = StreamLimits().line_bytes) -> None:
        self._max_line = max_line  # a longer line or event raises StreamLimitError
        self._data_size = 0
        self._pending = bytearray()  # an incomplete line carried over from earlier reads
        self._skip_lf = False  # the previous read ended in CR: an LF opening the next read belongs to it
        self._bom_checked = False
        self._data: list[str] = []  # the data lines of the event being read
        self._event = ""
        self._last_id: str | None = None
        self._error: str | None = None

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Consume one network read; return every event whose terminating blank line it completed."""
        if self._skip_lf or not self._bom_checked:
            chunk = self._start(chunk)
        if b"\n" not in chunk and b"\r" not in chunk:
            self._hold(chunk)  # the common case for tiny reads: no line ends yet
            return []
        lines = self._complete_lines(chunk)
        if len(chunk) > self._max_line:
            return self._long_read(lines)
        return self._lines(lines)

    def close(self) -> list[SSEEvent]:
        """End of stream: treat a pending unterminated line as complete and deliver a pending event."""
        self._bom_checked = True
        if self._pending:
            self._last_line()
        if self._data or self._error is not None:
            return [self._dispatch()]
        return []

    # -- bytes into lines ----------------------------------------------------------------------------------------

    def _start(self, chunk: bytes) -> bytes:
        """The read without what belongs before it: the LF of a CRLF split between reads, and a BOM opening the
        stream."""
        if self._skip_lf and chunk:
            chunk = self._after_cr(chunk)
        return chunk if not chunk or self._bom_checked else self._without_bom(chunk)

    def _after_cr(self, chunk: bytes) -> bytes:
        """The read after one that ended in CR: an LF opening it ends the same line."""
        self._skip_lf = False
        return chunk[1:] if chunk[:1] == b"\n" else chunk

    def _without_bom(self, chunk: bytes) -> bytes:
        """The first bytes of the stream without a BOM (held back until three bytes are in)."""
        head = bytes(self._pending) + chunk
        if len(head) < len(_BOM) and _BOM.startswith(head):
            self._pending[:] = head
            return b""  # could still become a BOM; decide once three bytes are in
        self._pending.clear()
        self._bom_checked = True
        return head[len(_BOM) :] if head.startswith(_BOM) else head

    def _hold(self, part: bytes) -> None:
        """Keep the start of a line that has not ended yet."""
        self._pending += part
        if len(self._pending) > self._max_line:
            raise StreamLimitError(f"the server sent a line longer than {self._max_line // MIB} MB")

    def _complete_lines(self, chunk: bytes) -> list[bytes]:
        """The lines ``chunk`` ends (after what was pending); an unterminated last line is held back."""
        if self._pending:
            chunk = bytes(self._pending) + chunk
            self._pending.clear()
        # bytes.splitlines breaks at CR, LF and CRLF only (never at VT/FF/FS/NEL or U+2028, unlike str.splitlines)
        lines = chunk.splitlines()
        last = chunk[-1]
        if last == 13:  # CR: an LF opening the next read belongs to it
            self._skip_lf = True
        elif last != 10:
            self._hold(lines.pop())
        return lines

    def _last_line(self) -> None:
        """At EOF, the pending unterminated line is complete (llama-server ends with ``data: [DONE]`` alone)."""
        line = bytes(self._pending)
        self._pending.clear()
        if line.startswith(_BOM):
            line = line[len(_BOM) :]
        if line:
            self._line(line)

    # -- lines into events ---------------------------------------------------------------------------------------

    def _lines(self, lines: list[bytes]) -> list[SSEEvent]:
        events: list[SSEEvent] = []
        data = self._data
        for raw in lines:
            # The hot path inline: one "data: {...}" line and one blank line per streamed chunk.
            if not raw:
                if data or self._error is not None:
                    events.append(self._dispatch())
                else:
                    self._event = ""
            elif raw[:6] == b"data: ":
                data.append(raw[6:].decode("utf-8", "replace"))
                self._data_size += len(raw)
                if self._data_size > self._max_line:
                    raise _event_too_large(self._max_line)
            else:
                self._line(raw)
        return events

    def _long_read(self, lines: list[bytes]) -> list[SSEEvent]:
        """A read longer than a line may be: each line's length is checked before it is read."""
        events: list[SSEEvent] = []
        for raw in lines:
            if len(raw) > self._max_line:
                raise StreamLimitError(f"the server sent a line longer than {self._max_line // MIB} MB")
            events += self._lines([raw])
        return events

    def _grow(self, size: int) -> None:
        self._data_size += size
        if self._data_size > self._max_line:
            raise _event_too_large(self._max_line)

    def _line(self, raw: bytes) -> None:
        """A non-empty line other than ``data: ...``."""
        if raw[:1] == b":":
            return  # comment, e.g. ": keep-alive" or ": OPENROUTER PROCESSING"
        line = raw.decode("utf-8", errors="replace")
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        field = _FIELDS.get(name)
        if field is not None:  # "retry" and unknown fields are ignored, as the spec says
            field(self, value)

    def _data_field(self, value: str) -> None:
        self._data.append(value)
        self._grow(len(value))

    def _event_field(self, value: str) -> None:
        self._event = value

    def _id_field(self, value: str) -> None:
        if "\0" not in value:
            self._last_id = value

    def _error_field(self, value: str) -> None:
        self._error = value if self._error is None else f"{self._error}\n{value}"

    def _dispatch(self) -> SSEEvent:
        """The pending event (there is data or a legacy error); the buffers start over."""
        data = self._data
        event = SSEEvent(
            self._event or "message", data[0] if len(data) == 1 else "\n".join(data), self._last_id, self._error
        )
        data.clear()
        self._data_size = 0
        self._event = ""
        self._error = None
        return event


_FIELDS: dict[str, Callable[[SSEDecoder, str], None]] = {
    "data": SSEDecoder._data_field,
    "event": SSEDecoder._event_field,
    "id": SSEDecoder._id_field,
    "error": SSEDecoder._error_field,
}


def _event_too_large(max_line: int) -> StreamLimitError:
    return StreamLimitError(f"the server sent an event larger than {max_line // MIB} MB")
