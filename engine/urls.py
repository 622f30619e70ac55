"""Model server URLs as they may be shown: never with the credentials some of them carry."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def public_url(url: str) -> str:
    """``url`` without user:password, query or fragment: safe to show in messages and logs.

    Keys sometimes ride in the URL (``https://user:key@host`` or ``?key=...`` on Google endpoints), so only the
    scheme, host, port and path are ever shown.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable URL>"
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = f"{host}:{port}" if port is not None else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))
