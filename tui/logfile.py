"""Logging while the TUI runs: to a file in the platform log folder, never to the terminal."""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path

import platformdirs

LOG_NAME = "proofdesk.log"


def log_path() -> Path:
    """``<platform user log dir>/proofdesk/proofdesk.log``."""
    return platformdirs.user_log_path("proofdesk") / LOG_NAME


def file_handler() -> logging.FileHandler:
    """A handler appending to the log file, created readable by its owner only (0600: it may hold chapter text
    and provider messages). Raises OSError when the log folder or file cannot be made."""
    path = log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600))
    os.chmod(path, 0o600)  # a log an older proofdesk made 0644
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    return handler


def quiet_http_loggers(level: int = logging.INFO) -> None:
    """httpx and httpcore log WARNING and above only: their INFO lines name each request's full URL, query (and
    any key in it) included."""
    for noisy in ("httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(max(level, logging.WARNING))


def log_to_file(level: int = logging.INFO) -> Path:
    """Send every log record (and Python warnings) to the log file, replacing any terminal handler."""
    handler = file_handler()
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    quiet_http_loggers(level)
    logging.captureWarnings(True)
    warnings.simplefilter("default")
    return log_path()
