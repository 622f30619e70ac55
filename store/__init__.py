"""proofdesk's file store: chapter format, loading, atomic commits, locks, merge, watcher."""
