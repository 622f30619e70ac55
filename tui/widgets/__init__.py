"""Widgets of the proofdesk workstation."""
