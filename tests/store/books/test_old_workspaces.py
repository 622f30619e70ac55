"""A workspace made by the import before issue 29 still exports its blocks exactly as then.

``tests/data/old_epub_workspace/ws`` was imported and translated by the code of commit 4cccf24 (the book of
``test_epub_roundtrip``); ``translated-*.xhtml`` and ``bilingual-*.xhtml`` are what that code exported. Today's export
of the same workspace must give the same body, attribute for attribute, once the language marks that issue 29 adds
(``lang``/``xml:lang``) are set aside.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from tui.cli import main

OLD = Path(__file__).resolve().parents[2] / "data" / "old_epub_workspace"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def _body(data: bytes) -> bytes:
    """The document's body in canonical form, without language marks."""
    root = etree.fromstring(data)
    for el in root.iter():
        if isinstance(el.tag, str):
            el.attrib.pop("lang", None)
            el.attrib.pop(XML_LANG, None)
    body = next(el for el in root.iter() if isinstance(el.tag, str) and el.tag.endswith("}body"))
    return etree.tostring(body, method="c14n")


@pytest.mark.parametrize("mode", ["translated", "bilingual"])
def test_an_old_workspace_exports_its_blocks_as_before(tmp_path: Path, mode: str) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(OLD / "ws", ws)
    out = tmp_path / "out.epub"
    assert main(["export", str(ws), "--epub", str(out), *(["--bilingual"] if mode == "bilingual" else [])]) == 0
    with zipfile.ZipFile(out) as zf:
        for name in ("ch1.xhtml", "ch2.xhtml"):
            assert _body(zf.read(f"OEBPS/{name}")) == _body((OLD / f"{mode}-{name}").read_bytes()), name
