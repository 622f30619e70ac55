"""Certificates are verified for every https endpoint, however its scheme is spelled: a self-signed server on
127.0.0.1 gets no request (and so never the key) from ``HTTPS://`` or ``Https://`` base URLs."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.config import ApiKey, ModelSettings
from engine.model_open import needs_tls
from engine.run_chapters import run_chapters
from engine.run_request import RunRequest
from tests.engine.loop_support import write_chapter

KEY = "sk-canary-tls-5e1f0a"


class SelfSignedServer:
    """Accepts TLS connections with a self-signed certificate and records any bytes sent after a handshake."""

    def __init__(self, folder: Path) -> None:
        cert, key = folder / "cert.pem", folder / "key.pem"
        subprocess.run(
            [
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                str(key),
                "-out",
                str(cert),
                "-days",
                "1",
                "-subj",
                "/CN=127.0.0.1",
                "-addext",
                "subjectAltName=IP:127.0.0.1",
            ],
            check=True,
            capture_output=True,
        )
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(cert, key)
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.received: list[bytes] = []
        self.handshakes = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            try:
                with self.context.wrap_socket(conn, server_side=True) as tls:
                    self.handshakes += 1
                    tls.settimeout(2)
                    data = tls.recv(65536)
                    if data:
                        self.received.append(data)
            except (ssl.SSLError, OSError):
                pass  # the client refused our certificate: what must happen

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[SelfSignedServer]:
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a certificate")
    server = SelfSignedServer(tmp_path)
    yield server
    server.close()


def test_every_spelling_of_https_needs_tls() -> None:
    for url in ("HTTPS://api.example.com/v1", "Https://api.example.com/v1", "https://api.example.com/v1"):
        assert needs_tls([ModelSettings(model="m", base_url=url)])
    assert not needs_tls([ModelSettings(model="m", base_url="HTTP://127.0.0.1:8080/v1")])


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["HTTPS", "Https"])
async def test_a_self_signed_server_never_gets_a_request(
    tmp_path: Path, tls_server: SelfSignedServer, scheme: str
) -> None:
    path = write_chapter(tmp_path)
    settings = ModelSettings(
        model="m",
        base_url=f"{scheme}://127.0.0.1:{tls_server.port}/v1",
        api_key=ApiKey(KEY),
        connect_timeout=5,
        read_timeout=5,
    )
    events = [e async for e in run_chapters([RunRequest(path, "translate", settings)])]
    finished = events[-1]
    assert finished.kind == "run_finished" and finished.status != "complete"
    assert tls_server.received == []  # the handshake failed on our side: no request, no Authorization header
    assert KEY not in repr(events)
    assert "certificate" in repr(events).lower() or "ssl" in repr(events).lower()
