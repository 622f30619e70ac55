"""Assembling one streamed response from its SSE events: text, reasoning, tool calls, finish reason, usage, errors.

Tool-call deltas are matched to calls by ``index``; when a server omits it, by ``id``; when both are missing, the
delta continues the last call. A delta starts a new call despite a known index when it brings a different id
(Gemini via proxies sends every call as index 0) or a name plus the start of a new object after the previous
arguments already form a complete object. Names and ids resent on every chunk are not concatenated
(``read_fileread_file``); empty names/ids count as absent. The transcripts in tests/engine/client/ show each
provider's way.

The common chunk (one ``data:`` line of JSON with one choice and a text or argument fragment) takes ``feed`` →
``_apply`` → ``_delta_words`` and ``_delta_calls`` → ``_add_text`` or ``_tool_delta``; everything else (errors,
``[DONE]``, odd shapes, reasoning fields, content parts) branches off into its own step.
"""

from __future__ import annotations

import json
from typing import Any

from engine.client.call_in_progress import CallInProgress
from engine.client.events import ReasoningDelta, StreamEvent, TextDelta, ToolCallProgress
from engine.client.failure import FailureType, ModelFailure, classify
from engine.client.final_calls import final_calls
from engine.client.finish import FinishReason, agreeing_with_calls, normalise_finish_reason
from engine.client.response import AssembledResponse, Usage
from engine.client.sse import SSEEvent
from engine.client.text_stream import TextStream, fix_surrogates
from engine.client.think import ThinkSplitter, split_orphan_close
from engine.client.usage import normalise_usage
from engine.client.wire import (
    MalformedChunk,
    ProviderError,
    WireChunk,
    WireDelta,
    WireFunction,
    WireToolCall,
    decode_chunk,
    parse_error_payload,
    validate_chunk,
)
from engine.json_depth import MAX_JSON_DEPTH, too_deep

_NO_FUNCTION = WireFunction()  # a tool-call delta without ``function`` (an id-only delta): no name, no arguments


class StreamAssembler:
    """Feed it SSE events (``feed``), then ``finish`` it into an ``AssembledResponse``.

    ``output_started`` turns true with the first text, reasoning or tool-call data; before that an error is
    ``early_error`` (the client may retry the request). ``stopped`` is set by ``[DONE]`` or an error.
    """

    def __init__(self) -> None:
        self._text = TextStream()
        self._reasoning_stream = TextStream()
        self._think = ThinkSplitter()
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._reasoning_fields: list[str] = []  # field names the provider used, echoed back
        self._field_reasoning: list[str] = []
        self._calls: list[CallInProgress] = []
        self._by_index: dict[int, CallInProgress] = {}
        self._by_id: dict[str, CallInProgress] = {}
        self._message_extra: dict[str, Any] | None = None
        self._finish_raw: str | None = None
        self._usage: Usage | None = None
        self._failure: ModelFailure | None = None
        self.output_started = False
        self.stopped = False
        self.early_error: ProviderError | None = None
        self.first_byte_ms: float | None = None

    # -- input ---------------------------------------------------------------------------------------------------

    def feed(self, event: SSEEvent) -> list[StreamEvent]:
        """Apply one SSE event; return the deltas it produced."""
        if self.stopped:
            return []
        kind, data, _, error = event
        if error is None and kind != "error" and data[:1] == "{" and not too_deep(data):
            # Fast path: decode and type-check in one pass (msgspec). Lone surrogate escapes, odd field types and
            # error objects take the slow path.
            chunk = decode_chunk(data)
            if chunk is not None and not chunk.looks_like_error():
                return self._apply(chunk)
            return self._feed_json(data)
        return self._feed_unusual(kind, data, error)

    def feed_all(self, events: list[SSEEvent]) -> list[StreamEvent]:
        """Apply the events of one network read; return the deltas they produced."""
        produced: list[StreamEvent] = []
        for event in events:
            produced += self.feed(event)
        return produced

    def feed_payload(self, payload: Any) -> list[StreamEvent]:
        """Apply one decoded chunk (also used for a non-streamed JSON completion turned into a chunk)."""
        provider_error = parse_error_payload(payload)
        if not isinstance(payload, dict):
            self._on_error(provider_error or ProviderError(message="the server sent a chunk that is not an object"))
            return []
        try:
            chunk = validate_chunk(payload)
        except MalformedChunk as exc:
            self._on_error(provider_error or ProviderError(message=f"the server sent a malformed chunk ({exc.where})"))
            return []
        if provider_error is None:
            return self._apply(chunk)
        self._apply_error_chunk(chunk, provider_error)
        return []

    @property
    def finish_reason_raw(self) -> str | None:
        """The last non-null ``finish_reason`` seen so far."""
        return self._finish_raw

    def fail(self, message: str, kind: FailureType = "truncated_stream") -> None:
        """Record a transport failure (connection lost, read timeout) or a passed bound that ended the stream."""
        if self._failure is None:
            self._failure = ModelFailure(message, kind, None, kind != "response_limit")
        self.stopped = True

    def _feed_unusual(self, kind: str, data: str, error: str | None) -> list[StreamEvent]:
        """An event that is not a plain JSON chunk: an error, ``[DONE]``, an empty or over-nested one, or a chunk
        that does not start with ``{``."""
        refused = _refused(kind, data, error)
        if refused is not None:
            self._on_error(refused)
            return []
        if not data.strip():
            return []  # "data:" with an empty value, or a retry-only block
        if data.startswith("[DONE]"):
            self.stopped = True
            return []
        return self._feed_json(data)

    def _feed_json(self, data: str) -> list[StreamEvent]:
        """The slow path: ``json`` reads what msgspec would not, and pydantic's lax mode validates it."""
        try:
            payload = json.loads(data)
        except (ValueError, RecursionError):
            self._on_error(ProviderError(message=f"the server sent data that is not JSON: {data[:80]!r}"))
            return []
        return self.feed_payload(payload)

    def _apply(self, chunk: WireChunk) -> list[StreamEvent]:
        if chunk.usage is not None or chunk.x_groq is not None:
            self._set_usage(chunk)
        events: list[StreamEvent] = []
        for choice in chunk.choices or ():
            if choice.index:
                continue  # we ask for one choice; ignore any other (None and 0 are the first)
            delta = choice.delta
            if delta is not None:
                self._delta_words(delta, events)
                self._delta_calls(delta, events)
            if choice.finish_reason:
                self._finish_raw = choice.finish_reason
        return events

    def _apply_error_chunk(self, chunk: WireChunk, error: ProviderError) -> None:
        """An error object that also has the fields of a chunk: its usage and finish reason count, its deltas not."""
        for choice in chunk.choices or ():
            choice.delta = None
        self._apply(chunk)
        self._on_error(error)

    # -- deltas --------------------------------------------------------------------------------------------------

    def _delta_words(self, delta: WireDelta, events: list[StreamEvent]) -> None:
        """The delta's words: reasoning fields, the content (text or parts), a refusal (shown as text)."""
        if delta.reasoning_content is not None or delta.reasoning is not None:
            self._reasoning_delta(delta, events)
        content = delta.content
        if content:
            if isinstance(content, str):
                self._add_text(content, events)
            else:
                self._add_parts(content, events)
        if delta.refusal:
            self._add_text(delta.refusal, events)

    def _delta_calls(self, delta: WireDelta, events: list[StreamEvent]) -> None:
        """The delta's tool calls (a list, one object, or a legacy ``function_call``) and the provider metadata that
        goes with them (Gemini's thought signatures in ``extra_content``), after its words."""
        if delta.extra_content:
            self._message_extra = _merge(self._message_extra, delta.extra_content)
        if delta.function_call is not None:  # legacy functions API: one call, no index
            self._tool_delta(WireToolCall(index=0, function=delta.function_call), events)
        entries = delta.tool_calls
        if entries is not None:
            for entry in (entries,) if isinstance(entries, WireToolCall) else entries:
                self._tool_delta(entry, events)

    def _reasoning_delta(self, delta: WireDelta, events: list[StreamEvent]) -> None:
        """``reasoning_content`` (DeepSeek, vLLM) or ``reasoning`` (OpenRouter, Ollama): text to show and echo back."""
        field, reasoning = "reasoning_content", delta.reasoning_content
        if reasoning is None:
            field, reasoning = "reasoning", delta.reasoning
        if not reasoning or not isinstance(reasoning, str):
            return  # a structured "reasoning" object is not text to show
        if field not in self._reasoning_fields:
            self._reasoning_fields.append(field)
        self._field_reasoning.append(reasoning)
        self._add_reasoning(self._reasoning_stream.push(reasoning), events)

    def _add_parts(self, parts: list[Any], events: list[StreamEvent]) -> None:
        """Mistral streams ``content`` as parts: ``{"type": "text", ...}`` or ``{"type": "thinking", ...}``."""
        for part in parts:
            kind, text = _content_part(part)
            if kind == "reasoning":
                self._add_reasoning(text, events)
            else:
                self._add_text(text, events)

    def _add_text(self, text: str, events: list[StreamEvent]) -> None:
        if not text:
            return
        self.output_started = True
        for inside, piece in self._think.feed(self._text.push(text)):
            if inside:
                self._add_reasoning(piece, events)
            else:
                self._content.append(piece)
                events.append(TextDelta(piece))

    def _add_reasoning(self, text: str, events: list[StreamEvent]) -> None:
        if not text:
            return
        self.output_started = True
        self._reasoning.append(text)
        events.append(ReasoningDelta(text))

    def _tool_delta(self, entry: WireToolCall, events: list[StreamEvent]) -> None:
        function = entry.function or _NO_FUNCTION
        fragment = function.arguments
        if fragment.__class__ is not str:
            fragment = _arguments_text(fragment)
        name = function.name or None  # an empty name counts as absent
        call_id = None if entry.id is None else str(entry.id) or None
        call = self._target(entry.index, call_id, name, fragment)
        changed = name is not None and call.take_name(name)
        if fragment:
            call.args.append(fragment)
            call.args_len += len(fragment)
            changed = True
        if entry.extra_content:
            call.extra = _merge(call.extra, entry.extra_content)
        if changed:
            self.output_started = True
            events.append(ToolCallProgress(call.position, call.name, call.args_len))

    def _target(self, index: int | None, call_id: str | None, name: str | None, fragment: str) -> CallInProgress:
        """The call a delta continues, or a new one; it takes the delta's id when it had none."""
        call = self._by_index.get(index) if index is not None else self._unindexed(call_id)
        if call is None or call.starts_new_call(call_id, name, fragment):
            call = self._new_call(index)
        if call_id is not None and call.id is None:
            call.id = call_id
            self._by_id.setdefault(call_id, call)
        return call

    def _unindexed(self, call_id: str | None) -> CallInProgress | None:
        """A server that omits ``index``: the call with the same id, or else the last call."""
        if call_id is not None:
            return self._by_id.get(call_id)
        return self._calls[-1] if self._calls else None

    def _new_call(self, index: int | None) -> CallInProgress:
        call = CallInProgress(len(self._calls))
        self._calls.append(call)
        if index is not None:
            self._by_index[index] = call
        return call

    # -- errors and usage ----------------------------------------------------------------------------------------

    def _on_error(self, error: ProviderError) -> None:
        if self.stopped:
            return
        if not self.output_started:
            self.early_error = error
        status = f" ({error.status})" if error.status else ""
        message = f"the server reported an error during the response{status}: {error.message}"
        kind, retryable = classify(error.message, status=error.status, code=error.code, error_type=error.type)
        self._failure = ModelFailure(
            message, kind, error.code or error.type, retryable, error.retry_delay_s, error.status
        )
        self.stopped = True

    def _set_usage(self, chunk: WireChunk) -> None:
        """The chunk's usage (Groq's 2024 ``x_groq.usage`` when there is no other)."""
        usage = chunk.usage
        if usage is None and chunk.x_groq is not None:
            usage = chunk.x_groq.usage
        normalised = None if usage is None else normalise_usage(usage)
        if normalised is not None:  # a later empty block (xAI) must not erase the real counts
            self._usage = normalised

    # -- output --------------------------------------------------------------------------------------------------

    def finish(self, latency_ms: float, attempts: int = 1, first_byte_ms: float | None = None) -> AssembledResponse:
        """The assembled response; call once, after the stream ended (normally or not)."""
        content, reasoning = self._final_text()
        finish, failure = self._ending()
        # Only a normal end makes calls runnable: after length, an error or a filter their arguments may be cut.
        calls, received = final_calls(self._calls, executable=finish in ("stop", "tool_calls"), finish=finish)
        return AssembledResponse(
            content=content,
            reasoning=reasoning,
            tool_calls=tuple(calls),
            finish_reason=agreeing_with_calls(finish, has_tool_calls=bool(calls)),
            finish_reason_raw=self._finish_raw,
            usage=self._usage,
            failure=failure,
            latency_ms=latency_ms,
            attempts=attempts,
            message_fields=self._message_fields(),
            received_calls=tuple(received),
            first_byte_ms=first_byte_ms,
        )

    def _final_text(self) -> tuple[str, str]:
        """The answer and the reasoning; a ``</think>`` without its opening tag ends reasoning the prompt opened."""
        self._flush_text()
        content = "".join(self._content)
        reasoning = "".join(self._reasoning)
        if self._think.found:
            return content.lstrip(), reasoning
        orphan = split_orphan_close(content)
        if orphan is None:
            return content, reasoning
        return orphan[1].lstrip(), reasoning + orphan[0]

    def _flush_text(self) -> None:
        """Release what the surrogate and ``<think>`` splitters held back."""
        tail = self._text.flush()
        pieces = self._think.feed(tail) if tail else []
        pieces += self._think.flush()
        for inside, piece in pieces:
            (self._reasoning if inside else self._content).append(piece)
        self._reasoning.append(self._reasoning_stream.flush())

    def _ending(self) -> tuple[FinishReason, ModelFailure | None]:
        """The finish reason and, when it is an error, the failure that says why."""
        raw = self._finish_raw
        if self._failure is not None:
            return "error", self._failure
        if raw is None:
            return "error", ModelFailure("the stream ended without a finish reason", "truncated_stream", None, True)
        finish = normalise_finish_reason(raw, has_tool_calls=bool(self._calls))
        if finish != "error":
            return finish, None
        message = f"the server ended the response with finish_reason {raw!r}"
        kind, retryable = classify(message, code=raw)
        return "error", ModelFailure(message, kind, raw, retryable)

    def _message_fields(self) -> dict[str, Any]:
        """Provider fields to echo back on the assistant message: the reasoning fields and ``extra_content``."""
        fields: dict[str, Any] = dict.fromkeys(self._reasoning_fields, fix_surrogates("".join(self._field_reasoning)))
        if self._message_extra:
            fields["extra_content"] = self._message_extra
        return fields


def _refused(kind: str, data: str, error: str | None) -> ProviderError | None:
    """The error an event carries instead of a chunk, or None."""
    if error is not None:  # llama-server before PR #16109: "error: {...}" outside any data line
        return _error_in(error)
    if kind == "error":
        return _error_in(data or "the server sent an error event")
    if too_deep(data):
        return ProviderError(message=f"the server sent a chunk nested more than {MAX_JSON_DEPTH} levels deep")
    return None


def _error_in(text: str) -> ProviderError:
    """The provider's error in the text of an error event (an error object, or its inside, or words)."""
    try:
        payload = json.loads(text)
    except (ValueError, RecursionError):
        payload = None
    found = parse_error_payload(payload) or parse_error_payload({"error": payload})
    return found or ProviderError(message=text.strip() or "unknown error")


def _arguments_text(arguments: Any) -> str:
    """Arguments that are not a text fragment: none yet, or a whole object (llama-server, TGI, Venice) as text; a
    bare value the argument parser will refuse stays refusable."""
    if arguments is None:
        return ""
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))


def _content_part(part: Any) -> tuple[str, str]:
    """A content part's kind (``text`` or ``reasoning``) and its text."""
    if isinstance(part, str):
        return "text", part
    if not isinstance(part, dict):
        return "text", ""
    if part.get("type") == "thinking":
        return "reasoning", _thinking_text(part.get("thinking"))
    text = part.get("text")
    return "text", text if isinstance(text, str) else ""


def _thinking_text(inner: Any) -> str:
    if isinstance(inner, list):
        return "".join(str(p.get("text", "")) for p in inner if isinstance(p, dict))
    return str(inner or "")


def _merge(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    if not old:
        return dict(new)
    merged = dict(old)
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged
