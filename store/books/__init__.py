"""Books in and out (design section 13): EPUB import/export and long-text splitting."""
