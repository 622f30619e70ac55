"""Screens of the proofdesk workstation, one per module."""
