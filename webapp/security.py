"""Response security headers and the check that keeps per-user endpoints off private networks."""

from __future__ import annotations

import ipaddress
import socket
from typing import Any
from urllib.parse import urlsplit

from flask import Flask

from memoryos_core import InvalidInput

CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline';"
       " img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none';"
       " base-uri 'self'; form-action 'self'; frame-ancestors 'none'")


def init_app(app: Flask) -> None:
    """Every response: CSP (no framing, scripts only from this origin), nosniff, no referrer."""

    @app.after_request
    def headers(response: Any) -> Any:
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        return response


def _private(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not ip.is_global or ip.is_multicast


def check_endpoint_url(url: str, allow_private: bool) -> None:
    """Refuse a user's endpoint on a loopback, private, link-local or reserved address.

    Host names are resolved; a name that does not resolve is let through (the connection
    will fail). `allow_private` (MEMPLAY_ALLOW_PRIVATE_ENDPOINTS) lifts the rule.
    """
    if allow_private or not url:
        return
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not host:
        raise InvalidInput("The base URL must be an http(s) URL with a host.")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise InvalidInput("The base URL has an invalid port.") from None
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, port,
                                                               type=socket.SOCK_STREAM)}
    except (OSError, UnicodeError):
        return
    if any(_private(str(a)) for a in addresses):
        raise InvalidInput(f"The base URL points at a private or local address ({host}); this"
                           " instance only allows public endpoints for personal settings.")
