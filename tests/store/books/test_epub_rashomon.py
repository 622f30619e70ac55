"""A real public-domain book (Akutagawa's 羅生門, the bundled sample) as an EPUB: import, translate every
chapter with the offline demo model through ``proofdesk run WORKSPACE``, export both ways, import again."""

from __future__ import annotations

import html
import json
import zipfile
from pathlib import Path

import pytest

from store.loader import load_chapter
from tests.engine.test_cli_run import run_cli
from tests.store.books.epub_builder import build_epub, run_epubcheck, structural_problems
from tui.cli import main

SAMPLE = Path(__file__).resolve().parents[3] / "tui" / "samples" / "rashomon.json"


def _rashomon(tmp_path: Path) -> Path:
    paras = [p["text"] for p in json.loads(SAMPLE.read_text(encoding="utf-8"))["paragraphs"]]
    half = len(paras) // 2
    docs = []
    for n, part in enumerate([paras[:half], paras[half:]], start=1):
        body = f"<h1>羅生門　{n}</h1>" + "".join(f"<p>{html.escape(t)}</p>" if t.strip() else "<p/>" for t in part)
        docs.append((f"part{n}.xhtml", f"羅生門 その{n}", body))
    return build_epub(tmp_path / "rashomon.epub", docs, version=3)


@pytest.mark.slow
def test_rashomon_round_trip(tmp_path: Path) -> None:
    book = _rashomon(tmp_path)
    run_epubcheck(book)  # the input is valid, so the outputs must be
    ws = tmp_path / "ws"
    assert main(["import", str(book), "-o", str(ws), "--target-language", "en"]) == 0
    done = run_cli("run", "ws", "--task", "translate", "--model", "demo", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    chapters = [load_chapter(p) for p in sorted(ws.glob("ch*.json"))]
    assert len(chapters) == 2
    assert all(p.selected_text for c in chapters for p in c.paragraphs if not p.is_empty)
    for bilingual in (False, True):
        out = tmp_path / f"out{int(bilingual)}.epub"
        assert main(["export", str(ws), "--epub", str(out)] + (["--bilingual"] if bilingual else [])) == 0
        assert structural_problems(out) == []
        run_epubcheck(out)
        with zipfile.ZipFile(book) as a, zipfile.ZipFile(out) as b:
            assert a.read("OEBPS/pic.png") == b.read("OEBPS/pic.png")
        again = tmp_path / f"again{int(bilingual)}"
        assert main(["import", str(out), "-o", str(again)]) == 0
        for chapter, path in zip(chapters, sorted(again.glob("ch*.json")), strict=True):
            texts = [p.text for p in load_chapter(path).paragraphs]
            want = []
            for p in chapter.paragraphs:
                # A translation's line breaks come back as <br/> and so as the same newlines.
                want.extend(([p.text] if bilingual else []) + [p.selected_text] if not p.is_empty else [""])
            assert texts == want
