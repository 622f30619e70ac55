"""The translation memory (design section 17): which earlier translation a paragraph is shown, and how."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from rapidfuzz import fuzz

from engine.glossary.run_glossary import RunGlossary
from engine.memory.entries import MemoryEntry, squeeze
from engine.memory.index import MEMORY_HEADING, MemoryIndex
from engine.memory.run_memory import RunMemory
from engine.memory.source import MemorySource
from engine.services import TaskService
from store.atomic import atomic_write
from store.glossary_commit import GlossaryStore, add_entry
from store.glossary_read import entry_from
from store.model import Chapter, Paragraph, TranslationVersion
from store.serialize import chapter_bytes
from store.workspace import Workspace

STAMP = "2026-11-21T10:00:00Z"
BASE = "ある日の暮方の事である。一人の下人が、羅生門の下で雨やみを待っていた。"


def para(pid: str, text: str, translation: str | None = None, *, reviewed: bool = True) -> Paragraph:
    if translation is None:
        return Paragraph(id=pid, text=text)
    version = TranslationVersion(id=f"v{pid}", text=translation, origin="translation", created_at=STAMP)
    return Paragraph(id=pid, text=text, translations=(version,), selected_translation_id=version.id, reviewed=reviewed)


def chapter(cid: str, *paragraphs: Paragraph) -> Chapter:
    return Chapter(id=cid, source_language="ja", target_language="en", paragraphs=paragraphs)


def write(folder: Path, name: str, ch: Chapter) -> Path:
    path = folder / name
    atomic_write(path, chapter_bytes(ch), expect=None)
    return path


def edited(text: str, changes: int) -> str:
    """``text`` with its last ``changes`` characters replaced."""
    return text[: len(text) - changes] + "＊" * changes


def test_squeeze_removes_every_whitespace() -> None:
    assert squeeze(" a\tb\u3000c\n d ") == "abcd"


def test_threshold_floored_percentage_and_exclusion_of_the_paragraph_itself() -> None:
    near = edited(BASE, 6)
    far = edited(BASE, 12)
    index = MemoryIndex(
        [
            MemoryEntry(BASE, "One evening.", "c1", "p1"),  # the paragraph itself
            MemoryEntry(near, "Near.", "c1", "p2"),
            MemoryEntry(far, "Far.", "c2", "p9"),
        ]
    )
    score = fuzz.ratio(BASE, near)
    match = index.best(BASE, 0.75, "c1", "p1")
    assert match is not None and match.entry.target == "Near." and not match.exact
    assert match.percent == int(score) and match.line(4) == f"[4] ≈ {int(score)}%: {near} → Near."
    assert index.best(BASE, (score + 0.5) / 100, "c1", "p1") is None or index.best(
        BASE, (score + 0.5) / 100, "c1", "p1"
    ).entry.target not in ("Near.", "One evening.")
    # Another paragraph with the same ID in another chapter is not "itself": an exact match, = 100%.
    other = index.best(BASE, 0.75, "c9", "p1")
    assert other is not None and other.exact and other.line(1) == f"[1] = 100%: {BASE} → One evening."


def test_a_threshold_above_every_similarity_finds_nothing() -> None:
    index = MemoryIndex([MemoryEntry(edited(BASE, 10), "x", "c", "p2")])
    score = fuzz.ratio(BASE, edited(BASE, 10)) / 100
    assert index.best(BASE, score - 0.001, "c", "p1") is not None
    assert index.best(BASE, score + 0.001, "c", "p1") is None


def test_whitespace_is_removed_before_comparing_and_exact_means_equal_after_that() -> None:
    spaced = " ".join(BASE)  # every character apart: still the same source
    index = MemoryIndex([MemoryEntry(spaced, "Same.", "c", "p2")])
    match = index.best(BASE + "\n", 0.75, "c", "p1")
    assert match is not None and match.exact and match.percent == 100
    assert match.line(3).startswith("[3] = 100%: ")


def test_near_misses_never_show_100_and_identical_sources_in_other_paragraphs_do() -> None:
    long_text = BASE * 20  # one character of 700 changed: 99.9 floors to 99
    index = MemoryIndex([MemoryEntry(edited(long_text, 1), "t", "c", "p2"), MemoryEntry(BASE, "u", "c", "p1")])
    match = index.best(long_text, 0.75, "c", "p1")
    assert match is not None and match.percent == 99 and match.line(1).startswith("[1] ≈ 99%")
    assert index.best(BASE, 0.75, "c", "p1") is None  # only itself


def test_order_and_cap_of_a_chunk() -> None:
    sources = [edited(BASE, n) for n in (1, 8, 3, 5)]
    index = MemoryIndex([MemoryEntry(s, f"t{i}", "old", f"o{i}") for i, s in enumerate(sources)] + [])
    queries = [(10 + i, "c", f"p{i}", BASE + "！" * i) for i in range(4)]
    found = index.matches(queries, 0.75, 10)
    scores = [m.score for _, m in found]
    assert scores == sorted(scores, reverse=True) and len(found) == 4
    capped = index.matches(queries, 0.75, 2)
    assert [(i, m.score) for i, m in capped] == [(i, m.score) for i, m in found[:2]]
    assert index.matches(queries, 0.75, 0) == []


def test_ties_keep_chunk_order_and_the_rising_cutoff_drops_no_better_match() -> None:
    index = MemoryIndex([MemoryEntry(BASE, "same", "old", "o1"), MemoryEntry(edited(BASE, 2), "near", "old", "o2")])
    queries = [(1, "c", "a", edited(BASE, 9)), (2, "c", "b", BASE), (3, "c", "d", BASE)]
    found = index.matches(queries, 0.75, 2)
    assert [(i, m.exact) for i, m in found] == [(2, True), (3, True)]


def test_the_chunk_message_has_the_memory_section_before_the_glossary(tmp_path: Path) -> None:
    earlier = chapter("c1", para("e1", BASE, "One evening, a servant waited under the Rashomon gate."))
    write(tmp_path, "01.json", earlier)
    current = chapter(
        "c2",
        para("p1", "下人は七段ある石段の一番上の段に、洗いざらした紺の襖の尻を据えて、" * 3),
        para("p2", edited(BASE, 4)),
        para("p3", "雨は、羅生門をつつんで、遠くから、ざあっと云う音をあつめて来る。" * 4),
        para("p4", BASE),
    )
    write(tmp_path, "02.json", current)
    source = MemorySource(Workspace(tmp_path))
    memory = RunMemory(source)
    memory.reload()
    glossary_store = GlossaryStore(Workspace(tmp_path))
    glossary_store.change(add_entry(entry_from({"id": "g1", "source": "下人", "target": "servant"})))
    glossary = RunGlossary(glossary_store)
    service = TaskService(current, "translate", chunk_chars=200, memory=memory, glossary=glossary)
    configs = service.loop_configs()
    assert len(configs) >= 2
    systems = {c.system_prompt for c in configs}
    assert len(systems) == 1  # byte-identical across chunks: memory is in the user message only
    for c in configs:
        if MEMORY_HEADING in c.user_message:
            assert c.user_message.index(MEMORY_HEADING) < c.user_message.index("\nGlossary\n")
    with_memory = [c.user_message for c in configs if MEMORY_HEADING in c.user_message]
    assert len(with_memory) >= 1
    text = "\n".join(with_memory)
    score = int(fuzz.ratio(squeeze(BASE), squeeze(edited(BASE, 4))))
    assert f"[2] ≈ {score}%: {BASE} → One evening, a servant waited under the Rashomon gate." in text
    assert f"[4] = 100%: {BASE} → One evening" in text
    lines = [m.split(MEMORY_HEADING + "\n")[1].split("\n\n")[0].splitlines() for m in with_memory]
    assert sorted(line.split(" ")[0] for group in lines for line in group) == ["[2]", "[4]"]


def test_unreviewed_paragraphs_are_not_memory_and_a_review_is_seen_at_the_next_refresh(tmp_path: Path) -> None:
    path = write(tmp_path, "01.json", chapter("c1", para("e1", BASE, "Evening.", reviewed=False)))
    source = MemorySource(Workspace(tmp_path))
    first = source.refresh()
    assert first.entries == () and source.refresh() is first
    write(tmp_path, "01.json", chapter("c1", para("e1", BASE, "Evening.")))
    assert path.exists()
    second = source.refresh()
    assert [e.target for e in second.entries] == ["Evening."] and source.refresh() is second


def test_memory_max_zero_reads_nothing(tmp_path: Path) -> None:
    write(tmp_path, "01.json", chapter("c1", para("e1", BASE, "Evening.")))
    memory = RunMemory(MemorySource(Workspace(tmp_path)), limit=0)
    memory.reload()
    current = chapter("c2", para("p1", BASE))
    service = TaskService(current, "translate", memory=memory)
    assert MEMORY_HEADING not in service.loop_configs()[0].user_message


TMX = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE tmx SYSTEM "tmx14.dtd">
<tmx version="1.4">
  <header creationtool="test" creationtoolversion="1" segtype="paragraph" o-tmf="x" adminlang="en"
          srclang="ja-JP" datatype="plaintext"/>
  <body>
    <tu><tuv xml:lang="JA-jp"><seg>{source}</seg></tuv>
      <tuv xml:lang="en-US"><seg>From <bpt i="1">&lt;b&gt;</bpt>TMX<ept i="1">&lt;/b&gt;</ept>.</seg></tuv></tu>
    <tu><tuv xml:lang="ja"><seg>訳のない単位</seg></tuv><tuv xml:lang="fr"><seg>Non.</seg></tuv></tu>
  </body>
</tmx>
"""


def test_tmx_files_are_memory_with_languages_matched_by_primary_subtag(tmp_path: Path) -> None:
    write(tmp_path, "01.json", chapter("c1", para("p1", BASE)))
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "old.tmx").write_text(TMX.format(source=BASE), encoding="utf-8")
    snapshot = MemorySource(Workspace(tmp_path)).refresh()
    assert [(e.source, e.target) for e in snapshot.entries] == [(BASE, "From TMX.")]
    match = snapshot.index.best(BASE, 0.75, "c1", "p1")
    assert match is not None and match.exact and match.entry.target == "From TMX."


@pytest.mark.parametrize(
    "hostile",
    [
        '<?xml version="1.0"?><!DOCTYPE tmx [<!ENTITY a "aaaa">]><tmx version="1.4"><body/></tmx>',
        '<?xml version="1.0"?><!DOCTYPE tmx SYSTEM "file:///etc/passwd" [ ]><tmx version="1.4"><body/></tmx>',
        '<?xml version="1.0"?><tmx version="1.4"><body><tu><tuv xml:lang="ja"><seg>&x;</seg></tuv></tu></body>',
        '<?xml version="1.0"?><html><body/></html>',
    ],
)
def test_a_hostile_or_foreign_tmx_file_is_refused_and_the_rest_is_kept(tmp_path: Path, hostile: str) -> None:
    write(tmp_path, "01.json", chapter("c1", para("e1", BASE, "Evening.")))
    (tmp_path / "memory").mkdir()
    bad = tmp_path / "memory" / "bad.tmx"
    bad.write_text(hostile, encoding="utf-8")
    source = MemorySource(Workspace(tmp_path))
    snapshot = source.refresh()
    assert [e.target for e in snapshot.entries] == ["Evening."]
    assert str(bad) in source.problems[bad]


@pytest.mark.parametrize("threshold", [0.5, 0.6, 0.7, 0.75, 0.9])
def test_the_filters_never_lose_the_best_match_a_full_scan_finds(threshold: float) -> None:
    rng = random.Random(int(threshold * 100))
    alphabet = "あいうえおかきくけこ下人門雨、。"

    def text() -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60)))

    sources = [text() for _ in range(600)]
    index = MemoryIndex([MemoryEntry(s, str(i), "old", str(i)) for i, s in enumerate(sources)])
    for _ in range(60):
        query = text()
        scores = [fuzz.ratio(query, s) for s in sources if s != query]
        best = max((s for s in scores if s >= threshold * 100), default=None)
        match = index.best(query, threshold, "c", "p")
        if query in sources:
            assert match is not None and match.exact
        else:
            assert (match and match.score) == best
