"""proofdesk engine package."""

import sys

# httpx imports its command-line client (click, pygments and rich: tens of ms, and rich in an engine process)
# whenever click is installed, and the MCP SDK's uvicorn installs click. A None entry makes that one import fail
# as if click were absent, and httpx falls back to its stub ``httpx.main``; the engine never uses the httpx CLI.
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
