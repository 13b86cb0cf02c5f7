"""The endpoint guard: resolve once, check, connect to the checked address; no redirects.

Every server here listens on the loopback range: 127.0.0.1 plays the public endpoint (the
tests' address check allows it alone) and 127.0.0.2 the private address an attacker aims at.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from memoryos_core import InvalidInput, ModelError
from memoryos_core.llm import OpenAIChatModel
from memoryos_core.llm.guard import check_url, is_public

REPLY = {"id": "c1", "object": "chat.completion", "created": 0, "model": "m",
         "choices": [{"index": 0, "finish_reason": "stop",
                      "message": {"role": "assistant", "content": "from the checked address"}}],
         "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}}
MESSAGES = [{"role": "user", "content": "hello"}]


class Server:
    """A local HTTP server that records each request and answers a completion or a redirect."""

    def __init__(self, host: str, redirect_to: str | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.requests.append({"path": self.path, "host": self.headers.get("Host"),
                                       "auth": self.headers.get("Authorization")})
                if redirect_to:
                    self.send_response(307)
                    self.send_header("Location", redirect_to + self.path)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = json.dumps(REPLY).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer((host, 0), Handler)
        self.port = self.httpd.server_address[1]
        self.url = f"http://{host}:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    made: list[Server] = []
    yield made
    for server in made:
        server.stop()


def only_first_loopback(address: str) -> bool:
    """The tests' stand-in for 'public': 127.0.0.1 only."""
    return address == "127.0.0.1"


def test_a_redirect_to_a_private_address_is_never_followed(servers):
    private = Server("127.0.0.2")
    public = Server("127.0.0.1", redirect_to=private.url)
    servers += [private, public]
    for check in (only_first_loopback, None):  # guarded user endpoint, and the operator's
        model = OpenAIChatModel("m", base_url=public.url + "/v1", retries=0,
                                address_check=check)
        with pytest.raises(ModelError, match="307"):
            model.complete(MESSAGES, max_tokens=5)
    assert len(public.requests) == 2 and private.requests == []


def test_the_connection_goes_to_the_checked_address_despite_dns_rebinding(servers, monkeypatch):
    public = Server("127.0.0.1")
    servers.append(public)
    real = socket.getaddrinfo
    answers = iter(["127.0.0.1", "127.0.0.2", "127.0.0.2", "127.0.0.2"])
    asked: list[str] = []

    def rebinding(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "api.rebind.test":
            return real(host, port, *args, **kwargs)
        asked.append(host)  # first the checked address, then a private one
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (next(answers), port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    model = OpenAIChatModel("m", base_url=f"http://api.rebind.test:{public.port}/v1",
                            retries=0, api_key="sk-pinned", address_check=only_first_loopback)
    reply = model.complete(MESSAGES, max_tokens=5)
    assert reply.text == "from the checked address" and asked == ["api.rebind.test"]
    assert public.requests == [{"path": "/v1/chat/completions", "auth": "Bearer sk-pinned",
                                "host": f"api.rebind.test:{public.port}"}]
    # the name now answers with a private address: refused before any connection
    with pytest.raises(ModelError, match="private or local address"):
        model.complete(MESSAGES, max_tokens=5)
    assert len(public.requests) == 1


@pytest.mark.parametrize("url", ["http://metadata.google.internal/v1",
                                 "http://no-such-endpoint.invalid/v1"])
def test_names_that_do_not_resolve_are_refused(url):
    with pytest.raises(InvalidInput):  # elsewhere the metadata name is a link-local address
        check_url(url)
    model = OpenAIChatModel("m", base_url=url, retries=0, address_check=is_public)
    with pytest.raises(ModelError, match="does not resolve|private or local"):
        model.complete(MESSAGES, max_tokens=5)


def test_an_invalid_name_says_it_does_not_resolve():
    with pytest.raises(InvalidInput, match="does not resolve"):
        check_url("https://no-such-endpoint.invalid/v1")


def test_private_addresses_are_refused_before_connecting(servers):
    local = Server("127.0.0.1")
    servers.append(local)
    for url in (local.url + "/v1", f"http://localhost:{local.port}/v1"):
        with pytest.raises(InvalidInput, match="private or local address"):
            check_url(url)
        model = OpenAIChatModel("m", base_url=url, retries=0, address_check=is_public)
        with pytest.raises(ModelError, match="private or local address"):
            model.complete(MESSAGES, max_tokens=5)
    assert local.requests == []
    for address in ("10.0.0.1", "169.254.169.254", "::1", "fd00::1", "::ffff:127.0.0.1",
                    "224.0.0.1", "100.64.0.1"):
        assert not is_public(address), address
    assert is_public("8.8.8.8") and is_public("2606:4700:4700::1111")
