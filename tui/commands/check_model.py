"""``proofdesk check-model``: one streaming tool-call request to the configured model, shown assembled."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

from engine.client.arguments import parse_arguments
from engine.client.errors import ModelError, public_url
from engine.client.events import Completed, RetryScheduled
from engine.client.failure import ModelFailure
from engine.client.response import AssembledResponse, ToolCall
from engine.client.text_calls import lift_text_calls
from engine.config import ModelSettings
from engine.model_open import open_client
from engine.tools import default_registry
from tui.cli_errors import EXIT_CANCELLED, EXIT_FAILED, EXIT_OK
from tui.commands.check_model_advice import Advice, Probe, advise, config_lines
from tui.commands.model_flags import add_model_flags, model_settings
from tui.terminal_text import json_text, visible

PROBE_ID = "e58ed763"
MESSAGES = [
    {
        "role": "system",
        "content": "You are checking that tool calling works. Answer only with the tool call asked for.",
    },
    {"role": "user", "content": f'Call get_paragraph_info with paragraph_id "{PROBE_ID}". Do not write any text.'},
]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``check-model`` subcommand."""
    p = subparsers.add_parser(
        "check-model",
        help="send one streaming tool-call request to the model and show what came back",
        description="Send one streaming chat completion with proofdesk's real tool definitions and print what came "
        "back, assembled: content, reasoning, tool calls (id, name, parsed and raw arguments), finish reason, "
        "usage, error; then, for each problem it knows (a call written as text, no call, <think> blocks, a context too "
        "small, an answer cut by max_tokens, a slow first byte), what to set, as config lines to paste. Exit 0 when "
        "the model answered with a well-formed tool call (also one written as JSON in its text, which a run takes "
        "as a call), 1 otherwise.",
    )
    add_model_flags(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=run)


def _call_json(call: ToolCall) -> dict[str, Any]:
    """One tool call as the contract shows it: the strict parse, the raw text, whether it may run, and the safe
    repair only when the strict parse failed and the repair gives an object."""
    strict = parse_arguments(call.arguments_raw, allow_repair=False)
    entry: dict[str, Any] = {
        "id": call.id,
        "name": call.name,
        "arguments": strict.arguments,
        "raw_arguments": call.arguments_raw,
        "executable": call.executable,
    }
    if strict.arguments is None:
        repaired = parse_arguments(call.arguments_raw)
        if repaired.arguments is not None:
            entry["arguments_repaired"] = repaired.arguments
    if call.error:
        entry["problem"] = call.error
        entry["error_code"] = call.error_code
    return entry


def _report(
    response: AssembledResponse | None, retries: list[dict[str, Any]], failure: ModelFailure | None, latency_ms: float
) -> dict[str, Any]:
    """The ``--json`` object of the contract; a request that failed before any response has ``error``."""
    report = _response_fields(response) if response is not None else _no_response_fields(failure)
    report["retries"] = retries
    report["first_byte_ms"] = _rounded(None if response is None else response.first_byte_ms)
    report["latency_ms"] = round(latency_ms, 1)
    if response is not None and response.received_calls:
        report["expanded_tool_calls"] = [_call_json(c) for c in response.tool_calls]
    return report


def _no_response_fields(failure: ModelFailure | None) -> dict[str, Any]:
    return {
        "content": "",
        "reasoning_content": None,
        "tool_calls": [],
        "finish_reason": "error",
        "finish_reason_raw": None,
        "usage": None,
        "error": None if failure is None else failure.to_json(),
    }


def _response_fields(response: AssembledResponse) -> dict[str, Any]:
    return {
        "content": response.content,
        "reasoning_content": response.reasoning or None,
        "tool_calls": [_call_json(c) for c in response.calls_as_made],
        "finish_reason": response.finish_reason,
        "finish_reason_raw": response.finish_reason_raw,
        "usage": None if response.usage is None else response.usage.to_json(),
        "error": None if response.failure is None else response.failure.to_json(),
    }


def _rounded(ms: float | None) -> float | None:
    return None if ms is None else round(ms, 1)


def _with_advice(
    report: dict[str, Any], response: AssembledResponse | None, settings: ModelSettings, tools: list[dict[str, Any]]
) -> dict[str, Any]:
    """``report`` with the calls its content wrote as JSON (``calls_in_content``, when any) and its ``advice``."""
    written = _written_calls(response, tools)
    if written:
        report["calls_in_content"] = [_call_json(c) for c in written]
    probe = Probe(
        report=report,
        settings=settings,
        calls_in_content=len(written),
        think_blocks=_thinks_inline(response),
    )
    report["advice"] = [advice.to_json() for advice in advise(probe)]
    return report


def _written_calls(response: AssembledResponse | None, tools: list[dict[str, Any]]) -> tuple[ToolCall, ...]:
    """The calls of offered tools the content wrote as JSON, as a run lifts them (engine.client.text_calls)."""
    names = {tool["function"]["name"] for tool in tools}
    lifted = None if response is None else lift_text_calls(response, names, 1)
    return () if lifted is None else lifted.tool_calls


def _thinks_inline(response: AssembledResponse | None) -> bool:
    """Reasoning that came in ``<think>`` spans of the content (no provider field carried it)."""
    if response is None or not response.reasoning:
        return False
    return not {"reasoning_content", "reasoning"} & response.message_fields.keys()


def well_formed(report: dict[str, Any]) -> bool:
    """Exit 0 only for a response that ended normally with tool calls whose arguments parsed strictly: made as
    calls, or written as JSON in the content (a run takes those as calls)."""
    return report["error"] is None and (_made_calls_ok(report) or _written_calls_ok(report))


def _made_calls_ok(report: dict[str, Any]) -> bool:
    calls = report.get("expanded_tool_calls") or report["tool_calls"]
    return report["finish_reason"] == "tool_calls" and _all_parsed(calls)


def _written_calls_ok(report: dict[str, Any]) -> bool:
    return report["finish_reason"] == "stop" and _all_parsed(report.get("calls_in_content") or [])


def _all_parsed(calls: list[dict[str, Any]]) -> bool:
    return bool(calls) and all(c["executable"] and c["arguments"] is not None for c in calls)


async def _check(settings: ModelSettings) -> dict[str, Any]:
    tools = default_registry().definitions()
    client = open_client(settings)
    retries: list[dict[str, Any]] = []
    response = None
    started = time.perf_counter()
    try:
        async for event in client.stream(MESSAGES, tools):
            if isinstance(event, RetryScheduled):
                retries.append({"attempt": event.attempt, "delay_s": round(event.delay_s, 2), "reason": event.reason})
            elif isinstance(event, Completed):
                response = event.response
    except ModelError as exc:
        failed = _report(None, retries, exc.failure, (time.perf_counter() - started) * 1000.0)
        return _with_advice(failed, None, settings, tools)
    finally:
        await client.aclose()
    return _with_advice(
        _report(response, retries, None, (time.perf_counter() - started) * 1000.0), response, settings, tools
    )


def _print_text(settings: ModelSettings, report: dict[str, Any]) -> None:
    lines = [f"model:         {visible(settings.model)} at {visible(public_url(settings.base_url))}"]
    lines += _error_lines(report["error"])
    lines += _retry_lines(report["retries"])
    lines += _answer_lines(report)
    lines.append(_finish_line(report))
    lines += _usage_lines(report["usage"])
    first = report["first_byte_ms"]
    took = f"first byte {first:.0f} ms, " if first is not None else ""
    lines.append(f"latency:       {took}total {report['latency_ms']:.0f} ms")
    lines.append(f"result:        {_verdict(report)}")
    lines += _advice_lines(report, settings)
    sys.stdout.write("".join(line + "\n" for line in lines))


def _retry_lines(retries: list[dict[str, Any]]) -> list[str]:
    return [
        f"retry:         attempt {retry['attempt']} after {retry['delay_s']:.1f} s: {visible(retry['reason'])}"
        for retry in retries
    ]


def _answer_lines(report: dict[str, Any]) -> list[str]:
    """Reasoning, content and the calls: as made, as expanded from a wrapper, as written in the content."""
    lines = [f"reasoning:     {visible(report['reasoning_content'][:500])}"] if report["reasoning_content"] else []
    lines += [f"content:       {visible(report['content'][:500])}"] if report["content"] else []
    titled = (
        ("tool call:", report["tool_calls"]),
        ("expanded to:", report.get("expanded_tool_calls", [])),
        ("in content:", report.get("calls_in_content", [])),
    )
    return lines + [line for title, calls in titled for call in calls for line in _call_lines(title, call)]


def _verdict(report: dict[str, Any]) -> str:
    if not well_formed(report):
        return "NO well-formed tool call"
    if _made_calls_ok(report):
        return "a well-formed tool call"
    return "a well-formed tool call, written as JSON in the content (a run takes it as a call)"


def _advice_lines(report: dict[str, Any], settings: ModelSettings) -> list[str]:
    """Each problem in a sentence, then the config lines to paste for all of them."""
    found = [Advice(a["code"], a["problem"], tuple(a["profile"]), tuple(a["run"])) for a in report["advice"]]
    lines = [f"advice:        {visible(advice.problem)}" for advice in found]
    paste = config_lines(found, settings)
    if paste:
        lines.append("set in config.toml (proofdesk's config folder, or PROOFDESK_CONFIG):")
        lines += [f"  {visible(line)}" for line in paste]
    return lines


def _error_lines(error: dict[str, Any] | None) -> list[str]:
    if not error:
        return []
    retryable = ", retryable" if error["retryable"] else ", not retryable"
    return [f"error:         {visible(error['message'])} ({error['type']}{retryable})"]


def _usage_lines(usage: dict[str, Any] | None) -> list[str]:
    if not usage:
        return []
    cached = f" ({usage['cached_tokens']} cached)" if usage.get("cached_tokens") is not None else ""
    return [f"usage:         {usage['prompt_tokens']} prompt{cached} + {usage['completion_tokens']} completion tokens"]


def _call_lines(title: str, call: dict[str, Any]) -> list[str]:
    """One tool call: name and id, the arguments as read (strictly, else by the safe repair), the raw text, and
    what is wrong with it."""
    say = visible
    shown = call["arguments"] if call["arguments"] is not None else call.get("arguments_repaired")
    lines = [
        f"{title:<15}{say(call['name'])} (id {say(call['id'])})",
        f"  arguments:   {say(json.dumps(shown, ensure_ascii=False))}",
        f"  raw:         {say(call['raw_arguments'])}",
    ]
    if "arguments_repaired" in call:
        lines.append("  problem:     malformed JSON; only a safe repair reads it")
    elif call.get("problem"):
        lines.append(f"  problem:     {say(call['problem'])}")
    return lines


def _finish_line(report: dict[str, Any]) -> str:
    raw = report["finish_reason_raw"]
    sent_as = f" (sent as {visible(repr(raw))})" if raw and raw != report["finish_reason"] else ""
    return f"finish:        {report['finish_reason']}{sent_as}"


def run(args: argparse.Namespace) -> int:
    """Check the configured model."""
    _, settings = model_settings(args)
    if settings.is_demo:
        note = "The demo model is built in and offline; it needs no check."
        if args.json:
            print(
                json_text(
                    {
                        "content": note,
                        "reasoning_content": None,
                        "tool_calls": [],
                        "finish_reason": "stop",
                        "finish_reason_raw": None,
                        "usage": None,
                        "error": None,
                        "retries": [],
                        "first_byte_ms": None,
                        "latency_ms": 0.0,
                        "advice": [],
                    }
                )
            )
        else:
            print(note)
        return EXIT_OK
    try:
        report = asyncio.run(_check(settings))
    except KeyboardInterrupt:
        return EXIT_CANCELLED
    if args.json:
        print(json_text(report))
    else:
        _print_text(settings, report)
    return EXIT_OK if well_formed(report) else EXIT_FAILED
