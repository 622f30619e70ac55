"""Logging while the TUI runs: to a file in the platform log folder, never to the terminal."""

from __future__ import annotations

import logging
import warnings
from pathlib import Path

import platformdirs

LOG_NAME = "proofdesk.log"


def log_path() -> Path:
    """``<platform user log dir>/proofdesk/proofdesk.log``."""
    return platformdirs.user_log_path("proofdesk") / LOG_NAME


def log_to_file(level: int = logging.INFO) -> Path:
    """Send every log record (and Python warnings) to the log file, replacing any terminal handler."""
    path = log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    logging.captureWarnings(True)
    warnings.simplefilter("default")
    return path
