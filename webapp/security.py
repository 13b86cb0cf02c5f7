"""Response security headers and the check that keeps per-user endpoints off private networks."""

from __future__ import annotations

from typing import Any

from flask import Flask

from memoryos_core.llm.guard import check_url

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


def check_endpoint_url(url: str, allow_private: bool) -> None:
    """Refuse a user's endpoint on a loopback, private, link-local or reserved address, or
    whose host name does not resolve (memoryos_core.llm.guard; the chat client then connects
    only to the address it checked). `allow_private` (MEMPLAY_ALLOW_PRIVATE_ENDPOINTS) lifts
    the rule.
    """
    if allow_private or not url:
        return
    check_url(url)
