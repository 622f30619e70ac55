"""The workspace glossary in a run: which entries a chunk mentions, the model's glossary tools, term extraction."""
