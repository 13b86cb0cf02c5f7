"""The endpoint guard: a user's chat endpoint reaches public addresses only.

A name is resolved once per request, every address it gives is checked, and the connection
goes to the checked address (the Host header and TLS SNI keep the name), so DNS rebinding
between the check and the connection has nothing to act on. A name that does not resolve is
refused. The client using it never follows redirects (openai_chat.py).
"""

from __future__ import annotations

import importlib
import ipaddress
import socket
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from ..errors import InvalidInput

AddressCheck = Callable[[str], bool]  # True for an address the endpoint may connect to


def is_public(address: str) -> bool:
    """A global unicast address (not loopback, private, link-local, reserved or multicast)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def resolve_checked(host: str, port: int, allowed: AddressCheck = is_public) -> str:
    """The one address to connect to for `host`; InvalidInput if it does not resolve or if
    any of its addresses is refused (one bad answer is enough: a client may pick any)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        infos = []
    addresses = [str(info[4][0]) for info in infos]
    if not addresses:
        raise InvalidInput(f"The base URL's host name ({host}) does not resolve; this instance"
                           " only allows endpoints it can check.")
    if not all(allowed(a) for a in addresses):
        raise InvalidInput(f"The base URL points at a private or local address ({host}); this"
                           " instance only allows public endpoints for personal settings.")
    return addresses[0]


def check_url(url: str, allowed: AddressCheck = is_public) -> str:
    """Check an endpoint base URL (http(s), a host that resolves to allowed addresses only);
    returns the checked address. InvalidInput says why one is refused."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not host:
        raise InvalidInput("The base URL must be an http(s) URL with a host.")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise InvalidInput("The base URL has an invalid port.") from None
    return resolve_checked(host, port, allowed)


def http_module() -> Any:
    """The HTTP library the installed `openai` package is built on (httpx, or httpx2)."""
    import openai

    for base in openai.DefaultHttpxClient.__mro__[1:]:
        if base.__name__ == "Client":
            return importlib.import_module(base.__module__.split(".", 1)[0])
    raise RuntimeError("cannot tell which HTTP library the openai package uses")


def pinned_transport(allowed: AddressCheck = is_public) -> Any:
    """An HTTP transport (of openai's HTTP library) that connects only to the address it
    checked for each request's host."""
    http = http_module()

    class PinnedTransport(http.BaseTransport):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            self._inner = http.HTTPTransport(trust_env=False)

        def handle_request(self, request: Any) -> Any:
            url = request.url
            host = url.host
            port = url.port or (443 if url.scheme == "https" else 80)
            address = resolve_checked(host, port, allowed)
            extensions = dict(request.extensions)
            if url.scheme == "https":  # the certificate is checked against the name
                extensions["sni_hostname"] = host
            # The Host header was set from the name when the request was built; only the
            # connection goes to the checked address.
            pinned = http.Request(request.method, url.copy_with(host=address),
                                  headers=request.headers, stream=request.stream,
                                  extensions=extensions)
            return self._inner.handle_request(pinned)

        def close(self) -> None:
            self._inner.close()

    return PinnedTransport()
