"""The guard every snapshot test module uses: snapshots are compared only under the Textual they were made with.

Import ``same_textual_version`` into a snapshot test module (an autouse fixture).
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import pytest

VERSION_FILE = Path(__file__).parent / "snapshots_textual_version.txt"


@pytest.fixture(autouse=True)
def same_textual_version(request: pytest.FixtureRequest) -> None:
    """Fail at once, with one clear message, when the snapshots were made with another Textual."""
    installed = version("textual")
    if request.config.getoption("--snapshot-update", default=False):
        VERSION_FILE.write_text(installed + "\n", encoding="utf-8")
        return
    recorded = VERSION_FILE.read_text(encoding="utf-8").strip() if VERSION_FILE.exists() else "(none recorded)"
    if recorded != installed:
        module = Path(str(request.node.fspath)).relative_to(Path(__file__).parents[2])
        pytest.fail(
            f"The TUI snapshots were made with Textual {recorded}, but Textual {installed} is installed: "
            f"check the screens, then re-record them with `pytest {module} --snapshot-update`.",
            pytrace=False,
        )
