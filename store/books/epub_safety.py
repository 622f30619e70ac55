"""Opening an untrusted EPUB: zip limits, member names, DRM, and a hardened XML parser.

Every check raises :class:`BookError` with one sentence naming the file and what is wrong, before anything
is written anywhere.
"""

from __future__ import annotations

import html.entities
import re
import zipfile
from pathlib import Path, PurePosixPath

from lxml import etree

from store.errors import StoreError

# A novel's EPUB is a few MB; these caps stop a zip bomb long before memory is at risk.
MAX_MEMBER_BYTES = 256 * 1024 * 1024
MAX_TOTAL_BYTES = 1024 * 1024 * 1024
MAX_RATIO = 200  # uncompressed / compressed; ordinary XHTML compresses 3-10x
MAX_MEMBERS = 20_000


class BookError(StoreError):
    """An EPUB or text book that cannot be imported or exported: one sentence, exit 2."""


def _check_name(book: Path, name: str) -> None:
    path = PurePosixPath(name)
    if name.startswith(("/", "\\")) or ".." in path.parts or "\\" in name or re.match(r"^[A-Za-z]:", name):
        raise BookError(f"{book}: unsafe member name {name!r} in the zip (absolute or with '..'); refused")


def _check_member(book: Path, info: zipfile.ZipInfo) -> None:
    """Refuse an unsafe name, a declared size over the limit, or a zip bomb's compression ratio."""
    _check_name(book, info.filename)
    if info.file_size > MAX_MEMBER_BYTES:
        raise BookError(
            f"{book}: member {info.filename!r} declares {info.file_size} bytes uncompressed "
            f"(limit {MAX_MEMBER_BYTES}); refused"
        )
    if info.file_size > 1_000_000 and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        raise BookError(
            f"{book}: member {info.filename!r} expands {info.file_size // max(info.compress_size, 1)}"
            f"x (a zip bomb?); refused"
        )


def open_epub(book: Path) -> zipfile.ZipFile:
    """Open ``book`` as a zip after checking member names, declared sizes and compression ratios."""
    try:
        zf = zipfile.ZipFile(book)
    except FileNotFoundError:
        raise BookError(f"{book}: no such file") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise BookError(f"{book}: not a readable EPUB (zip): {exc}") from None
    infos = zf.infolist()
    if len(infos) > MAX_MEMBERS:
        raise BookError(f"{book}: {len(infos)} zip members (more than {MAX_MEMBERS}); refused")
    for info in infos:
        _check_member(book, info)
    total = sum(info.file_size for info in infos)
    if total > MAX_TOTAL_BYTES:
        raise BookError(f"{book}: {total} bytes uncompressed in all (limit {MAX_TOTAL_BYTES}); refused")
    return zf


def read_member(zf: zipfile.ZipFile, book: Path, name: str) -> bytes:
    """The bytes of member ``name``, never more than its declared size (a lying header cannot inflate more)."""
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise BookError(f"{book}: {name} is missing") from None
    try:
        with zf.open(info) as stream:
            data = stream.read(info.file_size + 1)
    except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError) as exc:
        raise BookError(f"{book}: {name} cannot be read: {exc}") from None
    if len(data) > info.file_size:
        raise BookError(f"{book}: {name} holds more than its declared size; refused")
    return data


def check_not_encrypted(zf: zipfile.ZipFile, book: Path) -> None:
    """Refuse a DRM book: ``META-INF/encryption.xml`` listing content other than obfuscated fonts."""
    if "META-INF/encryption.xml" not in zf.namelist():
        return
    root = parse_xml(read_member(zf, book, "META-INF/encryption.xml"), book, "META-INF/encryption.xml")
    font_only = "http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"
    for method in root.iter("{http://www.w3.org/2001/04/xmlenc#}EncryptionMethod"):
        if method.get("Algorithm") not in font_only:
            raise BookError(f"{book}: the book is encrypted (DRM, META-INF/encryption.xml); it cannot be imported")


# Named entities of XHTML (``&nbsp;``) are defined only in the DTD we never load: they become numeric
# references before parsing. The five XML entities stay as they are.
_XML_ENTITIES = frozenset({"amp", "lt", "gt", "quot", "apos"})
_NAMED = re.compile(rb"&([A-Za-z][A-Za-z0-9]{1,31});")


def _numeric(match: re.Match[bytes]) -> bytes:
    name = match.group(1).decode("ascii")
    if name in _XML_ENTITIES:
        return match.group(0)
    text = html.entities.html5.get(name + ";")
    if text is None:
        return match.group(0)  # left for the parser to report as undefined
    return "".join(f"&#{ord(c)};" for c in text).encode("ascii")


_PARSER = etree.XMLParser(
    resolve_entities=False,
    no_network=True,
    load_dtd=False,
    huge_tree=False,
    remove_blank_text=False,
    dtd_validation=False,
)


def parse_xml(data: bytes, book: Path, name: str) -> etree._Element:
    """Parse ``data`` with a hardened parser; refuse any entity declaration (XXE, billion laughs)."""
    if b"<!ENTITY" in data or b"<!entity" in data:
        raise BookError(f"{book}: {name} declares XML entities (external or expanding entities are refused)")
    data = _NAMED.sub(_numeric, data)
    try:
        return etree.fromstring(data, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise BookError(f"{book}: {name} is not well-formed XML: {exc}") from None
