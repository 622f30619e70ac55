"""proofdesk themes package."""
