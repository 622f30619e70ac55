"""The workspace's translation memory (design section 17): earlier translations of similar source text."""
