"""A response's bounds (engine.client.limits): a line, an event, the whole response, and its time.

Hostile servers on 127.0.0.1: a gzip body inflating to a gigabyte of one SSE line (memory measured in a separate
process), a stream longer than its size bound, keep-alive comments with no end. Each fails the request with a
``response_limit`` error, is not retried, and leaves memory bounded.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from engine.client import Completed, ModelClient, ModelError, RetryPolicy
from engine.client.limits import MIB, StreamLimitError, StreamLimits
from engine.client.sse import SSEDecoder
from tests.support.model_server import SSE_HEADERS, ModelServer, Scripted, chunk, sse

MESSAGES = [{"role": "user", "content": "Go."}]
ROOT = Path(__file__).resolve().parents[3]


def _gzip_bomb(size: int) -> bytes:
    """``data: {"choices":[{"delta":{"content":"aaaa…`` of ``size`` bytes, never ending its line, gzipped."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip header and trailer
    parts = [packer.compress(b'data: {"choices":[{"index":0,"delta":{"content":"')]
    block = b"a" * MIB
    parts += [packer.compress(block) for _ in range(size // MIB)]
    parts.append(packer.flush())
    return b"".join(parts)


def test_a_line_or_an_event_past_the_bound_is_refused() -> None:
    decoder = SSEDecoder(max_line=1000)
    assert decoder.feed(b"data: " + b"x" * 900 + b"\n\n")  # under the bound: an event
    with pytest.raises(StreamLimitError, match="line longer than"):
        decoder.feed(b"data: " + b"x" * 2000)  # no end of line yet, and already too long
    decoder = SSEDecoder(max_line=1000)
    with pytest.raises(StreamLimitError, match="event larger than"):
        decoder.feed(b"".join(b"data: " + b"y" * 100 + b"\n" for _ in range(20)))  # many short data lines


async def test_a_stream_past_its_size_fails_once_not_retried(model_server: ModelServer) -> None:
    events = [chunk({"role": "assistant", "content": ""})] + [chunk({"content": "z" * 200}) for _ in range(20_000)]
    model_server.add(Scripted(200, dict(SSE_HEADERS), sse(events)), Scripted(200, dict(SSE_HEADERS), sse(events)))
    limits = StreamLimits(response_bytes=1 * MIB, response_seconds=60, line_bytes=MIB)
    async with ModelClient(
        model_server.base_url, "m", limits=limits, retry_policy=RetryPolicy(max_retries=2, time_scale=0.0)
    ) as client:
        got = [e async for e in client.stream(MESSAGES, [])]
    response = got[-1].response  # type: ignore[union-attr]
    assert isinstance(got[-1], Completed) and response.finish_reason == "error"
    assert response.failure.type == "response_limit" and not response.failure.retryable
    assert "grew past 1 MB" in response.failure.message and "response_mb" in response.failure.message
    assert len(model_server.requests) == 1


@pytest.mark.slow
async def test_keep_alive_comments_without_end_stop_at_the_time_bound(model_server: ModelServer) -> None:
    body = b": keep-alive\n\n" * 50
    model_server.add(Scripted(200, dict(SSE_HEADERS), body, hang_after=len(body)))
    limits = StreamLimits(response_bytes=64 * MIB, response_seconds=1.0)
    async with ModelClient(
        model_server.base_url, "m", limits=limits, retry_policy=RetryPolicy(max_retries=2, time_scale=0.0)
    ) as client:
        with pytest.raises(ModelError) as caught:
            _ = [e async for e in client.stream(MESSAGES, [])]
    failure = caught.value.failure
    assert failure.type == "response_limit" and not failure.retryable
    assert "went on for more than 1 s" in failure.message
    assert len(model_server.requests) == 1


@pytest.mark.slow  # a separate process, a gigabyte inflated
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak memory from /proc (Linux)")
def test_a_gzip_bomb_of_one_line_keeps_memory_bounded(tmp_path: Path, model_server: ModelServer) -> None:
    bomb = _gzip_bomb(1024 * MIB)
    assert len(bomb) < 2 * MIB
    model_server.add(Scripted(200, {**SSE_HEADERS, "content-encoding": "gzip"}, bomb, split=64 * 1024))
    # The peak of this process's own memory: VmHWM of its address space. (ru_maxrss would also count the pytest
    # process it was forked from, whose size depends on which tests ran before.)
    script = (
        "import json, sys\n"
        "from tui.cli import main\n"
        f"code = main(['check-model', '--base-url', {model_server.base_url!r}, '--model', 'm', '--json'])\n"
        "hwm = next(int(line.split()[1]) for line in open('/proc/self/status') if line.startswith('VmHWM:'))\n"
        "print(json.dumps({'code': code, 'rss_kb': hwm}), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    measured = json.loads(done.stderr.strip().splitlines()[-1])
    result = json.loads(done.stdout)
    # One 64 KB network read inflates to ~64 MB: the response's size bound or the line's, whichever comes first.
    assert result["error"]["type"] == "response_limit", result
    assert "grew past 64 MB" in result["error"]["message"] or "line longer than 8 MB" in result["error"]["message"]
    print(f"gzip bomb: peak RSS {measured['rss_kb'] // 1024} MB")
    assert measured["rss_kb"] < 400 * 1024, measured  # the bounds, not the gigabyte (8.26 GB before)
    assert len(model_server.requests) == 1  # not retried
