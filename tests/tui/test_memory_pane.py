"""The detail pane shows the translation memory's best match for the paragraph under the cursor (design 17)."""

from __future__ import annotations

from pathlib import Path

from store.model import Chapter, Paragraph
from tests.tui.chapters import version, write
from tests.tui.conftest import SIZE, make_app, wait_for
from tui.screens.chapter import ChapterScreen
from tui.widgets.detail_pane import DetailPane


def earlier(text: str, translation: str) -> Chapter:
    para = Paragraph(
        id="e0000001",
        text=text,
        translations=(version("w0000001", translation),),
        selected_translation_id="w0000001",
        reviewed=True,
    )
    return Chapter(id="earlier", source_language="ja", target_language="en", paragraphs=(para,))


async def test_the_detail_pane_shows_the_best_earlier_translation_and_never_the_paragraph_itself(
    review_path: Path,
) -> None:
    # z_: after review.json in file-name order, so [1]'s tie (88% to both) goes to 四つ目 of review.json.
    write(review_path.parent / "z_earlier.json", earlier("二つ目の 段落です。", "Second, as reviewed before."))
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        detail = screen.query_one(DetailPane)
        # [1] 一つ目の段落です。: one character off 四つ目の段落です。 (reviewed in this chapter): 2·8/18 → 88%.
        await wait_for(pilot, lambda: "Memory: ≈ 88%: 四つ目の段落です。 → The fourth" in detail.plain, what="[1]")
        await pilot.press("down")  # [2]: the same source, spaces aside, in another chapter
        await wait_for(pilot, lambda: "Memory: = 100%: 二つ目の 段落です。 → Second, as" in detail.plain, what="[2]")
        for _ in range(2):
            await pilot.press("down")
        await wait_for(pilot, lambda: "四つ目の段落です。" in detail.plain and "Memory: " in detail.plain, what="[4]")
        assert "Memory: ≈" in detail.plain and "Memory: ≈ 88%: 四つ目" not in detail.plain  # never itself


async def test_a_review_elsewhere_reaches_the_pane_without_reopening(review_path: Path) -> None:
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        detail = screen.query_one(DetailPane)
        await pilot.press("down")
        await wait_for(pilot, lambda: "二つ目の段落です。" in detail.plain, what="[2]")
        assert "Memory: =" not in detail.plain
        write(review_path.parent / "b_later.json", earlier("二つ目の段落です。", "Reviewed later."))
        await wait_for(pilot, lambda: "Memory: = 100%: 二つ目の段落です。 → Reviewed later." in detail.plain)
