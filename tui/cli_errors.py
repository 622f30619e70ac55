"""Errors the command line turns into one line on stderr and an exit code."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1  # a run or tool that did not succeed
EXIT_BAD_INPUT = 2  # bad input or configuration
EXIT_CANCELLED = 130


class UsageError(Exception):
    """Bad input or configuration: printed as one sentence, exit code 2."""

    exit_code = EXIT_BAD_INPUT
