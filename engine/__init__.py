"""proofdesk engine package."""
