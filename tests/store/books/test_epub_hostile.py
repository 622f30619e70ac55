"""Hostile and broken EPUBs: one clear error, exit 2, nothing written anywhere."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import pytest

from tests.store.books.epub_builder import CONTAINER, build_epub
from tui.cli import main

OK_BODY = "<p>本文</p>"


def _work(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir(exist_ok=True)
    return tmp_path / "work"


def _run(tmp_path: Path, book: Path, capsys: pytest.CaptureFixture[str]) -> str:
    # (tmp_path/_home holds the CLI's own log, set up by the conftest: only the book's folder is compared)
    before = set(book.parent.rglob("*"))
    assert main(["import", str(book), "-o", str(book.parent / "ws")]) == 2
    assert set(book.parent.rglob("*")) == before  # nothing written, not even a temp folder
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1
    return err


def test_path_traversal_member(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book = build_epub(_work(tmp_path) / "b.epub", [("a.xhtml", "A", OK_BODY)], extra={"../../x": b"evil"})
    assert "unsafe member name '../../x'" in _run(tmp_path, book, capsys)
    assert not (tmp_path.parent / "x").exists()


def test_zip_bomb_ratio(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book = build_epub(
        _work(tmp_path) / "b.epub", [("a.xhtml", "A", OK_BODY)], extra={"OEBPS/bomb.txt": b"\0" * 50_000_000}
    )
    assert "zip bomb" in _run(tmp_path, book, capsys)


def test_two_gigabytes_declared(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book = build_epub(_work(tmp_path) / "b.epub", [("a.xhtml", "A", OK_BODY)], extra={"OEBPS/big.bin": b"abc"})
    data = bytearray(book.read_bytes())
    # Patch the central directory's uncompressed size of big.bin to 2 GiB (the header lies).
    at = data.rfind(b"OEBPS/big.bin") - 46
    assert data[at : at + 4] == b"PK\x01\x02"
    struct.pack_into("<I", data, at + 24, 2 * 1024**3)
    book.write_bytes(bytes(data))
    assert "declares 2147483648 bytes" in _run(tmp_path, book, capsys)


@pytest.mark.parametrize(
    "doctype",
    [
        '<!DOCTYPE html [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
        '<!DOCTYPE html [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>',
    ],
)
def test_entities_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], doctype: str) -> None:
    body = (
        f'<?xml version="1.0"?>{doctype}<html xmlns="http://www.w3.org/1999/xhtml"><body><p>&c;&xxe;</p></body></html>'
    )
    book = build_epub(_work(tmp_path) / "b.epub", [("a.xhtml", "A", OK_BODY)], extra={"OEBPS/a.xhtml": body.encode()})
    err = _run(tmp_path, book, capsys)
    assert "declares XML entities" in err and "root:" not in err


def test_missing_container(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book = _work(tmp_path) / "b.epub"
    with zipfile.ZipFile(book, "w") as zf:
        zf.writestr("mimetype", b"application/epub+zip")
        zf.writestr("OEBPS/content.opf", b"<package/>")
    assert "META-INF/container.xml is missing" in _run(tmp_path, book, capsys)


def test_drm_encrypted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    enc = (
        b'<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
        b'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>'
        b'<enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>'
        b'<enc:CipherData><enc:CipherReference URI="OEBPS/a.xhtml"/></enc:CipherData>'
        b"</enc:EncryptedData></encryption>"
    )
    book = build_epub(_work(tmp_path) / "b.epub", [("a.xhtml", "A", OK_BODY)], extra={"META-INF/encryption.xml": enc})
    assert "encrypted (DRM" in _run(tmp_path, book, capsys)


def test_not_a_zip_and_broken_xml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junk = _work(tmp_path) / "j.epub"
    junk.write_bytes(b"not a zip")
    assert "not a readable EPUB" in _run(tmp_path, junk, capsys)
    book = build_epub(_work(tmp_path) / "b.epub", [("a.xhtml", "A", OK_BODY)], extra={"OEBPS/a.xhtml": b"<html><p>"})
    assert "a.xhtml is not well-formed XML" in _run(tmp_path, book, capsys)
    assert CONTAINER  # the builder's container is the real one: the errors above come from the broken parts
