"""Assembling one streamed response from its SSE events: text, reasoning, tool calls, finish reason, usage, errors.

Tool-call deltas are matched to calls by ``index``; when a server omits it, by ``id``; when both are missing, the
delta continues the last call. A delta starts a new call despite a known index when it brings a different id
(Gemini via proxies sends every call as index 0) or a name plus the start of a new object after the previous
arguments already form a complete object. Names and ids resent on every chunk are not concatenated
(``read_fileread_file``); empty names/ids count as absent. The transcripts in tests/engine/client/ show each
provider's way.
"""

from __future__ import annotations

import json
import re
import secrets
import string
from typing import Any

from engine.client.arguments import parse_arguments, split_concatenated, unwrap_parallel
from engine.client.call_in_progress import CallInProgress
from engine.client.events import ReasoningDelta, StreamEvent, TextDelta, ToolCallProgress
from engine.client.failure import FailureType, ModelFailure, classify
from engine.client.finish import normalise_finish_reason
from engine.client.response import AssembledResponse, ToolCall, Usage
from engine.client.sse import SSEEvent
from engine.client.think import ThinkSplitter, split_orphan_close
from engine.client.usage import normalise_usage
from engine.client.wire import (
    MalformedChunk,
    ProviderError,
    WireChunk,
    WireDelta,
    WireToolCall,
    WireUsage,
    decode_chunk,
    parse_error_payload,
    validate_chunk,
)
from engine.json_depth import MAX_JSON_DEPTH, too_deep

_ID_ALPHABET = string.ascii_letters + string.digits
_SURROGATE = re.compile("[\ud800-\udfff]")


def new_tool_call_id() -> str:
    """A fresh call id: 9 characters of [A-Za-z0-9], the only shape Mistral accepts back."""
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(9))


def fix_surrogates(text: str) -> str:
    """Join UTF-16 surrogate pairs that arrived as separate ``\\uXXXX`` escapes; replace lone halves with U+FFFD.

    JavaScript gateways slice strings by UTF-16 units, so an emoji can arrive as ``\\ud83d`` then ``\\ude00``.
    """
    if text.isascii() or not _SURROGATE.search(text):  # isascii() is O(1): CPython knows it per string
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


class _TextStream:
    """Holds back a trailing high surrogate until its partner arrives, so deltas are always valid text."""

    def __init__(self) -> None:
        self._held = ""

    def push(self, text: str) -> str:
        text = self._held + text
        self._held = ""
        if text and "\ud800" <= text[-1] <= "\udbff":
            self._held, text = text[-1], text[:-1]
        return fix_surrogates(text)

    def flush(self) -> str:
        held, self._held = self._held, ""
        return fix_surrogates(held)


class StreamAssembler:
    """Feed it SSE events (``feed``), then ``finish`` it into an ``AssembledResponse``.

    ``output_started`` turns true with the first text, reasoning or tool-call data; before that an error is
    ``early_error`` (the client may retry the request). ``stopped`` is set by ``[DONE]`` or an error.
    """

    def __init__(self) -> None:
        self._text = _TextStream()
        self._reasoning_stream = _TextStream()
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
        if error is not None:  # llama-server before PR #16109: "error: {...}" outside any data line
            self._fail_with_payload(error)
            return []
        if kind == "error":
            self._fail_with_payload(data or "the server sent an error event")
            return []
        if too_deep(data):
            self._on_error(
                ProviderError(message=f"the server sent a chunk nested more than {MAX_JSON_DEPTH} levels deep")
            )
            return []
        if data[:1] == "{":
            # Fast path: decode and type-check in one pass (msgspec). Lone surrogate escapes, odd field types and
            # error objects take the slow path below.
            chunk = decode_chunk(data)
            if chunk is not None and not chunk.looks_like_error():
                return self._apply(chunk, None)
        elif not data.strip():
            return []  # "data:" with an empty value, or a retry-only block
        elif data.startswith("[DONE]"):
            self.stopped = True
            return []
        try:
            payload = json.loads(data)
        except (ValueError, RecursionError):
            self._on_error(ProviderError(message=f"the server sent data that is not JSON: {data[:80]!r}"))
            return []
        return self.feed_payload(payload)

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
        return self._apply(chunk, provider_error)

    def _apply(self, chunk: WireChunk, provider_error: ProviderError | None) -> list[StreamEvent]:
        usage = chunk.usage
        if usage is None and chunk.x_groq is not None:
            usage = chunk.x_groq.usage
        if usage is not None:
            self._set_usage(usage)
        events: list[StreamEvent] = []
        for choice in chunk.choices or ():
            if choice.index:
                continue  # we ask for one choice; ignore any other (None and 0 are the first)
            if choice.delta is not None and provider_error is None:
                self._delta(choice.delta, events)
            if choice.finish_reason:
                self._finish_raw = choice.finish_reason
        if provider_error is not None:
            self._on_error(provider_error)
        return events

    @property
    def finish_reason_raw(self) -> str | None:
        """The last non-null ``finish_reason`` seen so far."""
        return self._finish_raw

    def fail(self, message: str, kind: FailureType = "truncated_stream") -> None:
        """Record a transport failure (connection lost, read timeout) or a passed bound that ended the stream."""
        if self._failure is None:
            self._failure = ModelFailure(message, kind, None, kind != "response_limit")
        self.stopped = True

    # -- deltas --------------------------------------------------------------------------------------------------

    def _delta(self, delta: WireDelta, events: list[StreamEvent]) -> None:
        reasoning = delta.reasoning_content
        if reasoning is not None:
            field = "reasoning_content"
        else:
            field = "reasoning"
            reasoning = delta.reasoning
        if reasoning and isinstance(reasoning, str):  # a structured "reasoning" object is not text to show
            if field not in self._reasoning_fields:
                self._reasoning_fields.append(field)
            self._field_reasoning.append(reasoning)
            self._add_reasoning(self._reasoning_stream.push(reasoning), events)
        content = delta.content
        if content:
            if isinstance(content, list):
                for part in content:
                    kind, text = _content_part(part)
                    if kind == "reasoning":
                        self._add_reasoning(text, events)
                    else:
                        self._add_text(text, events)
            else:
                self._add_text(content, events)
        if delta.refusal:
            self._add_text(delta.refusal, events)
        if delta.extra_content:
            self._message_extra = _merge(self._message_extra, delta.extra_content)
        if delta.function_call is not None:  # legacy functions API: one call, no index
            self._tool_delta(WireToolCall(index=0, function=delta.function_call), events)
        entries = delta.tool_calls
        if entries is not None:
            if isinstance(entries, WireToolCall):
                self._tool_delta(entries, events)
            else:
                for entry in entries:
                    self._tool_delta(entry, events)

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
        function = entry.function
        if function is None:
            name = None
            fragment = ""
        else:
            name = function.name or None
            arguments = function.arguments
            if arguments is None or isinstance(arguments, str):
                fragment = arguments or ""
            else:  # a whole object (llama-server, TGI, Venice), or a bare value the argument parser will refuse
                fragment = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
        call_id = None if entry.id is None or entry.id == "" else str(entry.id)
        call = self._target(entry.index, call_id, name, fragment)
        changed = False
        if call_id is not None and call.id is None:
            call.id = call_id
            self._by_id.setdefault(call_id, call)
        if name is not None and name != call.name:
            if not call.name:
                call.name = name
                changed = True
            elif not call.args_len and not name.startswith(call.name):
                call.name += name  # a name fragmented across deltas ("edit_ex" + "isting_file")
                changed = True
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
        existing: CallInProgress | None
        if index is not None:
            existing = self._by_index.get(index)
        elif call_id is not None:
            existing = self._by_id.get(call_id)
        else:
            existing = self._calls[-1] if self._calls else None
        if existing is not None and not _starts_new_call(existing, call_id, name, fragment):
            return existing
        call = CallInProgress(len(self._calls))
        self._calls.append(call)
        if index is not None:
            self._by_index[index] = call
        return call

    # -- errors and usage ----------------------------------------------------------------------------------------

    def _fail_with_payload(self, text: str) -> None:
        try:
            payload = json.loads(text)
        except (ValueError, RecursionError):
            payload = None
        found = parse_error_payload(payload) or parse_error_payload({"error": payload})
        self._on_error(found or ProviderError(message=text.strip() or "unknown error"))

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

    def _set_usage(self, usage: WireUsage) -> None:
        normalised = normalise_usage(usage)
        if normalised is not None:  # a later empty block (xAI) must not erase the real counts
            self._usage = normalised

    # -- output --------------------------------------------------------------------------------------------------

    def finish(self, latency_ms: float, attempts: int = 1, first_byte_ms: float | None = None) -> AssembledResponse:
        """The assembled response; call once, after the stream ended (normally or not)."""
        tail = self._text.flush()
        pieces = self._think.feed(tail) if tail else []
        pieces += self._think.flush()
        for inside, piece in pieces:
            (self._reasoning if inside else self._content).append(piece)
        self._reasoning.append(self._reasoning_stream.flush())
        content = "".join(self._content)
        reasoning = "".join(self._reasoning)
        if self._think.found:
            content = content.lstrip()
        else:
            orphan = split_orphan_close(content)
            if orphan is not None:
                reasoning += orphan[0]
                content = orphan[1].lstrip()
        failure = self._failure
        raw = self._finish_raw
        if failure is not None:
            finish = "error"
        elif raw is None:
            finish = "error"
            failure = ModelFailure("the stream ended without a finish reason", "truncated_stream", None, True)
        else:
            finish = normalise_finish_reason(raw, has_tool_calls=bool(self._calls))
            if finish == "error":
                message = f"the server ended the response with finish_reason {raw!r}"
                kind, retryable = classify(message, code=raw)
                failure = ModelFailure(message, kind, raw, retryable)
        # Only a normal end makes calls runnable: after length, an error or a filter their arguments may be cut.
        calls, received = self._final_calls(executable=finish in ("stop", "tool_calls"), finish=finish)
        if finish == "tool_calls" and not calls:
            finish = "stop"
        elif finish == "stop" and calls:
            finish = "tool_calls"
        fields: dict[str, Any] = {}
        field_text = fix_surrogates("".join(self._field_reasoning))
        for name in self._reasoning_fields:
            fields[name] = field_text
        if self._message_extra:
            fields["extra_content"] = self._message_extra
        return AssembledResponse(
            content=content,
            reasoning=reasoning,
            tool_calls=tuple(calls),
            finish_reason=finish,
            finish_reason_raw=raw,
            usage=self._usage,
            failure=failure,
            latency_ms=latency_ms,
            attempts=attempts,
            message_fields=fields,
            received_calls=tuple(received),
            first_byte_ms=first_byte_ms,
        )

    def _final_calls(self, *, executable: bool, finish: str) -> tuple[list[ToolCall], list[ToolCall]]:
        """The calls to run, and (only when a wrapper was expanded) the calls as the model made them."""
        calls: list[ToolCall] = []
        received: list[ToolCall] = []
        expanded = False
        used: set[str] = set()

        def fresh(candidate: str | None) -> str:
            call_id = candidate if candidate and candidate not in used else new_tool_call_id()
            while call_id in used:
                call_id = new_tool_call_id()
            used.add(call_id)
            return call_id

        for call in self._calls:
            raw = fix_surrogates("".join(call.args))
            if not call.name and not raw.strip() and not call.extra:
                continue  # an empty shell (e.g. an id-only delta with nothing after it)
            parts = (split_concatenated(raw) if executable else None) or [raw]
            for number, part in enumerate(parts):
                made = _finished_call(
                    fresh(call.id if number == 0 else None),
                    call.name,
                    part,
                    call.extra,
                    executable=executable,
                    finish=finish,
                )
                received.append(made)
                inner = unwrap_parallel(made.name, made.arguments) if made.executable else None
                if inner is None:
                    calls.append(made)
                    continue
                # OpenAI's hallucinated multi_tool_use.parallel: run the inner calls, each under a fresh id; the
                # wrapper itself is kept for the trace and check-model.
                expanded = True
                calls.extend(
                    ToolCall(
                        fresh(None),
                        inner_name,
                        json.dumps(inner_args, ensure_ascii=False, separators=(",", ":")),
                        inner_args,
                        extra_content=made.extra_content,
                    )
                    for inner_name, inner_args in inner
                )
        return calls, (received if expanded else [])


_NOT_RUN = {
    "length": (
        "ARGUMENTS_TRUNCATED",
        "the response was cut off by the output token limit, so this call may be incomplete and did not run",
    ),
    "content_filter": ("INVALID_ARGUMENTS", "the response was stopped by the content filter, so this call did not run"),
}


def _finished_call(
    call_id: str, name: str, raw: str, extra: dict[str, Any] | None, *, executable: bool, finish: str
) -> ToolCall:
    parsed = parse_arguments(raw, allow_repair=executable)
    if not executable:
        code, why = _NOT_RUN.get(
            finish, ("INVALID_ARGUMENTS", "the response ended with an error, so this call did not run")
        )
        return ToolCall(call_id, name, raw, parsed.arguments, why, False, extra, code)
    if not name:
        return ToolCall(
            call_id,
            name,
            raw,
            parsed.arguments,
            "the tool call has no function name",
            False,
            extra,
            "INVALID_ARGUMENTS",
        )
    return ToolCall(call_id, name, raw, parsed.arguments, parsed.error, parsed.repaired, extra, parsed.error_code)


def _starts_new_call(existing: CallInProgress, call_id: str | None, name: str | None, fragment: str) -> bool:
    if call_id is not None and existing.id is not None:
        return call_id != existing.id
    if (name is not None or call_id is not None) and fragment.lstrip().startswith("{") and existing.args_len:
        return existing.args_form_object()
    return False


def _content_part(part: Any) -> tuple[str, str]:
    """Mistral streams ``content`` as parts: ``{"type": "text", ...}`` or ``{"type": "thinking", ...}``."""
    if isinstance(part, str):
        return "text", part
    if not isinstance(part, dict):
        return "text", ""
    if part.get("type") == "thinking":
        inner = part.get("thinking")
        if isinstance(inner, list):
            return "reasoning", "".join(str(p.get("text", "")) for p in inner if isinstance(p, dict))
        return "reasoning", str(inner or "")
    text = part.get("text")
    return "text", text if isinstance(text, str) else ""


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
