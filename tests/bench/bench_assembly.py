"""Assembling hostile tool-call streams: time grows with the bytes, not their square (issue 17 item 9).

Run: ``.venv/bin/python tests/bench/bench_assembly.py``. The stream repeats the function name on every fragment
and starts each with ``{`` — the shape that made the assembler re-join and re-parse the arguments per fragment
(800 KB took more than 300 s). Prints the median of 5 runs per size and the ratio to the smallest size.
"""

from __future__ import annotations

import json
import statistics
import time

from engine.client.assembly import StreamAssembler
from engine.client.sse import SSEEvent


def events(kilobytes: int) -> list[SSEEvent]:
    fragment = "{abcdefghi" * 10  # 100 characters
    made = [
        SSEEvent(
            "message",
            json.dumps(
                {
                    "choices": [
                        {
                            "index": 0,
                            "delta": {
                                "tool_calls": [
                                    {
                                        "index": 0,
                                        "function": {"name": "get_paragraph_info", "arguments": '{"paragraph_id": "'},
                                    }
                                ]
                            },
                        }
                    ]
                }
            ),
        )
    ]
    one = SSEEvent(
        "message",
        json.dumps(
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {"index": 0, "function": {"name": "get_paragraph_info", "arguments": fragment}}
                            ]
                        },
                    }
                ]
            }
        ),
    )
    made += [one] * (kilobytes * 10)
    made.append(
        SSEEvent(
            "message",
            json.dumps(
                {
                    "choices": [
                        {
                            "index": 0,
                            "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '"}'}}]},
                            "finish_reason": "tool_calls",
                        }
                    ]
                }
            ),
        )
    )
    return made


def assemble(stream: list[SSEEvent]) -> float:
    started = time.perf_counter()
    assembler = StreamAssembler()
    for event in stream:
        assembler.feed(event)
    response = assembler.finish(0.0)
    assert response.tool_calls[0].arguments is not None
    return time.perf_counter() - started


def main() -> None:
    print("hostile tool-call stream (name on every fragment, each starting with '{'), median of 5")
    base = None
    for kilobytes in (100, 200, 400, 800):
        stream = events(kilobytes)
        median = statistics.median(assemble(stream) for _ in range(5))
        base = base or median
        print(
            f"  {kilobytes:4} KB of arguments in {len(stream):,} fragments: {median * 1000:8.1f} ms "
            f"({median / base:.1f}x the 100 KB time)"
        )


if __name__ == "__main__":
    main()
