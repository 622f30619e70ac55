"""The scripted server itself: network pieces really arrive apart, requests are recorded, subprocess entry works."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from engine.client import Completed, ModelClient, ModelHTTPError, RetryPolicy
from tests.support.model_server import ModelServer, text_reply

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("split", [1, 3, 7])
async def test_each_piece_is_its_own_read(model_server: ModelServer, split: int) -> None:
    reply = text_reply("piece by piece", split=split)
    model_server.add(reply)
    async with (
        httpx.AsyncClient() as client,
        client.stream("POST", f"{model_server.base_url}/chat/completions", json={"x": 1}) as response,
    ):
        sizes = [len(data) async for data in response.aiter_bytes()]
    assert sum(sizes) == len(reply.body)
    assert max(sizes) == split and len(sizes) == -(-len(reply.body) // split)


async def test_requests_are_recorded_and_an_empty_queue_says_so(model_server: ModelServer) -> None:
    async with ModelClient(
        model_server.base_url, "m", api_key="k-123", retry_policy=RetryPolicy(max_retries=0)
    ) as client:
        with pytest.raises(ModelHTTPError) as caught:
            await client.stream([{"role": "user", "content": "é"}], []).__anext__()
    assert "no scripted response left" in str(caught.value)
    (request,) = model_server.requests
    assert request.json["messages"] == [{"role": "user", "content": "é"}]
    assert request.headers["authorization"] == "Bearer k-123"


def test_subprocess_entry_point(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    record = tmp_path / "requests.jsonl"
    script.write_text(
        json.dumps(
            [
                {"tool_calls": [["read_file", {"path": "a"}]], "usage": [3, 4]},
                {"text": "Done.", "split": 2},
                {"error": "slow", "status": 429},
            ]
        )
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.model_server", "--script", str(script), "--record", str(record)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        with httpx.Client(base_url=f"http://127.0.0.1:{port}/v1") as client:
            first = client.post("/chat/completions", json={"n": 1})
            second = client.post("/chat/completions", json={"n": 2})
            third = client.post("/chat/completions", json={"n": 3})
        assert '"read_file"' in first.text and '"prompt_tokens": 3' in first.text
        assert '"Done."' in second.text
        assert third.status_code == 429 and third.json()["error"]["message"] == "slow"
        for _ in range(200):  # the recorder appends every 50 ms
            if record.exists() and len(record.read_text().splitlines()) >= 3:
                break
            time.sleep(0.05)
        bodies = [json.loads(json.loads(line)["body"]) for line in record.read_text().splitlines()]
        assert bodies == [{"n": 1}, {"n": 2}, {"n": 3}]
    finally:
        process.terminate()
        process.wait(10)


async def test_text_reply_assembles_through_the_client(model_server: ModelServer) -> None:
    model_server.add_text("Bonjour.", reasoning="Short.", usage=(7, 3))
    async with ModelClient(model_server.base_url, "m") as client:
        events = [event async for event in client.stream([], [])]
    final = events[-1]
    assert isinstance(final, Completed)
    assert (final.response.content, final.response.reasoning, final.response.usage.total_tokens) == (
        "Bonjour.",
        "Short.",
        10,
    )
