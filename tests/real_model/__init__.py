"""Opt-in tests against a real OpenAI-compatible server running a real small model (see serve.py)."""
