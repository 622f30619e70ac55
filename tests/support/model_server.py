"""A real, scripted OpenAI-compatible chat-completions server on 127.0.0.1 (asyncio streams, HTTP/1.1).

Used by every client and loop test (no HTTP mocking). The server runs in its own thread with its own event loop,
so it serves both async tests and subprocesses started from sync tests (``proofdesk run ...``).

Scripting: a queue of ``Scripted`` responses, consumed one per request. Each has a status, headers, a body as bytes,
how to cut the body into network pieces (``split``: 1, 2, 3, 7 ... bytes, or a tuple of explicit piece sizes with
the rest sent whole; each piece is its own HTTP chunk so the client really receives it separately), delays, and
failure modes (``hang_after`` bytes, ``close_after`` bytes). Every request is recorded (method, path, headers,
body) for assertions, and ``hanging`` counts the responses held open after their ``hang_after`` bytes were sent.
When the queue is empty the server answers 500 with a message saying so.

High-level builders (``text_reply``, ``tool_reply``, ``error_reply``; ``text_chunks``/``tool_chunks`` + ``sse``)
keep loop tests short.

Subprocess use: ``python -m tests.support.model_server --script script.json [--record requests.jsonl]`` prints
the port on the first line of stdout and serves until terminated. The script is a JSON list whose items are
``{"text": "...", "usage": [p, c]}``, ``{"tool_calls": [["name", {...}], ...], "text": "..."}``,
``{"error": "...", "status": 429, "headers": {...}}`` or raw ``{"status", "headers", "body", "split"}``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import socket
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest

Framing = Literal["chunked", "length", "close"]
DROP = 0  # a Scripted status: read the request, then close the connection without answering


@dataclass(frozen=True)
class Scripted:
    """One scripted HTTP response.

    ``framing``: ``chunked`` (each network piece is one HTTP chunk), ``length`` (Content-Length) or ``close`` (body
    ends when the connection closes). ``hang_after``: stop sending after that many body bytes and keep the connection
    open (until the client gives up or the server stops). ``close_after``: drop the connection after that many body
    bytes (a broken stream). ``delay_s`` waits before the status line; ``piece_delay_s`` between pieces.
    """

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    split: int | tuple[int, ...] | None = None
    framing: Framing = "chunked"
    delay_s: float = 0.0
    piece_delay_s: float = 0.0
    hang_after: int | None = None
    close_after: int | None = None

    def with_split(self, split: int | tuple[int, ...] | None) -> Scripted:
        """The same response cut into ``split``-byte network pieces."""
        return Scripted(
            self.status,
            dict(self.headers),
            self.body,
            split,
            self.framing,
            self.delay_s,
            self.piece_delay_s,
            self.hang_after,
            self.close_after,
        )


@dataclass(frozen=True)
class RecordedRequest:
    """A request as the server received it; header names are lower-case."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body)


# -- builders ---------------------------------------------------------------------------------------------------------

SSE_HEADERS = {"content-type": "text/event-stream", "cache-control": "no-cache"}


def sse(items: Iterable[dict[str, Any] | str], *, done: bool = True, eol: str = "\n") -> bytes:
    """An SSE body: dicts become ``data: <json>`` events; strings are inserted verbatim (comments, raw lines)."""
    out: list[str] = []
    for item in items:
        if isinstance(item, str):
            out.append(item)
        else:
            out.append(f"data: {json.dumps(item, ensure_ascii=False)}{eol}{eol}")
    if done:
        out.append(f"data: [DONE]{eol}{eol}")
    return "".join(out).encode("utf-8")


def chunk(
    delta: dict[str, Any] | None = None,
    finish_reason: str | None = None,
    *,
    usage: dict[str, int] | None = None,
    choices: bool = True,
    **extra: Any,
) -> dict[str, Any]:
    """One ``chat.completion.chunk`` with a single choice (or ``choices: []`` when ``choices`` is False)."""
    body: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "test-model",
    }
    body["choices"] = (
        [{"index": 0, "delta": delta or {}, "logprobs": None, "finish_reason": finish_reason}] if choices else []
    )
    if usage is not None:
        body["usage"] = usage
    body.update(extra)
    return body


def usage_dict(prompt: int, completion: int) -> dict[str, int]:
    """A ``usage`` object."""
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def text_chunks(
    text: str,
    *,
    piece: int = 16,
    finish: str = "stop",
    usage: tuple[int, int] | None = (10, 5),
    reasoning: str | None = None,
) -> list[dict[str, Any]]:
    """The OpenAI stream of a text answer: role chunk, content pieces, finish chunk, usage chunk."""
    chunks = [chunk({"role": "assistant", "content": ""})]
    if reasoning:
        chunks += [chunk({"reasoning_content": part}) for part in _pieces(reasoning, piece)]
    chunks += [chunk({"content": part}) for part in _pieces(text, piece) if part]
    chunks.append(chunk({}, finish))
    if usage is not None:
        chunks.append(chunk(choices=False, usage=usage_dict(*usage)))
    return chunks


ToolSpec = tuple[str, dict[str, Any] | str]


def tool_chunks(
    calls: Sequence[ToolSpec],
    *,
    text: str | None = None,
    piece: int = 8,
    finish: str = "tool_calls",
    usage: tuple[int, int] | None = (10, 5),
    ids: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """The OpenAI stream of tool calls: each call's id/name first, then its argument text in ``piece``-char parts.

    Arguments given as a dict are serialised compactly; given as a string they are sent as is (for broken JSON).
    """
    chunks = [chunk({"role": "assistant", "content": None, "refusal": None})]
    if text:
        chunks += [chunk({"content": part}) for part in _pieces(text, 16)]
    for index, (name, arguments) in enumerate(calls):
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
        call_id = ids[index] if ids else f"call_{index}"
        chunks.append(
            chunk(
                {
                    "tool_calls": [
                        {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
                    ]
                }
            )
        )
        chunks += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]})
            for part in _pieces(raw, piece)
            if part
        ]
    chunks.append(chunk({}, finish))
    if usage is not None:
        chunks.append(chunk(choices=False, usage=usage_dict(*usage)))
    return chunks


def text_reply(text: str, **kwargs: Any) -> Scripted:
    """A 200 SSE response answering ``text`` (see ``text_chunks`` for options; ``split`` for network pieces)."""
    split = kwargs.pop("split", None)
    return Scripted(200, dict(SSE_HEADERS), sse(text_chunks(text, **kwargs)), split)


def tool_reply(calls: Sequence[ToolSpec], **kwargs: Any) -> Scripted:
    """A 200 SSE response making ``calls`` (see ``tool_chunks``; ``split`` for network pieces)."""
    split = kwargs.pop("split", None)
    return Scripted(200, dict(SSE_HEADERS), sse(tool_chunks(calls, **kwargs)), split)


def error_reply(
    status: int,
    message: str,
    *,
    code: str | None = None,
    error_type: str = "server_error",
    headers: dict[str, str] | None = None,
) -> Scripted:
    """A non-2xx response with an OpenAI-style JSON error body."""
    body = json.dumps({"error": {"message": message, "type": error_type, "param": None, "code": code}})
    return Scripted(status, {"content-type": "application/json", **(headers or {})}, body.encode(), framing="length")


def from_description(item: dict[str, Any]) -> Scripted:
    """A ``Scripted`` from the JSON form used by the subprocess entry point."""
    if "error" in item:
        return error_reply(
            int(item.get("status", 500)), item["error"], code=item.get("code"), headers=item.get("headers")
        )
    if "tool_calls" in item:
        calls = [(name, args) for name, args in item["tool_calls"]]
        return tool_reply(
            calls, text=item.get("text"), usage=tuple(item.get("usage", (10, 5))), split=item.get("split")
        )
    if "text" in item:
        return text_reply(
            item["text"],
            usage=tuple(item.get("usage", (10, 5))),
            reasoning=item.get("reasoning"),
            split=item.get("split"),
        )
    return Scripted(
        int(item.get("status", 200)),
        dict(item.get("headers", SSE_HEADERS)),
        str(item.get("body", "")).encode("utf-8"),
        item.get("split"),
        item.get("framing", "chunked"),
    )


class Reviser:
    """A scripted model for whole runs: in a chunk's first request it submits every paragraph shown as ``[ID: …]``
    with ``f"{prefix} {paragraph_id}"``, a ``reason`` and a ``category`` (``None`` leaves the field out; any string
    is sent as it is, an unknown category too); after the tool result it answers ``done`` without a call."""

    def __init__(self, prefix: str = "revised", reason: str | None = "Smoother.", category: str | None = "fluency"):
        self.prefix, self.reason, self.category = prefix, reason, category

    def item(self, paragraph_id: str) -> dict[str, Any]:
        """One batch item for ``paragraph_id``."""
        item: dict[str, Any] = {"paragraph_id": paragraph_id, "translated_text": f"{self.prefix} {paragraph_id}"}
        if self.reason is not None:
            item["reason"] = self.reason
        if self.category is not None:
            item["category"] = self.category
        return item

    def __call__(self, request: RecordedRequest) -> Scripted:
        messages = request.json["messages"]
        if messages[-1]["role"] != "user":
            return text_reply("done")
        ids = _ID_LINE.findall(messages[-1]["content"])
        return tool_reply([("add_translation_batch", {"paragraphs": [self.item(pid) for pid in ids]})])


_ID_LINE = re.compile(r"^\[\d+\] \[ID: ([^\]\s]+)\]", re.M)


# -- the server -------------------------------------------------------------------------------------------------------


class ModelServer:
    """The scripted server. ``start()`` runs it in a daemon thread; ``stop()`` closes every connection."""

    def __init__(self) -> None:
        self._queue: deque[Scripted] = deque()
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._stopping: asyncio.Event | None = None
        self._ready = threading.Event()
        self.port = 0
        self.connections = 0
        self._hanging = 0
        # Answers requests when the queue is empty (benchmarks: an "ideal model" keyed on the request).
        self.responder: Callable[[RecordedRequest], Scripted] | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in order."""
        with self._lock:
            return list(self._requests)

    @property
    def hanging(self) -> int:
        """Responses holding their connection open now, their first ``hang_after`` bytes sent (tests wait on it)."""
        with self._lock:
            return self._hanging

    @property
    def pending(self) -> int:
        """Scripted responses not used yet."""
        with self._lock:
            return len(self._queue)

    def add(self, *responses: Scripted) -> ModelServer:
        """Queue responses (served in order, one per request)."""
        with self._lock:
            self._queue.extend(responses)
        return self

    def add_text(self, text: str, **kwargs: Any) -> ModelServer:
        """Queue a text answer (``text_reply``)."""
        return self.add(text_reply(text, **kwargs))

    def add_tools(self, calls: Sequence[ToolSpec], **kwargs: Any) -> ModelServer:
        """Queue a tool-call answer (``tool_reply``)."""
        return self.add(tool_reply(calls, **kwargs))

    def add_error(self, status: int, message: str, **kwargs: Any) -> ModelServer:
        """Queue an HTTP error (``error_reply``)."""
        return self.add(error_reply(status, message, **kwargs))

    def start(self) -> ModelServer:
        """Start serving on an ephemeral port of 127.0.0.1 in a background thread."""
        self._thread = threading.Thread(target=self._run, name="model-server", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("model server did not start")
        return self

    def stop(self) -> None:
        """Stop serving and close all connections."""
        if self._loop is None or self._stopping is None:
            return
        self._loop.call_soon_threadsafe(self._stopping.set)
        if self._thread is not None:
            self._thread.join(10)

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        await self._stopping.wait()
        self._server.close()
        for writer in list(self._writers):
            writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._server.wait_closed(), 2)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        self.connections += 1
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                request = await _read_request(reader)
                if request is None:
                    return
                with self._lock:
                    self._requests.append(request)
                    scripted = self._queue.popleft() if self._queue else None
                    responder = self.responder
                if scripted is None and responder is not None:
                    try:
                        scripted = responder(request)
                    except Exception as exc:  # a broken responder answers 500 instead of dropping the connection
                        scripted = error_reply(500, f"model_server: responder failed: {exc!r}")
                if scripted is None:
                    scripted = error_reply(500, "model_server: no scripted response left")
                if not await self._respond(scripted, reader, writer):
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        except asyncio.CancelledError:
            return  # the server is stopping while a response waits (its delay): the connection just closes
        finally:
            self._writers.discard(writer)
            writer.close()

    async def _respond(self, scripted: Scripted, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Send one response; False when the connection must be closed afterwards."""
        if scripted.delay_s:
            await asyncio.sleep(scripted.delay_s)
        if scripted.status == DROP:
            return False  # close without a byte, as a server does with a kept-alive connection it timed out
        body = scripted.body
        headers = {k.lower(): v for k, v in scripted.headers.items()}
        if scripted.framing == "chunked":
            headers["transfer-encoding"] = "chunked"
        elif scripted.framing == "length":
            headers["content-length"] = str(len(body))
        else:
            headers["connection"] = "close"
        reason = _REASONS.get(scripted.status, "Status")
        head = f"HTTP/1.1 {scripted.status} {reason}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        writer.write((head + "\r\n").encode("latin-1"))
        await writer.drain()
        cut = len(body)
        for limit in (scripted.hang_after, scripted.close_after):
            if limit is not None:
                cut = min(cut, limit)
        sizes = list(scripted.split) if isinstance(scripted.split, tuple) else []
        size = scripted.split if isinstance(scripted.split, int) else len(body)
        sent = 0
        while sent < cut:
            full = body[sent : sent + (sizes.pop(0) if sizes else max(size, 1))]
            piece = full[: cut - sent]
            if scripted.framing == "chunked":
                # A cut piece keeps its full declared length, so the client sees an incomplete chunk.
                tail = b"\r\n" if len(piece) == len(full) else b""
                writer.write(f"{len(full):x}\r\n".encode() + piece + tail)
            else:
                writer.write(piece)
            await writer.drain()
            sent += len(piece)
            if scripted.piece_delay_s:
                await asyncio.sleep(scripted.piece_delay_s)
        if scripted.hang_after is not None and scripted.hang_after <= len(body):
            await self._hang(reader)
            return False
        if scripted.close_after is not None and scripted.close_after <= len(body):
            return False
        if scripted.framing == "chunked":
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        return scripted.framing != "close"

    async def _hang(self, reader: asyncio.StreamReader) -> None:
        assert self._stopping is not None
        closed = asyncio.ensure_future(reader.read())  # returns b"" when the client hangs up
        stopping = asyncio.ensure_future(self._stopping.wait())
        with self._lock:
            self._hanging += 1
        try:
            await asyncio.wait({closed, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            with self._lock:
                self._hanging -= 1
            for task in (closed, stopping):
                task.cancel()


_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    402: "Payment Required",
    403: "Forbidden",
    404: "Not Found",
    408: "Request Timeout",
    409: "Conflict",
    422: "Unprocessable Entity",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


async def _read_request(reader: asyncio.StreamReader) -> RecordedRequest | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, path, _version = lines[0].split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        parts: list[bytes] = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            data = await reader.readexactly(size + 2)
            if size == 0:
                break
            parts.append(data[:-2])
        body = b"".join(parts)
    else:
        body = await reader.readexactly(int(headers.get("content-length", "0")))
    return RecordedRequest(method, path, headers, body)


def closed_port() -> int:
    """A port on 127.0.0.1 with nothing listening (for connection-refused tests)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    """A started ``ModelServer``; stopped after the test."""
    server = ModelServer().start()
    try:
        yield server
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    """Serve a JSON script until terminated; print the port first."""
    parser = argparse.ArgumentParser(prog="python -m tests.support.model_server")
    parser.add_argument("--script", help="JSON file: a list of response descriptions")
    parser.add_argument("--record", help="append every request as a JSON line to this file")
    args = parser.parse_args(argv)
    server = ModelServer()
    if args.script:
        with open(args.script, encoding="utf-8") as handle:
            server.add(*(from_description(item) for item in json.load(handle)))
    server.start()
    print(server.port, flush=True)
    seen = 0
    try:
        while True:
            threading.Event().wait(0.05)
            if args.record:
                requests = server.requests
                if len(requests) > seen:
                    with open(args.record, "a", encoding="utf-8") as out:
                        for request in requests[seen:]:
                            out.write(
                                json.dumps(
                                    {
                                        "method": request.method,
                                        "path": request.path,
                                        "headers": request.headers,
                                        "body": request.body.decode("utf-8", "replace"),
                                    }
                                )
                                + "\n"
                            )
                    seen = len(requests)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
