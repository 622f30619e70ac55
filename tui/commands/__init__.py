"""Subcommands of the proofdesk command line, one module each."""
