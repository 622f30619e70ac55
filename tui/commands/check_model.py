"""``proofdesk check-model``: one streaming tool-call request to the configured model, shown assembled."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
from typing import Any

from engine.client.client import ModelClient
from engine.client.errors import ModelError
from engine.client.events import Completed, RetryScheduled
from engine.client.response import AssembledResponse
from engine.config import ModelSettings
from engine.tools import default_registry
from tui.cli_errors import EXIT_CANCELLED, EXIT_FAILED, EXIT_OK
from tui.commands.model_flags import add_model_flags, model_settings

PROBE_ID = "e58ed763"
MESSAGES = [
    {"role": "system", "content": "You are checking that tool calling works. Answer only with the tool call asked "
                                  "for."},
    {"role": "user", "content": f"Call get_paragraph_info with paragraph_id \"{PROBE_ID}\". Do not write any text."},
]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``check-model`` subcommand."""
    p = subparsers.add_parser(
        "check-model",
        help="send one streaming tool-call request to the model and show what came back",
        description="Send one streaming chat completion with proofdesk's real tool definitions and print what came "
        "back, assembled: content, reasoning, tool calls (id, name, parsed and raw arguments), finish reason, "
        "usage, error. Exit 0 when the model answered with a well-formed tool call, 1 otherwise.",
    )
    add_model_flags(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=run)


def _report(settings: ModelSettings, response: AssembledResponse | None, retries: list[str],
            error: str | None) -> dict[str, Any]:
    calls = [] if response is None else [
        {"id": c.id, "name": c.name, "arguments": c.arguments, "raw_arguments": c.arguments_raw,
         "error": c.error, "repaired": c.repaired} for c in response.tool_calls]
    well_formed = bool(response and response.ok and calls and all(
        c["error"] is None and not c["repaired"] and c["arguments"] is not None for c in calls))
    usage = dataclasses.asdict(response.usage) if response is not None and response.usage is not None else None
    return {
        "base_url": settings.base_url, "model": settings.model, "ok": well_formed,
        "content": response.content if response else None, "reasoning": response.reasoning if response else None,
        "tool_calls": calls, "finish_reason": response.finish_reason if response else None,
        "finish_reason_raw": response.finish_reason_raw if response else None, "usage": usage,
        "latency_ms": round(response.latency_ms, 1) if response else None, "retries": retries,
        "error": error or (response.error if response else None),
    }


async def _check(settings: ModelSettings) -> dict[str, Any]:
    tools = default_registry().definitions()
    client = ModelClient(settings.base_url, settings.model, api_key=settings.api_key.reveal() if settings.api_key
                         else None, temperature=settings.temperature, extra_headers=settings.headers,
                         extra_body=settings.body)
    retries: list[str] = []
    response = None
    try:
        async for event in client.stream(MESSAGES, tools):
            if isinstance(event, RetryScheduled):
                retries.append(f"attempt {event.attempt} after {event.delay_s:.1f} s: {event.reason}")
            elif isinstance(event, Completed):
                response = event.response
    except ModelError as exc:
        return _report(settings, None, retries, str(exc))
    finally:
        await client.aclose()
    return _report(settings, response, retries, None)


def _print_text(report: dict[str, Any]) -> None:
    out = sys.stdout
    out.write(f"model:         {report['model']} at {report['base_url']}\n")
    if report["error"]:
        out.write(f"error:         {report['error']}\n")
    for retry in report["retries"]:
        out.write(f"retry:         {retry}\n")
    if report["reasoning"]:
        out.write(f"reasoning:     {report['reasoning'][:500]}\n")
    if report["content"]:
        out.write(f"content:       {report['content'][:500]}\n")
    for call in report["tool_calls"]:
        out.write(f"tool call:     {call['name']} (id {call['id']})\n")
        out.write(f"  arguments:   {json.dumps(call['arguments'], ensure_ascii=False)}\n")
        out.write(f"  raw:         {call['raw_arguments']}\n")
        if call["error"] or call["repaired"]:
            out.write(f"  problem:     {call['error'] or 'malformed JSON, repaired'}\n")
    if report["finish_reason"]:
        raw = report["finish_reason_raw"]
        out.write(f"finish:        {report['finish_reason']}" + (f" (sent as {raw!r})" if raw != report[
            "finish_reason"] else "") + "\n")
    if report["usage"]:
        u = report["usage"]
        out.write(f"usage:         {u['prompt_tokens']} prompt + {u['completion_tokens']} completion tokens\n")
    if report["latency_ms"] is not None:
        out.write(f"latency:       {report['latency_ms']:.0f} ms\n")
    out.write("result:        " + ("a well-formed tool call" if report["ok"] else "NO well-formed tool call") + "\n")


def run(args: argparse.Namespace) -> int:
    """Check the configured model."""
    _, settings = model_settings(args)
    if settings.is_demo:
        report = {"base_url": "demo://offline", "model": "demo", "ok": True, "content": "The demo model is "
                  "built in and offline; it needs no check.", "tool_calls": [], "error": None}
        print(json.dumps(report) if args.json else report["content"])
        return EXIT_OK
    try:
        report = asyncio.run(_check(settings))
    except KeyboardInterrupt:
        return EXIT_CANCELLED
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        _print_text(report)
    return EXIT_OK if report["ok"] else EXIT_FAILED
