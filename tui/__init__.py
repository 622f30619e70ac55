"""proofdesk tui package."""
