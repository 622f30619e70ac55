"""Books in and out: EPUB import/export and long-text splitting."""
