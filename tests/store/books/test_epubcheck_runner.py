"""The suite's epubcheck step runs with and without a runnable epubcheck (issue 25, item 6).

Debian's ``/usr/bin/epubcheck`` is a jar: without binfmt support executing it fails with ``OSError: Exec format
error``. ``run_epubcheck`` runs a jar with ``java -jar`` and skips its step cleanly when nothing runnable is there.
A stand-in jar, compiled here, plays Debian's.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.store.books.epub_builder import build_epub, epubcheck_command, run_epubcheck

FAKE_EPUBCHECK = """
public class Main {
    public static void main(String[] args) {
        if (args.length == 1 && args[0].equals("--version")) { System.out.println("EPUBCheck v0 (stand-in)"); return; }
        boolean bad = args.length == 1 && args[0].endsWith("bad.epub");
        System.out.println(bad ? "ERROR(RSC-005): stand-in error" : "No errors or warnings detected.");
        System.exit(bad ? 1 : 0);
    }
}
"""


@pytest.fixture
def jar_on_path(tmp_path: Path) -> Path:
    """A folder holding ``epubcheck``: an executable jar file, as Debian installs it."""
    if shutil.which("javac") is None or shutil.which("jar") is None:
        pytest.skip("no JDK (javac, jar) to build the stand-in epubcheck jar")
    build = tmp_path / "build"
    build.mkdir()
    (build / "Main.java").write_text(FAKE_EPUBCHECK, encoding="utf-8")
    subprocess.run(["javac", "Main.java"], cwd=build, check=True, capture_output=True, timeout=120)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    jar = bin_dir / "epubcheck"
    subprocess.run(["jar", "cfe", str(jar), "Main", "Main.class"], cwd=build, check=True, capture_output=True)
    jar.chmod(0o755)
    return bin_dir


@pytest.mark.slow  # compiles a jar and starts java
def test_a_jar_runs_with_java(jar_on_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    java = shutil.which("java")
    if java is None:
        pytest.skip("no java to run the jar with")
    monkeypatch.setenv("PATH", f"{jar_on_path}:{Path(java).parent}")
    book = build_epub(tmp_path / "good.epub", [("a.xhtml", "A", "<p>本文</p>")])
    run_epubcheck(book)  # passes: the jar ran through java
    bad = build_epub(tmp_path / "bad.epub", [("a.xhtml", "A", "<p>本文</p>")])
    with pytest.raises(AssertionError, match="stand-in error"):
        run_epubcheck(bad)


@pytest.mark.slow  # compiles a jar
def test_a_jar_without_java_is_skipped_cleanly(
    jar_on_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(jar_on_path))  # the jar, and no java
    assert epubcheck_command() is None
    run_epubcheck(build_epub(tmp_path / "good.epub", [("a.xhtml", "A", "<p>本文</p>")]))
    assert "skipped" in capsys.readouterr().out


def test_nothing_on_path_is_skipped_cleanly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    run_epubcheck(build_epub(tmp_path / "good.epub", [("a.xhtml", "A", "<p>本文</p>")]))
